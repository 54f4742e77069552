package dev.squall.planner.stage;

import dev.squall.planner.catalog.ColumnRanges;
import dev.squall.planner.catalog.IcebergTable;
import dev.squall.proto.v1.Literal;
import dev.squall.proto.v1.SortKey;
import dev.squall.proto.v1.Values;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.metadata.RelColumnOrigin;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Bounds of the range edge of a distributed ORDER BY, from column statistics: when the first sort
 * key is an INT, BIGINT or DATE column read unchanged from an Iceberg table whose manifests bound
 * it ({@link ColumnRanges}), its range {@code [lower, upper]} is cut into {@code n} equal spans,
 * and bound {@code i} is the end of span {@code i} (in the key's direction). A bound holds NULL
 * for every later key: it then sorts after every row with the same first key when that key is
 * NULLS LAST (before, when NULLS FIRST), so rows equal on the first key meet in one partition or
 * in adjacent ones, and the partitions in order are the global order either way.
 *
 * <p>Equal spans balance the tasks when values spread evenly over the range (keys and dates); a
 * skewed column makes some tasks larger, never the answer different. Rows outside the range (a
 * newer snapshot, time travel to an older one) fall into the first or last partition.
 */
final class SortRangeBounds {
  private SortRangeBounds() {}

  /**
   * The bounds for {@code partitions} ranges of {@code input}'s rows ordered by {@code keys}.
   *
   * @return {@code partitions - 1} bound rows (fewer partitions when the range holds fewer
   *     values), or empty when the first key has no known range or fewer than two ranges result
   */
  static Optional<List<Values.Row>> of(RelNode input, List<SortKey> keys, int partitions) {
    if (keys.isEmpty() || partitions < 2) {
      return Optional.empty();
    }
    SortKey first = keys.get(0);
    SqlTypeName type = input.getRowType().getFieldList().get(first.getColumn()).getType().getSqlTypeName();
    if (type != SqlTypeName.INTEGER && type != SqlTypeName.BIGINT && type != SqlTypeName.DATE) {
      return Optional.empty();
    }
    ColumnRanges.Range range = range(input, first.getColumn());
    if (range == null) {
      return Optional.empty();
    }
    int n = (int) Math.min(partitions, range.width());
    if (n < 2) {
      return Optional.empty();
    }
    List<Values.Row> bounds = new ArrayList<>(n - 1);
    double span = ((double) range.upper() - (double) range.lower() + 1.0) / n;
    for (int i = 1; i < n; i++) {
      // Ascending: the last value of span i - 1; descending: the first value of span n - i.
      long value = first.getDescending()
          ? range.lower() + (long) Math.floor(span * (n - i))
          : range.lower() + (long) Math.floor(span * i) - 1;
      Values.Row.Builder row = Values.Row.newBuilder().addValues(literal(type, value));
      for (int k = 1; k < keys.size(); k++) {
        row.addValues(Literal.newBuilder().setIsNull(true));
      }
      bounds.add(row.build());
    }
    return Optional.of(bounds);
  }

  /** The manifest range of the table column that column {@code column} of {@code rel} is, unchanged. */
  private static ColumnRanges.Range range(RelNode rel, int column) {
    RelColumnOrigin origin = rel.getCluster().getMetadataQuery().getColumnOrigin(rel, column);
    if (origin == null || origin.isDerived()) {
      return null;
    }
    RelOptTable table = origin.getOriginTable();
    IcebergTable iceberg = table == null ? null : table.unwrap(IcebergTable.class);
    return iceberg == null ? null : iceberg.valueRange(origin.getOriginColumnOrdinal());
  }

  private static Literal literal(SqlTypeName type, long value) {
    return type == SqlTypeName.DATE
        ? Literal.newBuilder().setDateDays((int) value).build()
        : Literal.newBuilder().setLongValue(value).build();
  }
}

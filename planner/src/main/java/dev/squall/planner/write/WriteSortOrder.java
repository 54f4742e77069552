package dev.squall.planner.write;

import dev.squall.proto.v1.SortKey;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortDirection;
import org.apache.iceberg.SortField;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.SortOrderParser;

/**
 * The sort order a write puts each data file's rows in: the table's Iceberg {@link SortOrder} when
 * the writer stage's sort (the engine's, memory-accounted and spilling) can order each file by it:
 * every field of the order is an identity transform of a top-level column, and the partition
 * values the rows are sorted on first are the files' own (identity, year, month, day, hour and
 * void fields; a bucket or truncate field sorts on its source column, which would order a file's
 * rows by that column first). Otherwise the table is written unsorted and its data files say so
 * (sort order id 0), as Iceberg allows: the sort order is a hint to writers, and a file's
 * {@code sort_order_id} tells readers what holds.
 */
public final class WriteSortOrder {
  private WriteSortOrder() {}

  /** The order writes use for a table sorted by {@code order}: itself, or unsorted (see the class). */
  public static SortOrder writable(SortOrder order, Schema schema, PartitionSpec spec) {
    if (order == null || order.isUnsorted()) {
      return SortOrder.unsorted();
    }
    for (SortField field : order.fields()) {
      if (!field.transform().isIdentity() || column(schema, field.sourceId()) < 0) {
        return SortOrder.unsorted();
      }
    }
    for (PartitionField field : spec.fields()) {
      String transform = field.transform().toString();
      if (transform.startsWith("bucket") || transform.startsWith("truncate")) {
        return SortOrder.unsorted();
      }
    }
    return order;
  }

  /**
   * Sort keys putting rows in {@code order}, an order {@link #writable} gave (after whatever keys
   * come before them).
   *
   * @param offset index of the table's first column in the rows sorted (2 when the rows start
   *     with a row-level write's {@code _file, _pos})
   */
  public static List<SortKey> keys(SortOrder order, Schema schema, int offset) {
    List<SortKey> keys = new ArrayList<>();
    for (SortField field : order.fields()) {
      keys.add(SortKey.newBuilder().setColumn(offset + column(schema, field.sourceId()))
          .setDescending(field.direction() == SortDirection.DESC)
          .setNullsFirst(field.nullOrder() == NullOrder.NULLS_FIRST).build());
    }
    return keys;
  }

  /** The order as JSON for writer tasks ({@link SortOrderParser}); empty when unsorted. */
  public static String json(SortOrder order) {
    return order.isUnsorted() ? "" : SortOrderParser.toJson(order);
  }

  private static int column(Schema schema, int fieldId) {
    return PartitionClustering.columnOf(schema, fieldId);
  }
}

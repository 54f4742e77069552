package dev.squall.planner.write;

import dev.squall.proto.v1.SortKey;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.calcite.avatica.util.TimeUnitRange;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.tools.RelBuilder;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * The clustering keys of a write into a partitioned table: columns whose equal values put a row
 * in the same partition, so that a hash edge on them before the writer stage sends every row of a
 * partition value to one writer task, which then writes one file per partition value (rolling at
 * {@code write.target-file-size-bytes}) instead of one in every task.
 *
 * <p>Keys per transform (Iceberg spec, "Partition Transforms"): identity → the column; year →
 * {@code EXTRACT(YEAR)}; month → year and month; day → year and day of year; hour → year, day of
 * year and hour. bucket[N] and truncate[W] cluster on their source column: every source value
 * goes to one task, so one bucket or truncated value may be written by several tasks (the engine
 * has no bucket function to hash on). void adds no key.
 */
public final class PartitionClustering {
  private PartitionClustering() {}

  /**
   * A plan that yields the table's columns followed by the computed keys.
   *
   * @param plan the write's plan with the key expressions appended (columns {@code 0 ..
   *     tableColumns-1} are the table's)
   * @param keys indices of the key columns in {@code plan}'s output (table columns or appended ones)
   * @param tableColumns how many leading columns are the table's
   */
  public record Keys(RelNode plan, List<Integer> keys, int tableColumns) {
    /**
     * The writer stage's sort: the keys ascending, NULLs first, so that a writer task meets the
     * rows of each partition value in one run (bucket and truncate keys sort their source column,
     * which keeps a truncated value together but not a bucket).
     */
    public List<SortKey> sortKeys() {
      return keys.stream().map(k -> SortKey.newBuilder().setColumn(k).setNullsFirst(true).build()).toList();
    }
  }

  /**
   * Keys for writing {@code plan}'s rows (the table's top-level columns in schema order) into a
   * table partitioned by {@code spec}; empty for an unpartitioned spec or one of void fields only.
   */
  public static Optional<Keys> of(RelNode plan, Schema schema, PartitionSpec spec, RelBuilder builder) {
    if (!spec.isPartitioned()) {
      return Optional.empty();
    }
    RexBuilder rex = builder.getRexBuilder();
    int columns = plan.getRowType().getFieldCount();
    List<RexNode> projects = new ArrayList<>();
    for (int i = 0; i < columns; i++) {
      projects.add(rex.makeInputRef(plan, i));
    }
    // Appended key expressions by their text, so that a key two fields share is computed once.
    Map<String, Integer> appended = new LinkedHashMap<>();
    List<Integer> keys = new ArrayList<>();
    for (PartitionField field : spec.fields()) {
      int column = columnOf(schema, field.sourceId());
      if (column < 0 || column >= columns) {
        continue;
      }
      RexNode source = rex.makeInputRef(plan, column);
      String transform = field.transform().toString();
      List<TimeUnitRange> units = switch (transform) {
        case "year" -> List.of(TimeUnitRange.YEAR);
        case "month" -> List.of(TimeUnitRange.YEAR, TimeUnitRange.MONTH);
        case "day" -> List.of(TimeUnitRange.YEAR, TimeUnitRange.DOY);
        case "hour" -> List.of(TimeUnitRange.YEAR, TimeUnitRange.DOY, TimeUnitRange.HOUR);
        default -> List.of();
      };
      if (transform.equals("void")) {
        continue;
      }
      if (units.isEmpty()) {
        addKey(keys, column);
        continue;
      }
      for (TimeUnitRange unit : units) {
        RexNode extract = rex.makeCall(SqlStdOperatorTable.EXTRACT, rex.makeFlag(unit), source);
        Integer index = appended.computeIfAbsent(extract.toString(), k -> {
          projects.add(extract);
          return projects.size() - 1;
        });
        addKey(keys, index);
      }
    }
    if (keys.isEmpty()) {
      return Optional.empty();
    }
    RelNode withKeys = appended.isEmpty() ? plan : builder.push(plan).project(projects, List.of(), true).build();
    return Optional.of(new Keys(withKeys, List.copyOf(keys), columns));
  }

  /**
   * Whether sorting on the keys of {@link #of} brings every partition value of {@code spec} in one
   * run: true when the spec has a field and each field is identity, year, month, day, hour,
   * truncate (order-preserving transforms of their key) or void; false for bucket, whose values
   * interleave in the source column's order.
   */
  public static boolean sortsIntoRuns(PartitionSpec spec) {
    return spec.isPartitioned() && spec.fields().stream().allMatch(f -> {
      String transform = f.transform().toString();
      return !transform.startsWith("bucket");
    });
  }

  private static void addKey(List<Integer> keys, int index) {
    if (!keys.contains(index)) {
      keys.add(index);
    }
  }

  /** Index of the top-level column with that field id in {@code schema}, -1 when none. */
  static int columnOf(Schema schema, int fieldId) {
    List<Types.NestedField> columns = schema.columns();
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).fieldId() == fieldId) {
        return i;
      }
    }
    return -1;
  }
}

package dev.squall.planner.write;

import dev.squall.planner.PlanningException;
import dev.squall.planner.PlanningException.Code;
import dev.squall.planner.sql.CreateTableAsStatement.PartitionItem;
import java.util.List;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * Builds the Iceberg {@link PartitionSpec} of a CREATE TABLE AS from its PARTITIONED BY items
 * (identity, year, month, day, hour, bucket[N], truncate[W]; see Iceberg's spec, "Partition
 * Transforms"). Column names resolve case-insensitively. Iceberg's own builder checks that a
 * transform applies to the column's type (day of a string is refused) and that no partition
 * field repeats; its refusals are reported at the item.
 */
public final class PartitionSpecFactory {
  private PartitionSpecFactory() {}

  /**
   * @throws PlanningException UNKNOWN_COLUMN for a column the query does not produce,
   *     VALIDATION_ERROR for a transform that does not apply or a repeated partition field
   */
  public static PartitionSpec build(Schema schema, List<PartitionItem> items) {
    if (items.isEmpty()) {
      return PartitionSpec.unpartitioned();
    }
    PartitionSpec.Builder spec = PartitionSpec.builderFor(schema);
    for (PartitionItem item : items) {
      Types.NestedField field = schema.caseInsensitiveFindField(item.column().text());
      if (field == null) {
        throw new PlanningException(Code.UNKNOWN_COLUMN, "Partition column '" + item.column().text()
            + "' is not a column of the table", item.column().line(), item.column().column());
      }
      String column = field.name();
      try {
        // Iceberg checks the transform against the column type only in build(): check each item
        // alone first so that the error names it.
        add(PartitionSpec.builderFor(schema), item, column).build();
        add(spec, item, column);
      } catch (IllegalArgumentException | UnsupportedOperationException
          | org.apache.iceberg.exceptions.ValidationException e) {
        throw new PlanningException(Code.VALIDATION_ERROR, "Cannot partition by " + describe(item)
            + " (column type " + field.type() + "): " + e.getMessage(), item.line(), item.column1(), e);
      }
    }
    return spec.build();
  }

  private static PartitionSpec.Builder add(PartitionSpec.Builder spec, PartitionItem item, String column) {
    return switch (item.transform()) {
      case "identity" -> spec.identity(column);
      case "year" -> spec.year(column);
      case "month" -> spec.month(column);
      case "day" -> spec.day(column);
      case "hour" -> spec.hour(column);
      case "bucket" -> spec.bucket(column, Math.toIntExact(item.argument()));
      case "truncate" -> spec.truncate(column, Math.toIntExact(item.argument()));
      default -> throw new IllegalArgumentException("unknown transform " + item.transform());
    };
  }

  private static String describe(PartitionItem item) {
    String column = item.column().text();
    return switch (item.transform()) {
      case "identity" -> column;
      case "bucket", "truncate" -> item.transform() + "(" + item.argument() + ", " + column + ")";
      default -> item.transform() + "(" + column + ")";
    };
  }
}

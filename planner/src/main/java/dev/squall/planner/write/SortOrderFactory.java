package dev.squall.planner.write;

import dev.squall.planner.PlanningException;
import dev.squall.planner.PlanningException.Code;
import dev.squall.planner.sql.CreateTableAsStatement.SortItem;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.types.Types;

/**
 * Builds the Iceberg {@link SortOrder} of a new table from its {@code sorted_by} items: identity
 * transforms of top-level columns, each ascending or descending with its NULL order. Column names
 * resolve case-insensitively.
 */
public final class SortOrderFactory {
  private SortOrderFactory() {}

  /**
   * @return unsorted for no items
   * @throws PlanningException UNKNOWN_COLUMN for a column the table does not have, VALIDATION_ERROR
   *     for a column named twice or one of a type that has no order (a nested type), at the item
   */
  public static SortOrder build(Schema schema, List<SortItem> items) {
    if (items.isEmpty()) {
      return SortOrder.unsorted();
    }
    SortOrder.Builder order = SortOrder.builderFor(schema);
    Set<Integer> seen = new HashSet<>();
    for (SortItem item : items) {
      Types.NestedField field = schema.caseInsensitiveFindField(item.column().text());
      if (field == null || !schema.columns().contains(field)) {
        throw new PlanningException(Code.UNKNOWN_COLUMN, "Sort column '" + item.column().text()
            + "' is not a column of the table", item.line(), item.column1());
      }
      if (!field.type().isPrimitiveType()) {
        throw new PlanningException(Code.VALIDATION_ERROR, "Cannot sort by column '" + field.name() + "' of type "
            + field.type(), item.line(), item.column1());
      }
      if (!seen.add(field.fieldId())) {
        throw new PlanningException(Code.VALIDATION_ERROR, "Sort column '" + field.name() + "' is given twice in"
            + " sorted_by", item.line(), item.column1());
      }
      NullOrder nulls = item.nullsFirst() ? NullOrder.NULLS_FIRST : NullOrder.NULLS_LAST;
      if (item.descending()) {
        order.desc(field.name(), nulls);
      } else {
        order.asc(field.name(), nulls);
      }
    }
    return order.build();
  }
}

package dev.squall.planner.meta;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.SortDirection;
import org.apache.iceberg.SortField;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.types.Types;

/**
 * The text of {@code SHOW CREATE TABLE}: a CREATE TABLE statement in the syntax Squall accepts,
 * which makes a table of the same columns (types in Trino's names, NOT NULL, COMMENT), partitioning
 * (PARTITIONED BY with Iceberg's transforms), sort order ({@code sorted_by}) and format version. The location is not shown: it
 * names storage, and a new table gets its own.
 */
public final class CreateTableText {
  private CreateTableText() {}

  /** @param qualifiedName the table's name as shown, e.g. {@code tpch.orders} */
  public static String of(String qualifiedName, Table table) {
    StringBuilder sb = new StringBuilder("CREATE TABLE ").append(qualifiedName).append(" (\n");
    List<Types.NestedField> columns = table.schema().columns();
    for (int i = 0; i < columns.size(); i++) {
      Types.NestedField f = columns.get(i);
      sb.append("   ").append(identifier(f.name())).append(' ').append(TrinoTypeNames.of(f.type()));
      if (f.isRequired()) {
        sb.append(" NOT NULL");
      }
      if (f.doc() != null) {
        sb.append(" COMMENT ").append(quote(f.doc()));
      }
      sb.append(i + 1 < columns.size() ? ",\n" : "\n");
    }
    sb.append(')');
    List<String> partitioning = new ArrayList<>();
    for (PartitionField field : table.spec().fields()) {
      String column = identifier(table.schema().findColumnName(field.sourceId()));
      String transform = field.transform().toString();
      if (transform.equals("identity")) {
        partitioning.add(column);
      } else if (transform.startsWith("bucket[") || transform.startsWith("truncate[")) {
        String name = transform.substring(0, transform.indexOf('['));
        String n = transform.substring(transform.indexOf('[') + 1, transform.length() - 1);
        partitioning.add(name + "(" + n + ", " + column + ")");
      } else if (!transform.equals("void")) {
        partitioning.add(transform.toLowerCase(Locale.ROOT) + "(" + column + ")");
      }
    }
    if (!partitioning.isEmpty()) {
      sb.append("\nPARTITIONED BY (").append(String.join(", ", partitioning)).append(')');
    }
    Map<String, String> with = new TreeMap<>();
    with.put("format", "'" + table.properties().getOrDefault(TableProperties.DEFAULT_FILE_FORMAT, "parquet")
        .toUpperCase(Locale.ROOT) + "'");
    if (table instanceof org.apache.iceberg.HasTableOperations ops) {
      with.put("format_version", Integer.toString(ops.operations().current().formatVersion()));
    }
    if (!table.sortOrder().isUnsorted()) {
      with.put("sorted_by", sortedBy(table));
    }
    sb.append("\nWITH (\n");
    List<String> items = new ArrayList<>();
    with.forEach((k, v) -> items.add("   " + k + " = " + v));
    sb.append(String.join(",\n", items)).append("\n)");
    return sb.toString();
  }

  /**
   * The table's sort order as Trino's {@code sorted_by} array: {@code ARRAY['a', 'b DESC']}, with
   * NULLS FIRST or LAST only where it differs from the direction's default (first ascending, last
   * descending). A field of another transform than identity is shown as {@code day(c)} and so on,
   * which CREATE TABLE refuses (Squall sorts by columns).
   */
  private static String sortedBy(Table table) {
    List<String> items = new ArrayList<>();
    for (SortField field : table.sortOrder().fields()) {
      String column = identifier(table.schema().findColumnName(field.sourceId()));
      String item = field.transform().isIdentity() ? column
          : field.transform().toString().toLowerCase(Locale.ROOT) + "(" + column + ")";
      boolean descending = field.direction() == SortDirection.DESC;
      if (descending) {
        item += " DESC";
      }
      if ((field.nullOrder() == NullOrder.NULLS_FIRST) == descending) {
        item += field.nullOrder() == NullOrder.NULLS_FIRST ? " NULLS FIRST" : " NULLS LAST";
      }
      items.add(quote(item));
    }
    return "ARRAY[" + String.join(", ", items) + "]";
  }

  /** A column name, double-quoted when it is not a plain lower-case identifier. */
  static String identifier(String name) {
    return name.matches("[a-z_][a-z0-9_]*") ? name : "\"" + name.replace("\"", "\"\"") + "\"";
  }

  private static String quote(String text) {
    return "'" + text.replace("'", "''") + "'";
  }
}

package dev.squall.planner.meta;

import dev.squall.planner.catalog.IcebergTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.calcite.schema.Table;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.iceberg.types.Types;

/**
 * The {@code information_schema} schema: {@code schemata}, {@code tables} and {@code columns}, with
 * Trino's column names. Each table is read from the catalog when a query that uses it is planned
 * and becomes a {@code VALUES} relation in the plan ({@link MetadataRelation}), so it can be
 * filtered, joined and aggregated like any table; it is a snapshot of the catalog at planning time.
 * {@code columns} loads the metadata of every visible table.
 */
public final class InformationSchema extends AbstractSchema {
  /** The schema's name. */
  public static final String NAME = "information_schema";
  /** The catalog name in {@code table_catalog} and {@code catalog_name}. */
  public static final String CATALOG = "squall";

  private final CatalogListing listing;

  public InformationSchema(CatalogListing listing) {
    this.listing = listing;
  }

  @Override
  protected Map<String, Table> getTableMap() {
    return Map.of(
        "schemata", new ComputedTable(List.of(MetadataRelation.varchar("catalog_name"),
            MetadataRelation.varchar("schema_name")), this::schemataRows),
        "tables", new ComputedTable(List.of(MetadataRelation.varchar("table_catalog"),
            MetadataRelation.varchar("table_schema"), MetadataRelation.varchar("table_name"),
            MetadataRelation.varchar("table_type")), this::tableRows),
        "columns", new ComputedTable(COLUMNS, this::columnRows));
  }

  private static final List<MetadataRelation.Column> COLUMNS = List.of(
      MetadataRelation.varchar("table_catalog"), MetadataRelation.varchar("table_schema"),
      MetadataRelation.varchar("table_name"), MetadataRelation.varchar("column_name"),
      new MetadataRelation.Column("ordinal_position", SqlTypeName.BIGINT), MetadataRelation.varchar("column_default"),
      MetadataRelation.varchar("is_nullable"), MetadataRelation.varchar("data_type"),
      MetadataRelation.varchar("comment"));

  private List<List<Object>> schemataRows() {
    List<List<Object>> rows = new ArrayList<>();
    rows.add(List.of(CATALOG, NAME));
    for (String schema : listing.schemas()) {
      rows.add(List.of(CATALOG, schema));
    }
    return rows;
  }

  private List<List<Object>> tableRows() {
    List<List<Object>> rows = new ArrayList<>();
    for (String schema : listing.schemas()) {
      for (String table : listing.tables(schema)) {
        rows.add(List.of(CATALOG, schema, table, "BASE TABLE"));
      }
    }
    for (String table : List.of("columns", "schemata", "tables")) {
      rows.add(List.of(CATALOG, NAME, table, "BASE TABLE"));
    }
    return rows;
  }

  private List<List<Object>> columnRows() {
    List<List<Object>> rows = new ArrayList<>();
    for (String schema : listing.schemas()) {
      for (String name : listing.tables(schema)) {
        IcebergTable table = listing.table(schema, name).orElse(null);
        if (table == null) {
          continue;
        }
        long position = 1;
        for (Types.NestedField f : table.schema().columns()) {
          List<Object> row = new ArrayList<>();
          row.add(CATALOG);
          row.add(schema);
          row.add(name);
          row.add(f.name());
          row.add(position++);
          row.add(null);
          row.add(f.isOptional() ? "YES" : "NO");
          row.add(TrinoTypeNames.of(f.type()));
          row.add(f.doc());
          rows.add(row);
        }
      }
    }
    return rows;
  }
}

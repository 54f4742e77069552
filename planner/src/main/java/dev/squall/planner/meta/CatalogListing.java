package dev.squall.planner.meta;

import dev.squall.planner.catalog.IcebergTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.Table;

/**
 * The schemas and tables a query can see, as the planner's root Calcite schema holds them (so a
 * caller restricted to some schemas sees only those), sorted by name. The schema
 * {@value InformationSchema#NAME} itself is not listed.
 */
public final class CatalogListing {
  private final SchemaPlus root;

  public CatalogListing(SchemaPlus root) {
    this.root = root;
  }

  /** Schema names, sorted. */
  public List<String> schemas() {
    List<String> names = new ArrayList<>();
    for (String name : root.getSubSchemaNames()) {
      if (!name.equalsIgnoreCase(InformationSchema.NAME)) {
        names.add(name);
      }
    }
    names.sort(null);
    return names;
  }

  /** The schema's name as the catalog spells it, found ignoring case. */
  public Optional<String> schema(String name) {
    return schemas().stream().filter(s -> s.equalsIgnoreCase(name)).findFirst();
  }

  /** Table names of a schema (as the catalog spells it), sorted. */
  public List<String> tables(String schema) {
    SchemaPlus s = root.getSubSchema(schema);
    if (s == null) {
      return List.of();
    }
    List<String> names = new ArrayList<>(s.getTableNames());
    names.sort(null);
    return names;
  }

  /** An Iceberg table of a schema; empty when the name is not an Iceberg table. */
  public Optional<IcebergTable> table(String schema, String name) {
    SchemaPlus s = root.getSubSchema(schema);
    Table t = s == null ? null : s.getTable(name);
    return t instanceof IcebergTable iceberg ? Optional.of(iceberg) : Optional.empty();
  }
}

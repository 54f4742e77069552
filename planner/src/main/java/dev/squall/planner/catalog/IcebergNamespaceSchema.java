package dev.squall.planner.catalog;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.calcite.schema.Table;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The tables of one Iceberg namespace as a Calcite schema ({@code tpch.lineitem} is table
 * {@code lineitem} of namespace {@code tpch}). Tables are listed once, on first lookup; each is
 * loaded lazily by {@link IcebergTable}.
 */
public final class IcebergNamespaceSchema extends AbstractSchema {
  private final Catalog catalog;
  private final Namespace namespace;
  private Map<String, Table> tables;

  public IcebergNamespaceSchema(Catalog catalog, Namespace namespace) {
    this.catalog = catalog;
    this.namespace = namespace;
  }

  @Override
  protected synchronized Map<String, Table> getTableMap() {
    if (tables == null) {
      Map<String, Table> map = new LinkedHashMap<>();
      for (TableIdentifier id : catalog.listTables(namespace)) {
        map.put(id.name(), new IcebergTable(catalog, id));
      }
      tables = map;
    }
    return tables;
  }
}

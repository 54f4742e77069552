package dev.squall.planner.catalog;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.calcite.schema.Table;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.apache.calcite.schema.lookup.LikePattern;
import org.apache.calcite.schema.lookup.Lookup;
import org.apache.calcite.schema.lookup.Named;
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
  private final DerivedTables derived;
  private Map<String, Table> tables;

  public IcebergNamespaceSchema(Catalog catalog, Namespace namespace) {
    this(catalog, namespace, DerivedTables.NONE);
  }

  /** @param derived resolves {@code t$type} and {@code t@n} names that are not tables themselves */
  public IcebergNamespaceSchema(Catalog catalog, Namespace namespace, DerivedTables derived) {
    this.catalog = catalog;
    this.namespace = namespace;
    this.derived = derived;
  }

  @Override
  public Lookup<Table> tables() {
    Lookup<Table> listed = super.tables();
    return new Lookup<>() {
      @Override
      public Table get(String name) {
        Table t = listed.get(name);
        return t != null ? t : derive(name, false);
      }

      @Override
      public Named<Table> getIgnoreCase(String name) {
        Named<Table> t = listed.getIgnoreCase(name);
        if (t != null) {
          return t;
        }
        Table d = derive(name, true);
        return d == null ? null : new Named<>(name, d);
      }

      @Override
      public java.util.Set<String> getNames(LikePattern pattern) {
        return listed.getNames(pattern);
      }

      private Table derive(String name, boolean ignoreCase) {
        int at = Math.max(name.lastIndexOf('@'), name.lastIndexOf('$'));
        if (at <= 0 || at == name.length() - 1) {
          return null;
        }
        String baseName = name.substring(0, at);
        Table base = ignoreCase ? Named.entityOrNull(listed.getIgnoreCase(baseName)) : listed.get(baseName);
        return base instanceof IcebergTable iceberg ? derived.derive(iceberg, name.charAt(at), name.substring(at + 1))
            : null;
      }
    };
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

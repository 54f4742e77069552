package dev.squall.planner.catalog;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.calcite.schema.Schema;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;

/**
 * The root Calcite schema over an Iceberg {@link Catalog}: one sub-schema per top-level namespace.
 * A catalog that does not list namespaces exposes the namespaces named in the constructor.
 */
public final class IcebergCatalogSchema extends AbstractSchema {
  private final Catalog catalog;
  private final List<String> extraNamespaces;
  private final DerivedTables derived;
  private Map<String, Schema> namespaces;

  /**
   * @param catalog the Iceberg catalog
   * @param extraNamespaces namespaces to expose even if the catalog cannot list them
   */
  public IcebergCatalogSchema(Catalog catalog, List<String> extraNamespaces) {
    this(catalog, extraNamespaces, DerivedTables.NONE);
  }

  /** @param derived metadata tables and time-travel names of every namespace's tables */
  public IcebergCatalogSchema(Catalog catalog, List<String> extraNamespaces, DerivedTables derived) {
    this.catalog = catalog;
    this.extraNamespaces = List.copyOf(extraNamespaces);
    this.derived = derived;
  }

  @Override
  protected synchronized Map<String, Schema> getSubSchemaMap() {
    if (namespaces == null) {
      Map<String, Schema> map = new LinkedHashMap<>();
      if (catalog instanceof SupportsNamespaces listing) {
        for (Namespace namespace : listing.listNamespaces()) {
          map.put(namespace.level(namespace.length() - 1), new IcebergNamespaceSchema(catalog, namespace, derived));
        }
      }
      for (String name : extraNamespaces) {
        map.putIfAbsent(name, new IcebergNamespaceSchema(catalog, Namespace.of(name), derived));
      }
      namespaces = map;
    }
    return namespaces;
  }
}

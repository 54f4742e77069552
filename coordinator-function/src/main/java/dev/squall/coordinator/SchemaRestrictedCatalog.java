package dev.squall.coordinator;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;

/**
 * A view of a catalog limited to the namespaces a predicate allows: tables and namespaces outside
 * it read as absent (Iceberg's own NoSuchTable/NoSuchNamespace errors, so the planner reports an
 * unknown table), and nothing outside it can be created, changed or dropped. The delegate must
 * support namespaces to list them.
 */
final class SchemaRestrictedCatalog implements Catalog, SupportsNamespaces {
  private final Catalog delegate;
  private final Predicate<Namespace> allowed;

  SchemaRestrictedCatalog(Catalog delegate, Predicate<Namespace> allowed) {
    this.delegate = delegate;
    this.allowed = allowed;
  }

  private TableIdentifier check(TableIdentifier id) {
    if (!allowed.test(id.namespace())) {
      throw new NoSuchTableException("Table does not exist: %s", id);
    }
    return id;
  }

  private Namespace check(Namespace namespace) {
    if (!allowed.test(namespace)) {
      throw new NoSuchNamespaceException("Namespace does not exist: %s", namespace);
    }
    return namespace;
  }

  private SupportsNamespaces namespaces() {
    if (delegate instanceof SupportsNamespaces n) {
      return n;
    }
    throw new UnsupportedOperationException("catalog " + delegate.name() + " does not list namespaces");
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public List<TableIdentifier> listTables(Namespace namespace) {
    return delegate.listTables(check(namespace));
  }

  @Override
  public Table loadTable(TableIdentifier identifier) {
    return delegate.loadTable(check(identifier));
  }

  @Override
  public boolean tableExists(TableIdentifier identifier) {
    return allowed.test(identifier.namespace()) && delegate.tableExists(identifier);
  }

  @Override
  public TableBuilder buildTable(TableIdentifier identifier, Schema schema) {
    return delegate.buildTable(check(identifier), schema);
  }

  @Override
  public boolean dropTable(TableIdentifier identifier, boolean purge) {
    return delegate.dropTable(check(identifier), purge);
  }

  @Override
  public void renameTable(TableIdentifier from, TableIdentifier to) {
    delegate.renameTable(check(from), check(to));
  }

  @Override
  public void invalidateTable(TableIdentifier identifier) {
    delegate.invalidateTable(identifier);
  }

  @Override
  public void createNamespace(Namespace namespace, Map<String, String> metadata) {
    namespaces().createNamespace(check(namespace), metadata);
  }

  @Override
  public List<Namespace> listNamespaces(Namespace namespace) {
    return namespaces().listNamespaces(namespace).stream().filter(allowed).toList();
  }

  @Override
  public Map<String, String> loadNamespaceMetadata(Namespace namespace) {
    return namespaces().loadNamespaceMetadata(check(namespace));
  }

  @Override
  public boolean namespaceExists(Namespace namespace) {
    return allowed.test(namespace) && namespaces().namespaceExists(namespace);
  }

  @Override
  public boolean dropNamespace(Namespace namespace) {
    return namespaces().dropNamespace(check(namespace));
  }

  @Override
  public boolean setProperties(Namespace namespace, Map<String, String> properties) {
    return namespaces().setProperties(check(namespace), properties);
  }

  @Override
  public boolean removeProperties(Namespace namespace, Set<String> properties) {
    return namespaces().removeProperties(check(namespace), properties);
  }
}

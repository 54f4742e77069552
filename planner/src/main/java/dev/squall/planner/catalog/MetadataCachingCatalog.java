package dev.squall.planner.catalog;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;

/**
 * A catalog for planning that keeps each table's operations from one load to the next, so that a
 * load reads the table's metadata file and manifest list only when the table has changed.
 *
 * <p>Every {@link #loadTable} still asks the catalog for the table's current metadata pointer
 * ({@code TableOperations.refresh()}: one SQLite or Glue read, or one REST load); Iceberg's
 * operations re-read the metadata file only when that pointer has moved. Metadata files and
 * manifest lists are immutable once written (a change writes new files under new names), so
 * metadata read for a pointer stays right for as long as the pointer names it, whatever other
 * writers do: a load sees every commit that landed before it.
 *
 * <p>Loaded tables are read-only: each is fixed to the metadata current at its load (one planning
 * run sees one version of a table), and committing through one fails. Writes go through the
 * delegate: {@link #buildTable}, drops, renames and namespaces pass through (drops and renames also
 * forget the table). Tables other than plain ones (metadata tables) pass through uncached.
 *
 * <p>Thread-safe: a table's refresh runs under that table's lock, which also publishes the
 * current snapshot's manifest lists, read there once per metadata version, to every later loader.
 * At most {@link #MAX_TABLES} tables are kept, the least recently loaded forgotten first.
 */
public final class MetadataCachingCatalog implements Catalog, SupportsNamespaces {
  /** Tables whose operations are kept. */
  public static final int MAX_TABLES = 1000;

  private final Catalog delegate;
  private final Map<TableIdentifier, Kept> kept = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<TableIdentifier, Kept> eldest) {
      return size() > MAX_TABLES;
    }
  };

  /** One table's operations, its name, and the metadata last handed out. */
  private static final class Kept {
    final TableOperations ops;
    final String name;
    TableMetadata handedOut;

    Kept(TableOperations ops, String name) {
      this.ops = ops;
      this.name = name;
    }
  }

  public MetadataCachingCatalog(Catalog delegate) {
    this.delegate = delegate;
  }

  /**
   * The table as of its current metadata pointer, read-only.
   *
   * @throws NoSuchTableException as the delegate: a table whose refresh fails (dropped, replaced
   *     by a new table of the same name) is loaded afresh, so errors are the delegate's own
   */
  @Override
  public Table loadTable(TableIdentifier identifier) {
    Kept table;
    synchronized (kept) {
      table = kept.get(identifier);
    }
    if (table == null) {
      Table loaded = delegate.loadTable(identifier);
      if (loaded.getClass() != BaseTable.class) {
        return loaded;
      }
      table = new Kept(((HasTableOperations) loaded).operations(), loaded.name());
      synchronized (kept) {
        Kept raced = kept.putIfAbsent(identifier, table);
        table = raced != null ? raced : table;
      }
    }
    TableMetadata metadata;
    boolean dropped = false;
    synchronized (table) {
      try {
        metadata = table.handedOut == null ? table.ops.current() : table.ops.refresh();
      } catch (RuntimeException e) {
        // Dropped, or dropped and created again (Iceberg refuses a table UUID that changed), or
        // the read failed: the table is forgotten and loaded as the catalog loads it.
        dropped = true;
        metadata = null;
      }
      if (dropped) {
        forget(identifier);
      } else if (metadata != table.handedOut) {
        readManifestLists(metadata, table.ops);
        table.handedOut = metadata;
      }
    }
    if (dropped) {
      return loadTable(identifier);
    }
    return new BaseTable(new StaticTableOperations(metadata, table.ops.io()), table.name);
  }

  /**
   * Reads the current snapshot's manifest lists into its snapshot object, which every table handed
   * out for this metadata shares (Iceberg caches them there without synchronization).
   */
  private static void readManifestLists(TableMetadata metadata, TableOperations ops) {
    Snapshot current = metadata.currentSnapshot();
    if (current != null) {
      current.allManifests(ops.io());
      current.dataManifests(ops.io());
      current.deleteManifests(ops.io());
    }
  }

  private void forget(TableIdentifier identifier) {
    synchronized (kept) {
      kept.remove(identifier);
    }
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public List<TableIdentifier> listTables(Namespace namespace) {
    return delegate.listTables(namespace);
  }

  @Override
  public boolean tableExists(TableIdentifier identifier) {
    return delegate.tableExists(identifier);
  }

  @Override
  public TableBuilder buildTable(TableIdentifier identifier, Schema schema) {
    return delegate.buildTable(identifier, schema);
  }

  @Override
  public boolean dropTable(TableIdentifier identifier, boolean purge) {
    forget(identifier);
    return delegate.dropTable(identifier, purge);
  }

  @Override
  public void renameTable(TableIdentifier from, TableIdentifier to) {
    forget(from);
    forget(to);
    delegate.renameTable(from, to);
  }

  @Override
  public void invalidateTable(TableIdentifier identifier) {
    forget(identifier);
    delegate.invalidateTable(identifier);
  }

  private SupportsNamespaces namespaces() {
    if (delegate instanceof SupportsNamespaces n) {
      return n;
    }
    throw new UnsupportedOperationException("catalog " + delegate.name() + " does not list namespaces");
  }

  @Override
  public void createNamespace(Namespace namespace, Map<String, String> metadata) {
    namespaces().createNamespace(namespace, metadata);
  }

  @Override
  public List<Namespace> listNamespaces(Namespace namespace) {
    return namespaces().listNamespaces(namespace);
  }

  @Override
  public Map<String, String> loadNamespaceMetadata(Namespace namespace) {
    return namespaces().loadNamespaceMetadata(namespace);
  }

  @Override
  public boolean namespaceExists(Namespace namespace) {
    return namespaces().namespaceExists(namespace);
  }

  @Override
  public boolean dropNamespace(Namespace namespace) {
    return namespaces().dropNamespace(namespace);
  }

  @Override
  public boolean setProperties(Namespace namespace, Map<String, String> properties) {
    return namespaces().setProperties(namespace, properties);
  }

  @Override
  public boolean removeProperties(Namespace namespace, Set<String> properties) {
    return namespaces().removeProperties(namespace, properties);
  }
}

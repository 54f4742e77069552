package dev.squall.coordinator.commit;

import dev.squall.proto.v1.DdlRecord;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.SortOrderParser;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.types.Types;

/**
 * Applies one planned DDL statement ({@link DdlRecord}) to the catalog, idempotently: each change
 * first checks whether the state it asks for already holds (a schema or table that exists or is
 * gone, a column added, renamed or dropped) and then does nothing, so that the run of a job that
 * takes over after a coordinator died once the change landed finishes the same way. A table it
 * creates carries the property {@value #CREATED_BY_JOB}, so that such a re-run tells its own table
 * from one another statement created meanwhile.
 *
 * <p>The table procedures expire_snapshots and remove_orphan_files are applied here too (Iceberg's
 * {@code ExpireSnapshots}; {@link OrphanFiles}); both are idempotent by nature.
 *
 * <p>DROP TABLE removes the table from the catalog only (Iceberg {@code dropTable} without purge):
 * queries already running on it read their snapshot's files to the end. The files stay in storage.
 */
public final class DdlCommitter {
  /** Table property naming the job whose CREATE TABLE made the table. */
  public static final String CREATED_BY_JOB = "squall.created-by-job";

  private final Catalog catalog;

  /** @param catalog the catalog as the job's caller may see it */
  public DdlCommitter(Catalog catalog) {
    this.catalog = catalog;
  }

  /**
   * Applies the statement.
   *
   * @return what a table procedure did ("expired 2 snapshots and deleted 7 files", "removed 3
   *     orphan files"), counted by this run (a re-run after a coordinator died counts only what it
   *     still found to do); empty for other DDL
   * @throws WriteCommitException target conflict when the catalog changed since planning in a way
   *     the user must resolve (e.g. the table now exists, the schema is not empty); outcome unknown
   *     when the catalog cannot say whether the change landed; otherwise a failure of the catalog
   */
  public String apply(String jobId, DdlRecord ddl) {
    String done = "";
    try {
      switch (ddl.getKind()) {
        case CREATE_SCHEMA -> {
          if (!namespaces().namespaceExists(namespace(ddl))) {
            namespaces().createNamespace(namespace(ddl));
          }
        }
        case DROP_SCHEMA -> {
          if (namespaces().namespaceExists(namespace(ddl))) {
            namespaces().dropNamespace(namespace(ddl));
          }
        }
        case CREATE_TABLE -> createTable(jobId, ddl);
        case DROP_TABLE -> {
          if (!ddl.getTable().isEmpty()) {
            catalog.dropTable(table(ddl), false);
          }
        }
        case ADD_COLUMN -> {
          Table table = catalog.loadTable(table(ddl));
          Types.NestedField column = SchemaParser.fromJson(ddl.getSchemaJson()).columns().get(0);
          if (table.schema().caseInsensitiveFindField(column.name()) == null) {
            table.updateSchema().addColumn(column.name(), column.type(), column.doc()).commit();
          }
        }
        case RENAME_COLUMN -> {
          Table table = catalog.loadTable(table(ddl));
          if (table.schema().findField(ddl.getColumn()) != null) {
            table.updateSchema().renameColumn(ddl.getColumn(), ddl.getNewName()).commit();
          }
        }
        case DROP_COLUMN -> {
          Table table = catalog.loadTable(table(ddl));
          if (table.schema().findField(ddl.getColumn()) != null) {
            table.updateSchema().deleteColumn(ddl.getColumn()).commit();
          }
        }
        case RENAME_TABLE -> {
          TableIdentifier to = TableIdentifier.of(Namespace.of(ddl.getNewNamespaceList().toArray(String[]::new)),
              ddl.getNewName());
          if (catalog.tableExists(table(ddl)) || !catalog.tableExists(to)) {
            catalog.renameTable(table(ddl), to);
          }
        }
        case EXPIRE_SNAPSHOTS -> {
          // Iceberg keeps the current snapshot and history.expire.min-snapshots-to-keep (1) whatever
          // their age; the files no retained snapshot reaches go. A re-run finds nothing more to
          // expire (files a coordinator that died left undeleted are orphans by then).
          done = expireSnapshots(catalog.loadTable(table(ddl)), ddl.getOlderThanMillis());
        }
        case REMOVE_ORPHAN_FILES -> {
          int removed = OrphanFiles.remove(catalog.loadTable(table(ddl)), ddl.getOlderThanMillis());
          done = "removed " + count(removed, "orphan file");
        }
        default -> throw new IllegalArgumentException("unknown DDL kind " + ddl.getKind());
      }
    } catch (CommitStateUnknownException e) {
      throw new WriteCommitException(ddl.getDescription() + ": the catalog did not say whether it was done",
          true, e);
    } catch (AlreadyExistsException | NoSuchTableException | NoSuchNamespaceException | NamespaceNotEmptyException
        | ValidationException | CommitFailedException | UnsupportedOperationException e) {
      throw WriteCommitException.targetConflict(ddl.getDescription() + " failed: " + e.getMessage(), e);
    }
    return done;
  }

  /**
   * Expires the table's snapshots older than the cutoff (Iceberg's {@code ExpireSnapshots}, which
   * keeps the current snapshot and {@code history.expire.min-snapshots-to-keep} whatever their age),
   * then deletes every file the snapshots reached before and no retained snapshot reaches after:
   * manifest lists, manifests, statistics files, data and delete files. This is reachability clean-up
   * (as Iceberg's expire-snapshots action of Spark does it): Iceberg's own incremental clean-up
   * deletes only the files expired snapshots removed, so a file that a retained snapshot removed
   * (say an optimize's {@code replace}) would stay in storage though no retained snapshot reads it.
   *
   * @return what was done, e.g. "expired 2 snapshots and deleted 7 files"
   */
  private static String expireSnapshots(Table table, long olderThanMillis) {
    java.util.Set<Long> before = snapshotIds(table);
    Map<String, List<String>> manifests = new HashMap<>();
    java.util.Set<String> unreachable = OrphanFiles.reachableFromSnapshots(table, manifests);
    table.expireSnapshots().expireOlderThan(olderThanMillis).cleanExpiredFiles(false).commit();
    table.refresh();
    before.removeAll(snapshotIds(table));
    if (before.isEmpty()) {
      unreachable.clear(); // nothing expired: nothing became unreachable
    } else {
      unreachable.removeAll(OrphanFiles.reachableFromSnapshots(table, manifests));
    }
    List<String> doomed = List.copyOf(unreachable);
    if (!doomed.isEmpty() && table.io() instanceof org.apache.iceberg.io.SupportsBulkOperations bulk) {
      bulk.deleteFiles(doomed);
    } else {
      doomed.forEach(table.io()::deleteFile);
    }
    return "expired " + count(before.size(), "snapshot") + " and deleted " + count(doomed.size(), "file");
  }

  private static java.util.Set<Long> snapshotIds(Table table) {
    java.util.Set<Long> ids = new java.util.HashSet<>();
    table.snapshots().forEach(s -> ids.add(s.snapshotId()));
    return ids;
  }

  private static String count(int n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }

  private void createTable(String jobId, DdlRecord ddl) {
    TableIdentifier id = table(ddl);
    if (catalog.tableExists(id)) {
      String creator = catalog.loadTable(id).properties().get(CREATED_BY_JOB);
      if (ddl.getIfExistsClause() || jobId.equals(creator)) {
        return;
      }
      throw new AlreadyExistsException("Table already exists: %s", id);
    }
    if (ddl.getSchemaJson().isEmpty()) {
      return; // IF NOT EXISTS found the table when planned: nothing to create
    }
    Schema schema = SchemaParser.fromJson(ddl.getSchemaJson());
    PartitionSpec spec = PartitionSpecParser.fromJson(schema, ddl.getPartitionSpecJson());
    Map<String, String> properties = new HashMap<>(ddl.getPropertiesMap());
    properties.put(CREATED_BY_JOB, jobId);
    SortOrder order = ddl.getSortOrderJson().isEmpty() ? SortOrder.unsorted()
        : SortOrderParser.fromJson(schema, ddl.getSortOrderJson());
    catalog.buildTable(id, schema).withPartitionSpec(spec).withSortOrder(order).withProperties(properties).create();
  }

  private SupportsNamespaces namespaces() {
    if (catalog instanceof SupportsNamespaces n) {
      return n;
    }
    throw new IllegalStateException("the catalog does not manage schemas");
  }

  private static Namespace namespace(DdlRecord ddl) {
    return Namespace.of(ddl.getNamespaceList().toArray(String[]::new));
  }

  private static TableIdentifier table(DdlRecord ddl) {
    List<String> ns = ddl.getNamespaceList();
    return TableIdentifier.of(Namespace.of(ns.toArray(String[]::new)), ddl.getTable());
  }
}

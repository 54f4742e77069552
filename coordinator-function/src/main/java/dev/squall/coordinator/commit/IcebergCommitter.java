package dev.squall.coordinator.commit;

import dev.squall.planner.write.WriteTarget;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's final step of a write: commits the data files of a job's winning attempts
 * to the Iceberg table in ONE commit, exactly once per job id.
 *
 * <ul>
 *   <li>INSERT: one {@code table.newAppend()} with every file, its snapshot summary stamped
 *       {@value #JOB_ID_PROPERTY} = job id. A concurrent commit to the same table makes Iceberg
 *       refresh and retry the append by itself (table properties {@code commit.retry.*}).
 *   <li>CREATE TABLE AS: a create transaction at the planned location with the planned schema,
 *       spec and properties, holding the stamped append: the table appears with its data or not
 *       at all.
 *   <li>Idempotent: before committing it looks for a snapshot of the table whose summary carries
 *       the job id (for CTAS: the table exists and carries it) and then commits nothing. After a
 *       failed or uncertain commit it reloads the table and looks again, so a commit that landed is
 *       reported as a success, never repeated; an error that does not prove the commit was
 *       refused (anything but a conflict, validation or missing-table failure) leaves the outcome
 *       unknown even when the re-read finds nothing.
 * </ul>
 *
 * <p>{@link #deleteDataFiles} removes files that will not be committed (losing attempts, failed
 * jobs) through the table's FileIO. Thread-safe if the catalog is.
 */
public final class IcebergCommitter {
  /** Snapshot summary property that names the job whose data files the snapshot added. */
  public static final String JOB_ID_PROPERTY = "squall.job-id";

  private static final Logger LOG = LoggerFactory.getLogger(IcebergCommitter.class);

  private final Catalog catalog;

  public IcebergCommitter(Catalog catalog) {
    this.catalog = Objects.requireNonNull(catalog, "catalog");
  }

  /**
   * Commits a job's data files, or finds that an earlier run of the job did.
   *
   * @param target the table as planned ({@code PlannedQuery.write()})
   * @param jobId the job's id; stamped into the snapshot summary
   * @param files the data files of the winning attempts (may be empty: the commit still records
   *     the job, and for CTAS creates the empty table)
   * @return the job's snapshot and the rows it added
   * @throws WriteCommitException when the commit did not happen (e.g. the INSERT target was
   *     dropped, a CTAS target was created by someone else meanwhile, a file does not fit the
   *     table), or may have happened ({@link WriteCommitException#outcomeUnknown()})
   */
  public CommitOutcome commit(WriteTarget target, String jobId, List<DataFile> files) {
    Objects.requireNonNull(jobId, "jobId");
    if (jobId.isBlank()) {
      throw new IllegalArgumentException("job id must not be blank");
    }
    return target.createsTable() ? createTable(target, jobId, files) : append(target, jobId, files);
  }

  /** Snapshot summary property of a row-level delete's snapshot: the rows it deleted. */
  public static final String ROWS_PROPERTY = "squall.rows";

  /**
   * What a row-level DELETE commits in one {@link RowDelta}.
   *
   * @param deletes the delete files the winning writer attempts wrote
   * @param added an UPDATE's data files holding the updated rows (empty for DELETE)
   * @param removed data files removed whole (all their rows match)
   * @param replaced format v3: earlier deletion vectors of data files that got a new one (which
   *     holds their positions too)
   * @param conflictFilter rows the delete reads; a concurrent commit that adds or deletes rows
   *     matching it conflicts
   * @param rows rows deleted, the statement's answer
   */
  public record RowDeltaFiles(List<DeleteFile> deletes, List<DataFile> added, List<DataFile> removed, List<DeleteFile> replaced,
      Expression conflictFilter, long rows) {}

  /**
   * Commits a row-level delete once: one {@code RowDelta} adding the delete files, removing whole
   * data files and replaced deletion vectors, and removing the delete files that applied only to
   * removed data files ({@link #replaced}; a copy-on-write rewrite applied them), validated against every commit since the snapshot
   * the job read ({@code validateFromSnapshot}, the conflict filter, no conflicting data or delete
   * files, the removed and referenced data files still there). A conflicting concurrent commit
   * fails the commit as a {@link WriteCommitException#targetConflict}: nothing was committed and
   * the job's files may be deleted. Idempotent by job id as {@link #commit}.
   *
   * @throws WriteCommitException as {@link #commit}
   */
  public CommitOutcome commitRowDelta(WriteTarget target, String jobId, RowDeltaFiles files) {
    Table table = loadTarget(target);
    Optional<Snapshot> earlier = jobSnapshot(table, jobId);
    if (earlier.isPresent()) {
      String rows = earlier.get().summary().get(ROWS_PROPERTY);
      return new CommitOutcome(earlier.get().snapshotId(), rows == null ? files.rows() : Long.parseLong(rows), true);
    }
    RowDelta delta;
    try {
      delta = table.newRowDelta();
      files.deletes().forEach(delta::addDeletes);
      files.added().forEach(delta::addRows);
      files.removed().forEach(delta::removeRows);
      // Delete files of removed data files only go with them (copy-on-write applied them).
      Set<String> removedDeletes = new HashSet<>();
      files.replaced().forEach(d -> {
        if (removedDeletes.add(deleteFileKey(d))) {
          delta.removeDeletes(d);
        }
      });
      if (!files.removed().isEmpty() && target.baseSnapshotId().isPresent()) {
        Set<String> removedPaths = new HashSet<>();
        files.removed().forEach(f -> removedPaths.add(f.location()));
        for (DeleteFile d : replaced(table, target.baseSnapshotId().getAsLong(), removedPaths).obsoleteDeletes()) {
          if (removedDeletes.add(deleteFileKey(d))) {
            delta.removeDeletes(d);
          }
        }
      }
      target.baseSnapshotId().ifPresent(delta::validateFromSnapshot);
      Set<String> referenced = new HashSet<>();
      files.deletes().forEach(d -> {
        if (d.referencedDataFile() != null) {
          referenced.add(d.referencedDataFile());
        }
      });
      delta.conflictDetectionFilter(files.conflictFilter())
          .validateDeletedFiles()
          .validateNoConflictingDataFiles()
          .validateNoConflictingDeleteFiles()
          .validateDataFilesExist(referenced)
          .set(JOB_ID_PROPERTY, jobId)
          .set(ROWS_PROPERTY, Long.toString(files.rows()));
    } catch (RuntimeException e) {
      throw refusedBeforeCommit(target.table(), jobId, e);
    }
    try {
      delta.commit();
    } catch (ValidationException e) {
      throw WriteCommitException.targetConflict(target.describe() + " conflicts with a change another"
          + " writer committed while it ran (" + e.getMessage() + "); nothing was committed, run the statement again", e);
    } catch (RuntimeException e) {
      CommitOutcome landed = recheck(target.table(), jobId, List.of(), e);
      return new CommitOutcome(landed.snapshotId(), files.rows(), false);
    }
    Snapshot committed = jobSnapshot(table, jobId).orElseThrow(() -> new IllegalStateException(
        "Committed job " + jobId + " to " + target.table() + " but its snapshot is not in the table"));
    return new CommitOutcome(committed.snapshotId(), files.rows(), false);
  }

  /**
   * Commits an optimize once: one {@code RewriteFiles} replacing the data files the job read
   * ({@link WriteTarget#rewrite()}, looked up in the snapshot the job read) by the files its
   * writer tasks wrote, validated from that snapshot. Delete files (position delete files,
   * deletion vectors, equality delete files) that apply to no data file of that snapshot but
   * rewritten ones go in the same commit, as the rewrite applied them. A concurrent commit that
   * removed one of the rewritten or obsolete files or added deletes to them fails it as a
   * {@link WriteCommitException#targetConflict} (nothing committed; the job's files are deleted).
   * With nothing to rewrite, nothing is committed. Idempotent by job id as {@link #commit}.
   *
   * @return the job's snapshot (or the table's current one when nothing was rewritten) and the
   *     rows rewritten
   * @throws WriteCommitException as {@link #commit}
   */
  public CommitOutcome commitRewrite(WriteTarget target, String jobId, List<DataFile> files) {
    Table table = loadTarget(target);
    Optional<Snapshot> earlier = jobSnapshot(table, jobId);
    if (earlier.isPresent()) {
      String rows = earlier.get().summary().get(ROWS_PROPERTY);
      return new CommitOutcome(earlier.get().snapshotId(), rows == null ? recordCount(files) : Long.parseLong(rows),
          true);
    }
    Set<String> paths = new HashSet<>(target.rewrite().getDataFilePathsList());
    if (paths.isEmpty() || target.baseSnapshotId().isEmpty()) {
      Snapshot current = table.currentSnapshot();
      return new CommitOutcome(current == null ? -1 : current.snapshotId(), 0, false);
    }
    long base = target.baseSnapshotId().getAsLong();
    RewriteFiles rewrite;
    try {
      Replaced replaced = replaced(table, base, paths);
      rewrite = table.newRewrite().validateFromSnapshot(base);
      replaced.dataFiles().forEach(rewrite::deleteFile);
      replaced.obsoleteDeletes().forEach(rewrite::deleteFile);
      files.forEach(rewrite::addFile);
      rewrite.set(JOB_ID_PROPERTY, jobId).set(ROWS_PROPERTY, Long.toString(recordCount(files)));
    } catch (ValidationException e) {
      throw conflict(target, e);
    } catch (RuntimeException e) {
      throw refusedBeforeCommit(target.table(), jobId, e);
    }
    try {
      rewrite.commit();
    } catch (ValidationException e) {
      throw conflict(target, e);
    } catch (RuntimeException e) {
      CommitOutcome landed = recheck(target.table(), jobId, files, e);
      return new CommitOutcome(landed.snapshotId(), recordCount(files), false);
    }
    Snapshot committed = jobSnapshot(table, jobId).orElseThrow(() -> new IllegalStateException(
        "Committed job " + jobId + " to " + target.table() + " but its snapshot is not in the table"));
    return new CommitOutcome(committed.snapshotId(), recordCount(files), false);
  }

  /**
   * Data files of a snapshot that a commit replaces or removes, and the delete files that become
   * obsolete with them.
   *
   * @param dataFiles the snapshot's data files among the paths asked for
   * @param obsoleteDeletes delete files (position delete files, deletion vectors, equality delete
   *     files) that the snapshot pairs with those data files only: once they are gone the delete
   *     files apply to nothing (the rewrite applied them) and would stay live in the table's
   *     metadata. A delete file that also applies to a data file left alone is not among them.
   */
  record Replaced(List<DataFile> dataFiles, List<DeleteFile> obsoleteDeletes) {}

  /**
   * The data files at {@code paths} in snapshot {@code snapshotId} of {@code table}, and the delete
   * files obsolete once they are removed ({@link Replaced}); pairs as the snapshot's scan planning
   * makes them ({@code planFiles}). Used by every commit that removes data files: optimize's
   * rewrite and a row-level write's row delta (copy-on-write rewrites, files removed whole).
   *
   * @throws java.io.UncheckedIOException when the snapshot's manifests cannot be read
   */
  static Replaced replaced(Table table, long snapshotId, Set<String> paths) {
    List<DataFile> dataFiles = new ArrayList<>();
    Set<String> found = new HashSet<>();
    Map<String, DeleteFile> deletes = new HashMap<>();
    Set<String> stillApplying = new HashSet<>();
    try (var tasks = table.newScan().useSnapshot(snapshotId).planFiles()) {
      for (var task : tasks) {
        boolean removed = paths.contains(task.file().location());
        if (removed && found.add(task.file().location())) {
          dataFiles.add(task.file());
        }
        for (DeleteFile delete : task.deletes()) {
          if (removed) {
            deletes.putIfAbsent(deleteFileKey(delete), delete);
          } else {
            stillApplying.add(deleteFileKey(delete));
          }
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    List<DeleteFile> obsolete = new ArrayList<>();
    deletes.forEach((location, delete) -> {
      if (!stillApplying.contains(location)) {
        obsolete.add(delete);
      }
    });
    return new Replaced(dataFiles, obsolete);
  }

  /**
   * Identifies one delete file: its location, and for a deletion vector also its offset, since the
   * vectors of several data files share one Puffin file.
   */
  static String deleteFileKey(DeleteFile delete) {
    return delete.contentOffset() == null ? delete.location() : delete.location() + "@" + delete.contentOffset();
  }

  /**
   * What an optimize's commit did, read from its snapshot's summary (so a run that took over after
   * a coordinator died says the same): "rewrote 200 data files with 12 delete files into 3 data
   * files (59000 rows)"; "found no data files to rewrite" when it committed nothing.
   */
  public String describeRewrite(WriteTarget target, String jobId) {
    Optional<Snapshot> committed = findCommitted(target.table(), jobId);
    if (committed.isEmpty()) {
      return "found no data files to rewrite";
    }
    Map<String, String> summary = committed.get().summary();
    long deleteFiles = count(summary, SnapshotSummary.REMOVED_DELETE_FILES_PROP);
    return "rewrote " + files(count(summary, SnapshotSummary.DELETED_FILES_PROP), "data file")
        + (deleteFiles == 0 ? "" : " with " + files(deleteFiles, "delete file")) + " into "
        + files(count(summary, SnapshotSummary.ADDED_FILES_PROP), "data file") + " ("
        + count(summary, ROWS_PROPERTY) + " rows)";
  }

  private static long count(Map<String, String> summary, String property) {
    String value = summary.get(property);
    return value == null ? 0 : Long.parseLong(value);
  }

  private static String files(long n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }

  private static WriteCommitException conflict(WriteTarget target, ValidationException e) {
    return WriteCommitException.targetConflict(target.describe() + " conflicts with a change another"
        + " writer committed while it ran (" + e.getMessage() + "); nothing was committed, run the statement again", e);
  }

  /**
   * The snapshot of {@code table} that a run of {@code jobId} committed, if any (searched among
   * the table's snapshots, newest first; an expired snapshot is not found).
   *
   * @return empty also when the table does not exist
   */
  public Optional<Snapshot> findCommitted(TableIdentifier table, String jobId) {
    try {
      return jobSnapshot(catalog.loadTable(table), jobId);
    } catch (NoSuchTableException e) {
      return Optional.empty();
    }
  }

  /**
   * Deletes data files that were not committed: those of losing or failed attempts, or all of a
   * failed job's. Paths that the job's committed snapshot added are never deleted, so a caller
   * that lists too much cannot damage the table. Deleting a file that does not exist is not an
   * error.
   *
   * @param paths full paths (e.g. {@code s3://bucket/warehouse/ns/t/data/...parquet})
   * @return the number of paths asked to be deleted (those not protected by the commit)
   * @throws IllegalArgumentException for a path outside the table location (the data files of
   *     a write all lie under it, unless {@code write.data.path} moves them elsewhere)
   */
  public int deleteDataFiles(WriteTarget target, String jobId, Collection<String> paths) {
    String dataPath = target.properties().get("write.data.path");
    for (String path : paths) {
      boolean under = path.startsWith(withSlash(target.location()))
          || (dataPath != null && path.startsWith(withSlash(dataPath)));
      if (!under) {
        throw new IllegalArgumentException("Refusing to delete '" + path + "': not under the table location "
            + target.location());
      }
    }
    Set<String> protectedPaths = new HashSet<>();
    FileIO io;
    if (catalog.tableExists(target.table())) {
      Table table = catalog.loadTable(target.table());
      io = table.io();
      jobSnapshot(table, jobId).ifPresent(s -> {
        s.addedDataFiles(table.io()).forEach(f -> protectedPaths.add(f.location()));
        s.addedDeleteFiles(table.io()).forEach(f -> protectedPaths.add(f.location()));
      });
    } else {
      io = uncreatedTableIo(target);
    }
    List<String> doomed = new ArrayList<>();
    for (String path : paths) {
      if (!protectedPaths.contains(path)) {
        doomed.add(path);
      }
    }
    if (doomed.isEmpty()) {
      return 0;
    }
    if (io instanceof SupportsBulkOperations bulk) {
      bulk.deleteFiles(doomed);
    } else {
      doomed.forEach(io::deleteFile);
    }
    LOG.info("Deleted {} uncommitted data files of job {} under {}", doomed.size(), jobId, target.location());
    return doomed.size();
  }

  /** The target table; a table dropped since planning is a conflict: nothing was committed. */
  private Table loadTarget(WriteTarget target) {
    try {
      return catalog.loadTable(target.table());
    } catch (NoSuchTableException e) {
      throw WriteCommitException.targetConflict("table " + target.table() + " no longer exists; nothing was committed",
          e);
    }
  }

  private CommitOutcome append(WriteTarget target, String jobId, List<DataFile> files) {
    Table table = loadTarget(target);
    Optional<Snapshot> earlier = jobSnapshot(table, jobId);
    if (earlier.isPresent()) {
      return already(earlier.get(), files);
    }
    AppendFiles append;
    try {
      append = table.newAppend();
      files.forEach(append::appendFile);
      append.set(JOB_ID_PROPERTY, jobId);
    } catch (RuntimeException e) {
      throw refusedBeforeCommit(target.table(), jobId, e);
    }
    try {
      append.commit();
    } catch (RuntimeException e) {
      return recheck(target.table(), jobId, files, e);
    }
    Snapshot committed = jobSnapshot(table, jobId).orElseThrow(() -> new IllegalStateException(
        "Committed job " + jobId + " to " + target.table() + " but its snapshot is not in the table"));
    return new CommitOutcome(committed.snapshotId(), recordCount(files), false);
  }

  private CommitOutcome createTable(WriteTarget target, String jobId, List<DataFile> files) {
    if (catalog.tableExists(target.table())) {
      return existingTable(target.table(), jobId, files, null);
    }
    Transaction create;
    try {
      create = catalog.buildTable(target.table(), target.schema())
          .withPartitionSpec(target.spec())
          .withSortOrder(target.sortOrder())
          .withLocation(target.location())
          .withProperties(target.properties())
          .createTransaction();
      if (!create.table().schema().sameSchema(target.schema())) {
        // The writers wrote the planned field ids; a table with other ids would misread them.
        throw new WriteCommitException("The catalog would create " + target.table() + " with schema "
            + create.table().schema() + ", not the planned " + target.schema() + "; nothing was committed",
            false, null);
      }
      AppendFiles append = create.newAppend();
      files.forEach(append::appendFile);
      append.set(JOB_ID_PROPERTY, jobId).commit(); // staged in the transaction: no catalog call yet
    } catch (WriteCommitException e) {
      throw e;
    } catch (RuntimeException e) {
      throw refusedBeforeCommit(target.table(), jobId, e);
    }
    try {
      create.commitTransaction();
    } catch (AlreadyExistsException e) {
      return existingTable(target.table(), jobId, files, e);
    } catch (RuntimeException e) {
      return recheck(target.table(), jobId, files, e);
    }
    Snapshot committed = findCommitted(target.table(), jobId).orElseThrow(() -> new IllegalStateException(
        "Created " + target.table() + " for job " + jobId + " but its snapshot is not in the table"));
    return new CommitOutcome(committed.snapshotId(), recordCount(files), false);
  }

  /** A failure while the commit was being built, before any call that could change the catalog. */
  private static WriteCommitException refusedBeforeCommit(TableIdentifier id, String jobId, RuntimeException e) {
    return new WriteCommitException("The commit of job " + jobId + " to " + id + " was refused before it was sent: "
        + e.getMessage(), false, e);
  }

  /** CTAS found its table: ours from an earlier run, or someone else's. */
  private CommitOutcome existingTable(TableIdentifier id, String jobId, List<DataFile> files, Exception cause) {
    Optional<Snapshot> earlier = findCommitted(id, jobId);
    if (earlier.isPresent()) {
      return already(earlier.get(), files);
    }
    throw WriteCommitException.targetConflict("table " + id + " already exists: another writer created it while"
        + " the query ran; nothing was committed", cause);
  }

  /**
   * After a failed commit call: did it land anyway? Only a refusal the catalog gives before
   * writing anything ({@link #certainlyNotCommitted}) lets a re-read that finds nothing conclude
   * that nothing was committed; after any other error (a timeout, a connection reset, an HTTP 5xx
   * of a REST catalog) the snapshot may still land after the re-read (Iceberg issue #2808), so the
   * outcome stays unknown and the job's data files must be kept.
   */
  private CommitOutcome recheck(TableIdentifier id, String jobId, List<DataFile> files, RuntimeException failure) {
    boolean uncertain = !certainlyNotCommitted(failure);
    Optional<Snapshot> landed;
    try {
      landed = findCommitted(id, jobId);
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
      throw new WriteCommitException("Commit of job " + jobId + " to " + id + " failed and the table could"
          + " not be re-read: " + failure.getMessage(), true, failure);
    }
    if (landed.isPresent()) {
      LOG.info("Commit of job {} to {} reported {} but its snapshot {} is in the table", jobId, id,
          failure.getClass().getSimpleName(), landed.get().snapshotId());
      return new CommitOutcome(landed.get().snapshotId(), recordCount(files), false);
    }
    throw new WriteCommitException((uncertain ? "Commit state of job " : "Commit of job ") + jobId + " to " + id
        + (uncertain ? " is unknown: " : " failed: ") + failure.getMessage(), uncertain, failure);
  }

  /**
   * Failures after which the catalog certainly did not commit: it refused the new metadata
   * (a conflict it would not retry), a validation failed before the commit, or the table is gone.
   */
  static boolean certainlyNotCommitted(RuntimeException failure) {
    return failure instanceof CommitFailedException || failure instanceof ValidationException
        || failure instanceof NoSuchTableException || failure instanceof AlreadyExistsException
        || failure instanceof WriteCommitException;
  }

  private static CommitOutcome already(Snapshot snapshot, List<DataFile> files) {
    String added = snapshot.summary().get(SnapshotSummary.ADDED_RECORDS_PROP);
    long rows = added == null ? recordCount(files) : Long.parseLong(added);
    return new CommitOutcome(snapshot.snapshotId(), rows, true);
  }

  private static Optional<Snapshot> jobSnapshot(Table table, String jobId) {
    List<Snapshot> snapshots = new ArrayList<>();
    table.snapshots().forEach(snapshots::add);
    for (int i = snapshots.size() - 1; i >= 0; i--) {
      if (jobId.equals(snapshots.get(i).summary().get(JOB_ID_PROPERTY))) {
        return Optional.of(snapshots.get(i));
      }
    }
    return Optional.empty();
  }

  private static long recordCount(List<DataFile> files) {
    long rows = 0;
    for (DataFile file : files) {
      rows += file.recordCount();
    }
    return rows;
  }

  /** The FileIO of the target table: the table's own, or the one a table never created would have had. */
  FileIO ioOf(WriteTarget target) {
    return catalog.tableExists(target.table()) ? catalog.loadTable(target.table()).io() : uncreatedTableIo(target);
  }

  /**
   * The table was never created (a CTAS that failed or is not committed yet): the uncommitted
   * create transaction's FileIO is the one the table would have had.
   */
  private FileIO uncreatedTableIo(WriteTarget target) {
    return catalog.buildTable(target.table(), target.schema()).withLocation(target.location())
        .createTransaction().table().io();
  }

  private static String withSlash(String location) {
    return location.endsWith("/") ? location : location + "/";
  }
}

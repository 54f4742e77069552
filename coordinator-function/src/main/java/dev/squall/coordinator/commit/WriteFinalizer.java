package dev.squall.coordinator.commit;

import dev.squall.planner.write.WriteTarget;
import dev.squall.proto.v1.RowDeleteRecord;
import dev.squall.proto.v1.TaskResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.apache.iceberg.util.JsonUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The final step of a write job, on the coordinator: turns the winning writer attempts' commit
 * messages into data files, commits them once ({@link IcebergCommitter}), and, once the job's end
 * is recorded, deletes every other data file the job wrote (losing, failed and abandoned attempts).
 * For a failed or cancelled job it deletes all of the job's data files, so the table stays exactly
 * as it was; the job's own snapshot, if one exists, protects its files from any deletion.
 *
 * <p>The job's files are found by name ({@code squall-<jobId>-s...}, as writer tasks name them)
 * under the table's data location; that listing covers the table's data files, a cost paid once
 * per write job.
 */
public final class WriteFinalizer {
  private static final Logger LOG = LoggerFactory.getLogger(WriteFinalizer.class);

  private final IcebergCommitter committer;

  public WriteFinalizer(Catalog catalog) {
    this.committer = new IcebergCommitter(catalog);
  }

  /**
   * The winners' data files committed to the table: the commit's outcome and the paths it holds.
   *
   * @param outcome the job's snapshot and the rows it added
   * @param committedPaths full paths of the data files the commit added
   */
  public record Committed(CommitOutcome outcome, Set<String> committedPaths) {}

  /**
   * Commits the winners' data files, or finds that an earlier run of the job did. Deletes nothing:
   * the caller removes the job's other files with {@link #deleteUncommitted} once the job's end is
   * recorded.
   *
   * @param rootWinners the winning attempts of the writer (root) stage, one per task
   * @throws WriteCommitException when the commit failed or its outcome is unknown
   */
  public Committed commit(String jobId, WriteTarget target, TaskResult[] rootWinners) {
    if (target.isRowDelete()) {
      return commitRowDelete(jobId, target, rootWinners);
    }
    List<DataFile> files = new ArrayList<>();
    for (TaskResult winner : rootWinners) {
      for (String message : winner.getCommitMessagesList()) {
        files.add(parse(message, target));
      }
    }
    CommitOutcome outcome = target.isRewrite() ? committer.commitRewrite(target, jobId, files)
        : committer.commit(target, jobId, files);
    Set<String> committed = new HashSet<>();
    files.forEach(f -> committed.add(f.location()));
    return new Committed(outcome, committed);
  }

  /**
   * A DELETE's, UPDATE's or MERGE's commit: the winners' delete files (and new data files), the
   * data files removed whole and, for format v3, the earlier deletion vectors the new ones
   * replace, in one row delta. Copy-on-write: the winners report the data files they rewrote
   * (those of the plan's data files) beside the rewrites; the row delta replaces them.
   */
  private Committed commitRowDelete(String jobId, WriteTarget target, TaskResult[] rootWinners) {
    RowDeleteRecord record = target.rowDelete();
    Map<Integer, PartitionSpec> specs = new HashMap<>();
    record.getDeleteFiles().getPartitionSpecsJsonMap()
        .forEach((id, json) -> specs.put(id, PartitionSpecParser.fromJson(target.schema(), json)));
    Set<String> planned = new HashSet<>();
    if (record.getDeleteFiles().getCopyOnWrite()) {
      for (String json : record.getDeleteFiles().getDataFilesJsonList()) {
        planned.add(parse(json, specs).location());
      }
    }
    List<DeleteFile> deletes = new ArrayList<>();
    List<DataFile> added = new ArrayList<>();
    List<DataFile> removed = new ArrayList<>();
    long rows = 0;
    for (TaskResult winner : rootWinners) {
      rows += winner.getMetrics().getRowsWritten();
      for (String message : winner.getCommitMessagesList()) {
        ContentFile<?> file = parse(message, specs);
        if (file instanceof DeleteFile delete) {
          deletes.add(delete);
        } else if (planned.contains(file.location())) {
          // Copy-on-write: a data file the statement read, replaced by its rewrite.
          removed.add((DataFile) file);
        } else {
          added.add((DataFile) file);
        }
      }
    }
    for (String json : record.getRemovedDataFilesJsonList()) {
      DataFile file = (DataFile) parse(json, specs);
      removed.add(file);
      rows += file.recordCount();
    }
    Map<String, DeleteFile> vectors = new HashMap<>();
    for (String json : record.getDeleteFiles().getDeletionVectorsJsonList()) {
      DeleteFile dv = (DeleteFile) parse(json, specs);
      vectors.put(dv.referencedDataFile(), dv);
    }
    List<DeleteFile> replaced = new ArrayList<>();
    for (DeleteFile d : deletes) {
      DeleteFile earlier = d.referencedDataFile() == null ? null : vectors.get(d.referencedDataFile());
      if (earlier != null) {
        replaced.add(earlier);
      }
    }
    // A rewritten data file's delete files (its deletion vector, position delete files that applied
    // to it only) go with it: the commit finds them (IcebergCommitter.replaced).
    Expression filter = ExpressionParser.fromJson(record.getConflictFilterJson(), target.schema());
    CommitOutcome outcome = committer.commitRowDelta(target, jobId,
        new IcebergCommitter.RowDeltaFiles(deletes, added, removed, replaced, filter, rows));
    Set<String> committed = new HashSet<>();
    deletes.forEach(f -> committed.add(f.location()));
    added.forEach(f -> committed.add(f.location()));
    return new Committed(outcome, committed);
  }

  private static ContentFile<?> parse(String json, Map<Integer, PartitionSpec> specs) {
    return JsonUtil.parse(json, node -> ContentFileParser.fromJson(node, specs));
  }

  /**
   * Deletes the job's data files that its commit did not add (losing, failed and abandoned
   * attempts). Files the job's snapshot references are never deleted.
   *
   * @return the number of files deleted
   */
  public int deleteUncommitted(String jobId, WriteTarget target, Committed committed) {
    return deleteJobFiles(jobId, target, committed.committedPaths());
  }

  /** What an optimize job's commit did, in words ({@link IcebergCommitter#describeRewrite}). */
  public String describeRewrite(String jobId, WriteTarget target) {
    return committer.describeRewrite(target, jobId);
  }

  /** Whether the job's snapshot is in the table (empty: the table could not be read). */
  public Optional<Boolean> isCommitted(String jobId, WriteTarget target) {
    try {
      return Optional.of(committer.findCommitted(target.table(), jobId).isPresent());
    } catch (RuntimeException e) {
      LOG.warn("job {}: reading the table to look for its commit failed: {}", jobId, e.toString());
      return Optional.empty();
    }
  }

  /** Deletes every data file of the job that its commit (if any) did not add. */
  public int discard(String jobId, WriteTarget target) {
    return deleteJobFiles(jobId, target, Set.of());
  }

  private int deleteJobFiles(String jobId, WriteTarget target, Set<String> keep) {
    List<String> doomed = new ArrayList<>();
    String prefix = "squall-" + jobId + "-s";
    try {
      FileIO io = committer.ioOf(target);
      if (!(io instanceof SupportsPrefixOperations listing)) {
        LOG.warn("job {}: the table's FileIO cannot list; uncommitted data files are left in place", jobId);
        return 0;
      }
      for (FileInfo f : listing.listPrefix(dataLocation(target))) {
        String name = f.location().substring(f.location().lastIndexOf('/') + 1);
        if (name.startsWith(prefix) && !keep.contains(f.location())) {
          doomed.add(f.location());
        }
      }
      if (doomed.isEmpty()) {
        return 0;
      }
      return committer.deleteDataFiles(target, jobId, doomed);
    } catch (RuntimeException e) {
      LOG.warn("job {}: deleting {} uncommitted data files failed: {}", jobId, doomed.size(), e.toString());
      return 0;
    }
  }

  private static String dataLocation(WriteTarget target) {
    String dataPath = target.properties().get("write.data.path");
    String base = dataPath != null ? dataPath : target.location().replaceAll("/+$", "") + "/data";
    return base.endsWith("/") ? base : base + "/";
  }

  private static DataFile parse(String message, WriteTarget target) {
    ContentFile<?> file = JsonUtil.parse(message, node -> ContentFileParser.fromJson(node, target.spec()));
    if (!(file instanceof DataFile data)) {
      throw new WriteCommitException("a writer task's commit message is not a data file: " + file.location(), false, null);
    }
    return data;
  }
}

package dev.squall.planner.write;

import dev.squall.planner.PlanningException;
import dev.squall.planner.PlanningException.Code;
import dev.squall.planner.catalog.IcebergTable;
import dev.squall.planner.ddl.TableProcedures;
import dev.squall.planner.sql.DdlStatement.ExecuteProcedure;
import dev.squall.planner.sql.SqlFrontEnd;
import dev.squall.proto.v1.RewriteRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.calcite.rel.RelNode;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Plans {@code ALTER TABLE t EXECUTE optimize [(file_size_threshold => '100MB')]} (Trino's
 * compaction) as a write: the query {@code SELECT * FROM t} restricted to the data files to
 * rewrite (every other file is a skipped data file of the scan), whose rows (their delete files
 * applied by the scan) the writer tasks write into new files rolling at the table's
 * {@code write.target-file-size-bytes}; the coordinator then commits one {@code RewriteFiles}
 * replacing the old files by the new ones, validated from the snapshot read.
 *
 * <p>Which files: per partition (spec and partition value), the data files smaller than the
 * threshold, and any data file with delete files (so that its deletes are applied); a partition
 * with a single small file and no deletes is left as it is, since rewriting it would make the
 * same file again.
 */
public final class OptimizePlanner {
  private final SqlFrontEnd frontEnd;

  public OptimizePlanner(SqlFrontEnd frontEnd) {
    this.frontEnd = frontEnd;
  }

  /**
   * The optimize of {@code resolved}: its plan (the table's columns), its target, whose
   * {@link WriteTarget#rewrite()} names the files rewritten, and every other data file of the
   * snapshot, which the scans must skip.
   *
   * @throws PlanningException VALIDATION_ERROR for a bad argument; UNSUPPORTED for a table as
   *     of a snapshot
   */
  public Planned plan(ExecuteProcedure statement, IcebergTable resolved) {
    long threshold = TableProcedures.fileSizeThreshold(statement);
    if (resolved.pinnedSnapshotId().isPresent()) {
      var at = statement.table().get(0);
      throw new PlanningException(Code.UNSUPPORTED, "Unsupported SQL: optimize of a table as of a snapshot",
          at.line(), at.column());
    }
    Table table = resolved.table();
    Snapshot current = table.currentSnapshot();
    List<String> rewritten = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    if (current != null) {
      Map<String, List<FileScanTask>> byPartition = new HashMap<>();
      Set<String> seen = new LinkedHashSet<>();
      try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(current.snapshotId()).planFiles()) {
        for (FileScanTask task : tasks) {
          if (seen.add(task.file().location())) {
            String partition = task.file().specId() + "/" + table.specs().get(task.file().specId())
                .partitionToPath(task.file().partition());
            byPartition.computeIfAbsent(partition, k -> new ArrayList<>()).add(task);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      for (List<FileScanTask> files : byPartition.values()) {
        List<FileScanTask> chosen = files.stream()
            .filter(f -> f.file().fileSizeInBytes() < threshold || !f.deletes().isEmpty()).toList();
        boolean worthIt = chosen.size() > 1 || chosen.stream().anyMatch(f -> !f.deletes().isEmpty());
        for (FileScanTask f : files) {
          (worthIt && chosen.contains(f) ? rewritten : skipped).add(f.file().location());
        }
      }
    }
    StringBuilder quoted = new StringBuilder();
    for (String level : resolved.identifier().namespace().levels()) {
      quoted.append('"').append(level.replace("\"", "\"\"")).append("\".");
    }
    quoted.append('"').append(resolved.identifier().name().replace("\"", "\"\"")).append('"');
    RelNode plan = frontEnd.toRel(SqlFrontEnd.parse("SELECT * FROM " + quoted)).project();
    WriteTarget target = new WriteTarget(resolved.identifier(), false, table.schema(), table.spec(), table.location(),
        table.properties(), current == null ? OptionalLong.empty() : OptionalLong.of(current.snapshotId()), null,
        RewriteRecord.newBuilder().addAllDataFilePaths(rewritten)
            .setDescription(TableProcedures.optimizeDescription(statement, resolved)).build())
        .withSortOrder(table.sortOrder());
    return new Planned(new WritePlanner.PlannedWrite(plan, target), skipped);
  }

  /**
   * A planned optimize.
   *
   * @param write the plan and target
   * @param skippedDataFiles data files of the snapshot that are not rewritten (not to be read)
   */
  public record Planned(WritePlanner.PlannedWrite write, List<String> skippedDataFiles) {}
}

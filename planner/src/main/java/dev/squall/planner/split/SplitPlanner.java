package dev.squall.planner.split;

import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.RuntimeFilter;
import dev.squall.proto.v1.Scan;
import dev.squall.proto.v1.ScanInput;
import dev.squall.proto.v1.ScanSplit;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.CombinedScanTask;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ScanTaskParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Assigns Iceberg splits to the tasks of leaf stages, by Iceberg scan planning:
 * {@code table.newScan().useSnapshot(planned).filter(pruning).select(columns)} with
 * {@code read.split.target-size} set, then {@code planTasks()}. Partition and min/max pruning come
 * from the Scan's Iceberg filter. Each combined scan task becomes one Squall task; its file scan
 * tasks are carried as ScanTaskParser JSON in {@link ScanSplit}s.
 *
 * <p>A stage that is a LIMIT without ORDER BY over a scan without a filter ({@link #rowsWanted})
 * gets only the first split groups whose files hold offset + limit rows by the manifests' record
 * counts, so that {@code select ... from t limit 10} runs one task and reads one file, not the table.
 *
 * <p>A stage with several scans gets as many tasks as its largest scan has split groups, and
 * group g of every scan goes to task g mod that count. A replicated scan ({@code Scan.replicated})
 * counts for no task: every task gets all its splits. A stage whose scans have no data gets one
 * task with no splits, so that consumers still see every producer finish.
 */
public final class SplitPlanner {
  private final Catalog catalog;
  private final long targetSplitSizeBytes;

  /** @param targetSplitSizeBytes bytes of data files per task (Iceberg read.split.target-size) */
  public SplitPlanner(Catalog catalog, long targetSplitSizeBytes) {
    if (targetSplitSizeBytes <= 0) {
      throw new IllegalArgumentException("Invalid target split size: " + targetSplitSizeBytes);
    }
    this.catalog = catalog;
    this.targetSplitSizeBytes = targetSplitSizeBytes;
  }

  /**
   * Plans the splits of every leaf stage.
   *
   * @throws org.apache.iceberg.exceptions.NoSuchTableException when a scanned table is gone
   * @throws IllegalStateException when a table no longer has the snapshot the plan was made for
   */
  public ScanAssignment plan(StageGraph graph) {
    Map<Integer, List<Map<Integer, ScanInput>>> byStage = new HashMap<>();
    for (Stage stage : graph.getStagesList()) {
      List<Scan> scans = new ArrayList<>();
      collectScans(stage.getFragment(), scans);
      if (scans.isEmpty()) {
        continue;
      }
      Map<Integer, List<List<ScanSplit>>> groupsByInput = new HashMap<>();
      Set<Integer> replicated = new TreeSet<>();
      int tasks = 1;
      for (Scan scan : scans) {
        Long snapshot = scan.hasSnapshotId() ? Long.valueOf(scan.getSnapshotId())
            : graph.getTableSnapshotIdsMap().get(scan.getTable());
        long wanted = scans.size() == 1 ? rowsWanted(stage.getFragment()) : -1;
        List<List<ScanSplit>> groups = splitGroups(scan, snapshot, wanted, probeKeyFields(graph, stage.getStageId(), scan));
        groupsByInput.put(scan.getInputIndex(), groups);
        if (scan.getReplicated()) {
          replicated.add(scan.getInputIndex());
        } else {
          tasks = Math.max(tasks, groups.size());
        }
      }
      List<Map<Integer, ScanInput>> perTask = new ArrayList<>();
      for (int t = 0; t < tasks; t++) {
        Map<Integer, ScanInput.Builder> inputs = new HashMap<>();
        for (Map.Entry<Integer, List<List<ScanSplit>>> e : groupsByInput.entrySet()) {
          ScanInput.Builder input = inputs.computeIfAbsent(e.getKey(), k -> ScanInput.newBuilder());
          List<List<ScanSplit>> groups = e.getValue();
          boolean whole = replicated.contains(e.getKey());
          for (int g = whole ? 0 : t; g < groups.size(); g += whole ? 1 : tasks) {
            input.addAllSplits(groups.get(g));
          }
        }
        Map<Integer, ScanInput> built = new HashMap<>();
        inputs.forEach((k, v) -> built.put(k, v.build()));
        perTask.add(Map.copyOf(built));
      }
      byStage.put(stage.getStageId(), List.copyOf(perTask));
    }
    return new ScanAssignment(byStage);
  }

  /** The split groups of one scan, one group per planned combined task. */
  List<List<ScanSplit>> splitGroups(Scan scan, Long snapshotId) {
    return splitGroups(scan, snapshotId, -1, Set.of());
  }

  /**
   * The Iceberg field ids of {@code scan}'s columns that runtime filters of {@code graph} test
   * (the scan is their probe scan); empty for any other scan.
   */
  static Set<Integer> probeKeyFields(StageGraph graph, int stageId, Scan scan) {
    Set<Integer> out = new TreeSet<>();
    for (RuntimeFilter f : graph.getRuntimeFiltersList()) {
      if (f.getProbeStageId() == stageId && f.getProbeScanInputIndex() == scan.getInputIndex()) {
        for (int column : f.getProbeColumnsList()) {
          if (column >= 0 && column < scan.getProjectedFieldIdsCount()) {
            out.add(scan.getProjectedFieldIds(column));
          }
        }
      }
    }
    return out;
  }

  /**
   * The rows a stage needs from its one scan when its fragment is a LIMIT (no ORDER BY) over
   * projections of a scan without a filter: offset + limit, since any that many rows of the table
   * are an answer; else -1 (every split is read).
   */
  static long rowsWanted(Operator fragment) {
    if (!fragment.hasLimit() || fragment.getLimit().getLimit() < 0) {
      return -1;
    }
    Operator op = fragment.getLimit().getInput();
    while (op.hasProject()) {
      op = op.getProject().getInput();
    }
    if (!op.hasScan() || !op.getScan().getIcebergFilterJson().isEmpty() || op.getScan().getSkippedDataFilesCount() > 0) {
      return -1;
    }
    return fragment.getLimit().getOffset() + fragment.getLimit().getLimit();
  }

  /**
   * The split groups of one scan; with {@code rowsWanted} at least 0, only the first groups whose
   * data files the manifests say hold that many rows (a file counts once all its splits are in
   * the groups kept, and only without delete files, so the count is never too high). Splits carry
   * the manifest's metrics of {@code keyFields} (a probe scan's runtime filter columns), which the
   * scan then reads from the manifests ({@code includeColumnStats} of those columns only).
   */
  List<List<ScanSplit>> splitGroups(Scan scan, Long snapshotId, long rowsWanted, Set<Integer> keyFields) {
    Table table = catalog.loadTable(TableIdentifier.parse(scan.getTable()));
    if (snapshotId == null) {
      return List.of();
    }
    Snapshot snapshot = table.snapshot(snapshotId);
    if (snapshot == null) {
      throw new IllegalStateException("Table " + scan.getTable() + " no longer has snapshot " + snapshotId
          + " that the query was planned against");
    }
    Schema schema = snapshot.schemaId() != null && table.schemas().containsKey(snapshot.schemaId())
        ? table.schemas().get(snapshot.schemaId()) : table.schema();
    List<String> columns = new ArrayList<>();
    List<String> keyColumns = new ArrayList<>();
    for (int id : keyFields) {
      String name = schema.findColumnName(id);
      if (name != null) {
        keyColumns.add(name);
      }
    }
    for (int id : scan.getProjectedFieldIdsList()) {
      String name = schema.findColumnName(id);
      if (name != null) { // not for the metadata columns _file and _pos
        columns.add(name);
      }
    }
    java.util.Set<String> skipped = new java.util.HashSet<>(scan.getSkippedDataFilesList());
    TableScan tableScan = table.newScan()
        .useSnapshot(snapshotId)
        .select(columns)
        .option(TableProperties.SPLIT_SIZE, Long.toString(targetSplitSizeBytes));
    if (!keyColumns.isEmpty()) {
      tableScan = tableScan.includeColumnStats(keyColumns);
    }
    if (!scan.getIcebergFilterJson().isEmpty()) {
      tableScan = tableScan.filter(ExpressionParser.fromJson(scan.getIcebergFilterJson(), schema));
    }
    List<List<ScanSplit>> groups = new ArrayList<>();
    long rows = 0;
    Map<String, Long> bytesCovered = new HashMap<>();
    try (CloseableIterable<CombinedScanTask> planned = tableScan.planTasks()) {
      for (CombinedScanTask combined : planned) {
        if (rowsWanted >= 0 && rows >= rowsWanted) {
          break; // the groups kept hold enough rows for the LIMIT
        }
        List<ScanSplit> group = new ArrayList<>();
        for (FileScanTask task : combined.files()) {
          if (skipped.contains(task.file().location())) {
            continue;
          }
          if (rowsWanted >= 0 && task.deletes().isEmpty()
              && bytesCovered.merge(task.file().location(), task.length(), Long::sum) == task.file().fileSizeInBytes()) {
            rows += task.file().recordCount();
          }
          ScanSplit.Builder split = ScanSplit.newBuilder()
              .setFileScanTaskJson(ScanTaskParser.toJson(task))
              .setDataFilePath(task.file().location())
              .setStart(task.start())
              .setLength(task.length());
          if (!keyColumns.isEmpty()) {
            split.setRecordCount(task.file().recordCount()).addAllKeyBounds(KeyBounds.of(task.file(), keyFields));
          }
          group.add(split.build());
        }
        if (!group.isEmpty()) {
          groups.add(group);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Scan planning of " + scan.getTable() + " failed", e);
    }
    return groups;
  }

  private static void collectScans(Operator op, List<Scan> into) {
    switch (op.getOpCase()) {
      case SCAN -> into.add(op.getScan());
      case FILTER -> collectScans(op.getFilter().getInput(), into);
      case PROJECT -> collectScans(op.getProject().getInput(), into);
      case AGGREGATE -> collectScans(op.getAggregate().getInput(), into);
      case HASH_JOIN -> {
        collectScans(op.getHashJoin().getLeft(), into);
        collectScans(op.getHashJoin().getRight(), into);
      }
      case NESTED_LOOP_JOIN -> {
        collectScans(op.getNestedLoopJoin().getLeft(), into);
        collectScans(op.getNestedLoopJoin().getRight(), into);
      }
      case SORT -> collectScans(op.getSort().getInput(), into);
      case TOP_N -> collectScans(op.getTopN().getInput(), into);
      case LIMIT -> collectScans(op.getLimit().getInput(), into);
      case WINDOW -> collectScans(op.getWindow().getInput(), into);
      case UNION_ALL -> op.getUnionAll().getInputsList().forEach(i -> collectScans(i, into));
      case EXPAND -> collectScans(op.getExpand().getInput(), into);
      default -> { }
    }
  }
}

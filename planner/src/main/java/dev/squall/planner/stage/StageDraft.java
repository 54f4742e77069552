package dev.squall.planner.stage;

import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Partitioning;
import java.util.ArrayList;
import java.util.List;

/**
 * A stage under construction: the fragment built so far (whose root is the operator for the plan
 * node last translated), its inputs in TaskSpec.inputs order, its output placement, task count and
 * size estimates. A draft becomes a {@code Stage} when {@link StageGraphBuilder#close} gives it an id.
 */
public final class StageDraft {
  /** One input of the stage's tasks. */
  public sealed interface Input permits ScanInput, EdgeInput {}

  /** Iceberg splits of a table, assigned by scan planning. */
  public record ScanInput(String table) implements Input {}

  /** The output of a producer stage, partitioned as given. */
  public record EdgeInput(int producerStageId, Partitioning partitioning) implements Input {}

  private final List<Input> inputs = new ArrayList<>();
  private final java.util.Map<Integer, dev.squall.planner.catalog.IcebergTable> scanTables = new java.util.HashMap<>();
  /** Runtime filters whose probe scan is in this stage; their probe stage id is set when it closes. */
  private final List<dev.squall.proto.v1.RuntimeFilter.Builder> probeFilters = new ArrayList<>();
  private final boolean leaf;
  private final int taskCount;
  Operator root;
  Distribution distribution;
  double rows;
  double bytes;
  /** Data-file bytes of the tables this draft scans (as the snapshots' summaries give them). */
  double scanFileBytes;

  private StageDraft(boolean leaf, int taskCount, Distribution distribution) {
    this.leaf = leaf;
    this.taskCount = taskCount;
    this.distribution = distribution;
  }

  /** A draft whose tasks read scan splits; its task count is an estimate until splits are planned. */
  public static StageDraft leaf(int estimatedTasks) {
    return new StageDraft(true, estimatedTasks, Distribution.ANY);
  }

  /** A draft with a fixed number of tasks (hash partitions, or 1). */
  public static StageDraft intermediate(int taskCount, Distribution distribution) {
    return new StageDraft(false, taskCount, distribution);
  }

  /** Adds a scan input; returns its input index. */
  public int addScan(String table) {
    inputs.add(new ScanInput(table));
    return inputs.size() - 1;
  }

  /** Adds a scan input of a table the planner has at hand (for its statistics); returns its input index. */
  public int addScan(String table, dev.squall.planner.catalog.IcebergTable source) {
    int index = addScan(table);
    if (source != null) {
      scanTables.put(index, source);
    }
    return index;
  }

  /** The table read by scan input {@code index}, or null when not known. */
  public dev.squall.planner.catalog.IcebergTable scanTable(int index) {
    return scanTables.get(index);
  }

  /** Adds an edge input; returns its input index. */
  public int addEdge(int producerStageId, Partitioning partitioning) {
    inputs.add(new EdgeInput(producerStageId, partitioning));
    return inputs.size() - 1;
  }

  /** Adds a runtime filter whose probe scan is in this stage (probe stage id set at close). */
  public void addProbeFilter(dev.squall.proto.v1.RuntimeFilter.Builder filter) {
    probeFilters.add(filter);
  }

  public List<dev.squall.proto.v1.RuntimeFilter.Builder> probeFilters() {
    return List.copyOf(probeFilters);
  }

  public List<Input> inputs() {
    return List.copyOf(inputs);
  }

  public boolean isLeaf() {
    return leaf;
  }

  public int taskCount() {
    return taskCount;
  }

  public Operator root() {
    return root;
  }

  public void setRoot(Operator root) {
    this.root = root;
  }

  public Distribution distribution() {
    return distribution;
  }

  public void setDistribution(Distribution distribution) {
    this.distribution = distribution;
  }

  public double rows() {
    return rows;
  }

  public double bytes() {
    return bytes;
  }

  public double scanFileBytes() {
    return scanFileBytes;
  }

  /** Adds data-file bytes of a table this draft scans. */
  public void addScanFileBytes(double bytes) {
    scanFileBytes += bytes;
  }

  /** Sets the estimates of the current root's output (all tasks together). */
  public void setEstimates(double rows, double bytes) {
    this.rows = rows;
    this.bytes = bytes;
  }
}

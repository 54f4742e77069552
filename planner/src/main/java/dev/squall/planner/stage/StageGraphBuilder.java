package dev.squall.planner.stage;

import dev.squall.proto.PartitionLayouts;
import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.Estimates;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.ShuffleRead;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Collects closed stages and their edges. Stage ids are given in closing order, and a producer is
 * always closed before its consumer, so stages come out producers first.
 *
 * <p>A subquery the plan holds twice (TPC-H Q15's view, a WITH query referenced twice) is run once:
 * an exchange whose producer equals a stage closed before (same fragment, inputs and task count,
 * and an edge of the same partitioning out of it) reads that stage instead, so one stage feeds
 * several consumers from one shuffle output. Not when a runtime filter narrows that stage or one
 * it reads (its rows then fit one consumer only); and once shared, no runtime filter is planned
 * into it or below it ({@link #isShared}).
 */
public final class StageGraphBuilder {
  private final List<Stage> stages = new ArrayList<>();
  /** The inputs of each closed stage, by stage id: with the fragment, what makes two stages equal. */
  private final List<List<StageDraft.Input>> stageInputs = new ArrayList<>();
  /** How each stage closed by an exchange leaves it (its consumer's edge is recorded later). */
  private final Map<Integer, Partitioning> leaving = new HashMap<>();
  /** Stages read by more than one consumer, and every stage they read. */
  private final Set<Integer> shared = new HashSet<>();
  /** The producer of the last exchange placed. */
  private int lastProducer = -1;
  private final List<Edge> edges = new ArrayList<>();
  private final Map<String, Long> snapshots = new LinkedHashMap<>();
  private final List<dev.squall.proto.v1.RuntimeFilter> runtimeFilters = new ArrayList<>();

  /** Closes a draft into a stage; returns its id. */
  public int close(StageDraft draft) {
    int id = stages.size();
    stages.add(Stage.newBuilder()
        .setStageId(id)
        .setFragment(draft.root())
        .setTaskCount(draft.taskCount())
        .setOutputSchema(draft.root().getOutputSchema())
        .setEstimates(Estimates.newBuilder()
            .setRows(Math.round(draft.rows()))
            .setBytes(Math.round(draft.bytes())))
        .build());
    stageInputs.add(draft.inputs());
    for (dev.squall.proto.v1.RuntimeFilter.Builder f : draft.probeFilters()) {
      addRuntimeFilter(f.setProbeStageId(id));
    }
    List<StageDraft.Input> inputs = draft.inputs();
    for (int i = 0; i < inputs.size(); i++) {
      if (inputs.get(i) instanceof StageDraft.EdgeInput edge) {
        edges.add(Edge.newBuilder()
            .setProducerStageId(edge.producerStageId())
            .setConsumerStageId(id)
            .setConsumerInputIndex(i)
            .setPartitioning(edge.partitioning())
            .build());
      }
    }
    return id;
  }

  /**
   * Places an exchange: closes the producer and adds its output, partitioned as given, as a new
   * input of the consumer. Returns the consumer's ShuffleRead of that input.
   */
  public Operator exchange(StageDraft producer, Partitioning partitioning, StageDraft consumer) {
    int producerId = equalStage(producer, partitioning);
    if (producerId < 0) {
      producerId = close(producer);
      leaving.put(producerId, partitioning);
    } else {
      markShared(producerId);
    }
    lastProducer = producerId;
    int index = consumer.addEdge(producerId, partitioning);
    return Operator.newBuilder()
        .setOutputSchema(producer.root().getOutputSchema())
        .setShuffleRead(ShuffleRead.newBuilder().setInputIndex(index))
        .build();
  }

  /** The stage an exchange placed last reads: the producer just closed, or the equal one it reuses. */
  public int lastProducerId() {
    return lastProducer;
  }

  /**
   * Whether a closed stage feeds more than one consumer or is read, directly or not, by one that
   * does. A runtime filter planned into it would drop rows another consumer needs.
   */
  public boolean isShared(int stageId) {
    return shared.contains(stageId);
  }

  /**
   * A closed stage that computes what {@code draft} would, and whose output already leaves through
   * an edge partitioned as {@code partitioning}; -1 when there is none, or when a runtime filter
   * narrows the draft, that stage or a stage it reads.
   */
  private int equalStage(StageDraft draft, Partitioning partitioning) {
    if (!draft.probeFilters().isEmpty()) {
      return -1;
    }
    List<StageDraft.Input> inputs = draft.inputs();
    for (int id = 0; id < stages.size(); id++) {
      Stage s = stages.get(id);
      if (s.getTaskCount() != draft.taskCount() || !stageInputs.get(id).equals(inputs)
          || !s.getFragment().equals(draft.root()) || leaving.get(id) == null
          || !PartitionLayouts.sameOutput(partitioning, leaving.get(id)) || narrowed(id)) {
        continue;
      }
      return id;
    }
    return -1;
  }

  /** Whether a runtime filter probes the stage or a stage it reads. */
  private boolean narrowed(int stageId) {
    Set<Integer> below = upstream(stageId);
    return runtimeFilters.stream().anyMatch(f -> below.contains(f.getProbeStageId()));
  }

  /** The stage and every stage it reads, directly or not. */
  private Set<Integer> upstream(int stageId) {
    Set<Integer> found = new HashSet<>();
    ArrayDeque<Integer> todo = new ArrayDeque<>(List.of(stageId));
    while (!todo.isEmpty()) {
      int id = todo.pop();
      if (found.add(id)) {
        for (StageDraft.Input in : stageInputs.get(id)) {
          if (in instanceof StageDraft.EdgeInput e) {
            todo.push(e.producerStageId());
          }
        }
      }
    }
    return found;
  }

  private void markShared(int stageId) {
    shared.addAll(upstream(stageId));
  }

  /** The fragment of a stage closed before. */
  public Operator fragmentOf(int stageId) {
    return stages.get(stageId).getFragment();
  }

  /**
   * The stage whose output a closed stage reads as its input {@code inputIndex}, or -1 when that
   * input is a scan (or no such edge was recorded).
   */
  public int producerOf(int consumerStageId, int inputIndex) {
    for (Edge e : edges) {
      if (e.getConsumerStageId() == consumerStageId && e.getConsumerInputIndex() == inputIndex) {
        return e.getProducerStageId();
      }
    }
    return -1;
  }

  /** The estimated output rows of a stage closed before. */
  public long estimatedRows(int stageId) {
    return stages.get(stageId).getEstimates().getRows();
  }

  /** The estimated output bytes of a stage closed before. */
  public long estimatedBytes(int stageId) {
    return stages.get(stageId).getEstimates().getBytes();
  }

  /** The id of the stage closed last. */
  public int lastStageId() {
    return stages.size() - 1;
  }

  /** Records a runtime filter whose stages are both known; its id is its position. */
  public void addRuntimeFilter(dev.squall.proto.v1.RuntimeFilter.Builder filter) {
    runtimeFilters.add(filter.setFilterId(runtimeFilters.size()).build());
  }

  /** Records the snapshot a scanned table was planned against. */
  public void recordSnapshot(String table, long snapshotId) {
    if (snapshotId != 0) {
      snapshots.put(table, snapshotId);
    }
  }

  /** Closes the root draft and returns the whole graph. */
  public StageGraph build(StageDraft root) {
    int rootId = close(root);
    return StageGraph.newBuilder()
        .addAllStages(stages)
        .addAllEdges(edges)
        .setRootStageId(rootId)
        .putAllTableSnapshotIds(snapshots)
        .addAllRuntimeFilters(runtimeFilters)
        .build();
  }
}

package dev.squall.planner.stage;

import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.Estimates;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.ShuffleRead;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Collects closed stages and their edges. Stage ids are given in closing order, and a producer is
 * always closed before its consumer, so stages come out producers first.
 */
public final class StageGraphBuilder {
  private final List<Stage> stages = new ArrayList<>();
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
    int producerId = close(producer);
    int index = consumer.addEdge(producerId, partitioning);
    return Operator.newBuilder()
        .setOutputSchema(producer.root().getOutputSchema())
        .setShuffleRead(ShuffleRead.newBuilder().setInputIndex(index))
        .build();
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

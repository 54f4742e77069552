package dev.squall.coordinator.scheduler;

import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Index over a {@link StageGraph}: stages by id, the edges into each stage and the one edge out of
 * it. Checks the graph's shape once, so that the scheduler can trust it:
 * every edge names existing stages, each stage feeds at most one consumer, the root feeds none,
 * hash/range edges have as many partitions as the consumer has tasks (hash: or as it has coalesced
 * groups of partitions), single edges feed one task,
 * forward edges join stages with equal task counts, and producers come before consumers.
 */
final class StageTopology {
  private final Map<Integer, Stage> stages = new LinkedHashMap<>();
  private final Map<Integer, List<Edge>> inputs = new HashMap<>();
  private final Map<Integer, Edge> output = new HashMap<>();
  private final int rootStageId;

  /**
   * @param taskCounts the task count of each stage (leaf stages: their number of split groups)
   * @throws IllegalArgumentException naming the first inconsistency found
   */
  StageTopology(StageGraph graph, Map<Integer, Integer> taskCounts) {
    for (Stage s : graph.getStagesList()) {
      if (stages.put(s.getStageId(), s) != null) {
        throw new IllegalArgumentException("stage graph lists stage " + s.getStageId() + " twice");
      }
    }
    rootStageId = graph.getRootStageId();
    require(stages.containsKey(rootStageId), "root stage %d is not in the stage graph", rootStageId);
    List<Integer> order = new ArrayList<>(stages.keySet());
    for (Edge e : graph.getEdgesList()) {
      int p = e.getProducerStageId();
      int c = e.getConsumerStageId();
      require(stages.containsKey(p) && stages.containsKey(c), "edge %d -> %d names a missing stage", p, c);
      require(order.indexOf(p) < order.indexOf(c), "edge %d -> %d: producer is listed after its consumer", p, c);
      require(output.put(p, e) == null, "stage %d feeds more than one consumer", p);
      require(p != rootStageId, "root stage %d must not feed another stage", p);
      inputs.computeIfAbsent(c, k -> new ArrayList<>()).add(e);
      int consumerTasks = taskCounts.get(c);
      Partitioning part = e.getPartitioning();
      switch (part.getKindCase()) {
        case HASH -> requireHashTasks(e, stages.get(c), consumerTasks);
        case RANGE -> require(part.getRange().getPartitions() == consumerTasks
            && stages.get(c).getPartitionGroupStartsCount() == 0,
            "range edge %d -> %d has %d partitions but stage %d has %d tasks", p, c, part.getRange().getPartitions(), c, consumerTasks);
        case SINGLE -> require(consumerTasks == 1, "single edge %d -> %d feeds stage %d with %d tasks", p, c, c, consumerTasks);
        case FORWARD -> require(taskCounts.get(p).equals(consumerTasks),
            "forward edge %d -> %d joins %d tasks to %d", p, c, taskCounts.get(p), consumerTasks);
        case BROADCAST -> { }
        default -> throw new IllegalArgumentException("edge " + p + " -> " + c + " has no partitioning");
      }
    }
    for (int id : stages.keySet()) {
      require(id == rootStageId || output.containsKey(id), "stage %d feeds no consumer and is not the root", id);
    }
  }

  /**
   * A hash edge has one partition per consumer task, or the consumer's coalesced groups: one per
   * task, ascending from partition 0, each within the edge's partitions.
   */
  private static void requireHashTasks(Edge e, Stage consumer, int consumerTasks) {
    int partitions = e.getPartitioning().getHash().getPartitions();
    int p = e.getProducerStageId();
    int c = e.getConsumerStageId();
    List<Integer> starts = consumer.getPartitionGroupStartsList();
    if (starts.isEmpty()) {
      require(partitions == consumerTasks, "hash edge %d -> %d has %d partitions but stage %d has %d tasks", p, c,
          partitions, c, consumerTasks);
      return;
    }
    require(starts.size() == consumerTasks, "stage %d has %d partition groups but %d tasks", c, starts.size(),
        consumerTasks);
    for (int i = 0; i < starts.size(); i++) {
      int start = starts.get(i);
      require(i == 0 ? start == 0 : start > starts.get(i - 1) && start < partitions,
          "stage %d's partition groups are not ascending from 0 within the %d partitions of edge %d -> %d", c,
          partitions, p, c);
    }
  }

  private static void require(boolean ok, String format, Object... args) {
    if (!ok) {
      throw new IllegalArgumentException("invalid stage graph: " + String.format(format, args));
    }
  }

  Stage stage(int id) {
    return stages.get(id);
  }

  Iterable<Stage> stages() {
    return stages.values();
  }

  List<Edge> inputsOf(int stageId) {
    return inputs.getOrDefault(stageId, List.of());
  }

  /** The edge out of a stage, or null for the root. */
  Edge outputOf(int stageId) {
    return output.get(stageId);
  }

  int rootStageId() {
    return rootStageId;
  }
}

package dev.squall.coordinator.scheduler;

import dev.squall.proto.PartitionLayouts;
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
 * Index over a {@link StageGraph}: stages by id, the edges into each stage and the edges out of
 * it. Checks the graph's shape once, so that the scheduler can trust it:
 * every edge names existing stages, a stage that feeds several consumers (a subquery the plan
 * holds twice, run once) does so through edges that lay out its output alike ({@link
 * PartitionLayouts#sameOutput}) and no combiner, so that its one shuffle output serves them all,
 * the root feeds none,
 * hash/range edges have as many partitions as the consumer has tasks (hash: or as it has coalesced
 * groups of partitions), single edges feed one task,
 * forward edges join stages with equal task counts, an edge into a combiner stage groups its
 * producer's tasks into the combiner's, and producers come before consumers.
 */
final class StageTopology {
  private final Map<Integer, Stage> stages = new LinkedHashMap<>();
  private final Map<Integer, List<Edge>> inputs = new HashMap<>();
  /** The edges out of each stage, in graph order. */
  private final Map<Integer, List<Edge>> outputs = new HashMap<>();
  private final int rootStageId;
  /** Stages by descending critical-path work: see {@link #criticalPathFirst()}. */
  private final List<Stage> criticalPathFirst;

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
      List<Edge> out = outputs.computeIfAbsent(p, k -> new ArrayList<>());
      require(out.isEmpty() || (PartitionLayouts.sameOutput(out.get(0).getPartitioning(), e.getPartitioning())
          && out.get(0).getCombineGroup() == 0 && e.getCombineGroup() == 0),
          "stage %d feeds more than one consumer through different partitionings or a combiner", p);
      out.add(e);
      require(p != rootStageId, "root stage %d must not feed another stage", p);
      inputs.computeIfAbsent(c, k -> new ArrayList<>()).add(e);
      int consumerTasks = taskCounts.get(c);
      Partitioning part = e.getPartitioning();
      if (e.getCombineGroup() > 0) {
        int group = e.getCombineGroup();
        require(stages.get(c).getFragment().hasShuffleCombine(), "combining edge %d -> %d feeds stage %d, which is no combiner", p, c, c);
        require(consumerTasks == (taskCounts.get(p) + group - 1) / group,
            "combining edge %d -> %d groups %d tasks by %d into %d combiner tasks", p, c, taskCounts.get(p), group, consumerTasks);
        require(part.hasHash() || part.hasRange(), "combining edge %d -> %d is neither hash nor range", p, c);
        continue;
      }
      require(!stages.get(c).getFragment().hasShuffleCombine(), "edge %d -> %d into combiner stage %d has no group", p, c, c);
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
      require(id == rootStageId || outputs.containsKey(id), "stage %d feeds no consumer and is not the root", id);
    }
    Map<Integer, Long> pathTasks = new HashMap<>();
    for (int i = order.size() - 1; i >= 0; i--) { // consumers are listed after their producers
      int id = order.get(i);
      long below = 0;
      for (Edge out : outputsOf(id)) {
        below = Math.max(below, pathTasks.get(out.getConsumerStageId()));
      }
      pathTasks.put(id, taskCounts.get(id) + below);
    }
    List<Stage> ranked = new ArrayList<>(stages.values());
    ranked.sort(java.util.Comparator.comparingLong((Stage s) -> -pathTasks.get(s.getStageId())));
    criticalPathFirst = List.copyOf(ranked);
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
    require(SkewJoinSplitter.taskCount(consumer) == consumerTasks, "stage %d has %d partition groups but %d tasks",
        c, starts.size(), consumerTasks);
    for (var split : consumer.getSkewSplitsList()) {
      int at = starts.indexOf(split.getPartition());
      boolean alone = at >= 0 && (at + 1 < starts.size() ? starts.get(at + 1) == split.getPartition() + 1
          : split.getPartition() + 1 == partitions);
      require(alone && split.getMapTaskStartsCount() > 0 && split.getMapTaskStarts(0) == 0,
          "stage %d splits partition %d, which is not a group of its own or has no pieces from map task 0", c,
          split.getPartition());
    }
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

  /**
   * The edge out of a stage (the first, where it feeds several consumers: they all have its
   * partitioning), or null for the root.
   */
  Edge outputOf(int stageId) {
    List<Edge> out = outputs.get(stageId);
    return out == null ? null : out.get(0);
  }

  /** The edges out of a stage: one per consumer input it feeds, none for the root. */
  List<Edge> outputsOf(int stageId) {
    return outputs.getOrDefault(stageId, List.of());
  }

  int rootStageId() {
    return rootStageId;
  }

  /**
   * The stages, those with the most work between them and the root first: ranked by the tasks on
   * the path from the stage to the root (its own included), ties in graph order. When several
   * stages are ready at once, starting them in this order lets the longest chain (the critical
   * path) take invoker threads and concurrency slots first.
   */
  List<Stage> criticalPathFirst() {
    return criticalPathFirst;
  }
}

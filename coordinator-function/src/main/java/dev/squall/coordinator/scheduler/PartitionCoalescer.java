package dev.squall.coordinator.scheduler;

import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.PartitionRange;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.TaskResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Adaptive coalescing of hash partitions: once every producer of a stage's hash edges has finished,
 * their task results hold each map output's index (bytes per partition), so the consumer's task
 * count can follow the measured sizes instead of the planner's estimate. Adjacent partitions are
 * grouped, in order, into tasks that each read about a target number of bytes summed over all of
 * the stage's hash edges (both sides of a join get the same grouping, so matching keys still meet
 * in one task). A partition larger than the target stays a task of its own.
 *
 * <p>Grouping adjacent partitions greedily by a byte target follows Spark's adaptive query
 * execution ("coalesce shuffle partitions"); here it runs between Lambda waves, on the coordinator.
 *
 * <p>Eligible stages read only hash edges (and broadcast edges, which every task reads whole), have
 * no scan and no forward output (a forward consumer's task count is tied to this stage's), and were
 * not coalesced before ({@code Stage.partition_group_starts} empty). Range edges keep their tasks.
 */
final class PartitionCoalescer {
  private PartitionCoalescer() {}

  /**
   * The first partition of each coalesced task, or empty when the stage is not eligible.
   *
   * @param stage the consumer stage, not yet started
   * @param inputs its input edges
   * @param output its output edge, or null for the root
   * @param hasScans whether the stage reads scan splits
   * @param winners every finished stage's winning results by partition (all producers' present)
   * @param targetBytes bytes a coalesced task should read at about; at most 0 means never coalesce
   * @return ascending partition numbers starting at 0, one per task
   */
  static Optional<int[]> groupStarts(Stage stage, List<Edge> inputs, Edge output, boolean hasScans,
      Map<Integer, TaskResult[]> winners, long targetBytes) {
    if (targetBytes <= 0) {
      return Optional.empty();
    }
    int partitions = eligiblePartitions(stage, inputs, output, hasScans);
    if (partitions <= 1) {
      return Optional.empty();
    }
    return Optional.of(group(partitionBytes(inputs, winners, partitions), targetBytes));
  }

  /**
   * The partition count of a stage's hash edges when its tasks may be decided at run time
   * (coalesced, or skewed partitions split), else -1: the stage reads only hash and broadcast
   * edges (no combiner, no scan), all hash edges with one partition count, was not regrouped
   * before, and does not feed a forward edge.
   */
  static int eligiblePartitions(Stage stage, List<Edge> inputs, Edge output, boolean hasScans) {
    if (hasScans || stage.getPartitionGroupStartsCount() > 0
        || (output != null && output.getPartitioning().getKindCase() == Partitioning.KindCase.FORWARD)) {
      return -1;
    }
    int partitions = -1;
    for (Edge e : inputs) {
      if (e.getCombineGroup() > 0) {
        return -1; // a combiner stage: its tasks are groups of map tasks, not of partitions
      }
      switch (e.getPartitioning().getKindCase()) {
        case HASH -> {
          int n = e.getPartitioning().getHash().getPartitions();
          if (partitions >= 0 && n != partitions) {
            return -1;
          }
          partitions = n;
        }
        case BROADCAST -> { }
        default -> {
          return -1;
        }
      }
    }
    return partitions;
  }

  /** Bytes of each hash partition summed over every hash input edge's winning map outputs. */
  static long[] partitionBytes(List<Edge> inputs, Map<Integer, TaskResult[]> winners, int partitions) {
    long[] bytes = new long[partitions];
    for (Edge e : inputs) {
      if (e.getPartitioning().getKindCase() != Partitioning.KindCase.HASH) {
        continue;
      }
      for (TaskResult w : winners.get(e.getProducerStageId())) {
        for (PartitionRange r : w.getPartitionsList()) {
          if (r.getPartition() >= 0 && r.getPartition() < partitions) {
            bytes[r.getPartition()] += r.getLength();
          }
        }
      }
    }
    return bytes;
  }

  /**
   * Groups adjacent partitions greedily: a group is closed before the partition that would take it
   * past {@code targetBytes}, so every group but single-partition ones stays at or under it.
   *
   * @return the first partition of each group, ascending, starting at 0
   */
  static int[] group(long[] bytes, long targetBytes) {
    List<Integer> starts = new ArrayList<>();
    starts.add(0);
    long current = 0;
    for (int p = 0; p < bytes.length; p++) {
      if (p > 0 && current > 0 && current + bytes[p] > targetBytes) {
        starts.add(p);
        current = 0;
      }
      current += bytes[p];
    }
    return starts.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * The hash partitions task {@code task} of {@code stage} reads: {@code [from, to)}.
   *
   * @param partitions the stage's hash edges' partition count
   */
  static int[] partitionsOf(Stage stage, int task, int partitions) {
    if (stage.getSkewSplitsCount() > 0) {
      SkewJoinSplitter.Slice slice = SkewJoinSplitter.slice(stage, task, partitions);
      return new int[] {slice.from(), slice.to()};
    }
    int groups = stage.getPartitionGroupStartsCount();
    if (groups == 0) {
      return new int[] {task, task + 1};
    }
    int to = task + 1 < groups ? stage.getPartitionGroupStarts(task + 1) : partitions;
    return new int[] {stage.getPartitionGroupStarts(task), to};
  }
}

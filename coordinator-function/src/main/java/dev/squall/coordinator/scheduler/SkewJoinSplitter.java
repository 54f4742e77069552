package dev.squall.coordinator.scheduler;

import dev.squall.proto.v1.Aggregate;
import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.HashJoin;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.PartitionRange;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.SkewSplit;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.TaskResult;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Skew splitting of a join's hash partitions (after Spark's adaptive {@code OptimizeSkewedJoin}),
 * decided between Lambda waves: once both sides of a co-partitioned join have finished, a hash
 * partition whose measured bytes on one side exceed both {@code skewFactor} × that side's median
 * partition and a minimum is split. The skewed side's map tasks are grouped, in order, into pieces
 * of about the adaptive target bytes; each piece becomes a task that reads its map tasks' share of
 * the partition on the skewed side and the whole partition of every other input. Every row of the
 * skewed side is read by exactly one task, every row of the other side by each of the partition's
 * tasks.
 *
 * <p>That is only correct when rows of the other side may be matched in several tasks without
 * changing the answer: the side split must be one whose rows are each emitted (or dropped) by
 * looking at the other side alone. So: INNER joins either side; LEFT, SEMI and ANTI joins only the
 * left (probe, preserved) side; RIGHT joins only the right side; FULL joins never (the other side's
 * unmatched rows would be emitted by every piece). The split side must reach its shuffle read
 * through filters and projections only, and above the join the stage may hold only filters,
 * projections and partial aggregations (a single or final aggregation, window, sort or limit
 * needs all rows of a key, or all rows, in one task); otherwise nothing is split.
 *
 * <p>The stage's other partitions are coalesced as {@link PartitionCoalescer} does; each split
 * partition is a group of its own ({@code Stage.partition_group_starts}), whose pieces are listed in
 * {@code Stage.skew_splits}. Tasks are numbered group by group, a split group's pieces in order.
 */
final class SkewJoinSplitter {
  private SkewJoinSplitter() {}

  /**
   * What one task of a regrouped stage reads: hash partitions {@code [from, to)} of every hash input,
   * and of input {@code splitInput} (or none, -1) only map tasks {@code [mapFrom, mapTo)}.
   */
  record Slice(int from, int to, int splitInput, int mapFrom, int mapTo) {}

  /** Tasks of a stage with partition groups: one per group, a split group one per piece. */
  static int taskCount(Stage stage) {
    int tasks = stage.getPartitionGroupStartsCount();
    for (SkewSplit s : stage.getSkewSplitsList()) {
      tasks += s.getMapTaskStartsCount() - 1;
    }
    return tasks;
  }

  /**
   * What task {@code task} of a stage with partition groups reads.
   *
   * @param partitions the stage's hash edges' partition count
   * @param mapTasks the map task count of each split input's producer, by consumer input index
   *     (only for {@code mapTo} of a last piece; may be empty, then the last piece's mapTo is
   *     {@link Integer#MAX_VALUE})
   */
  static Slice slice(Stage stage, int task, int partitions, Map<Integer, Integer> mapTasks) {
    Map<Integer, SkewSplit> splits = new HashMap<>();
    stage.getSkewSplitsList().forEach(s -> splits.put(s.getPartition(), s));
    int groups = stage.getPartitionGroupStartsCount();
    int t = 0;
    for (int g = 0; g < groups; g++) {
      int from = stage.getPartitionGroupStarts(g);
      int to = g + 1 < groups ? stage.getPartitionGroupStarts(g + 1) : partitions;
      SkewSplit split = to - from == 1 ? splits.get(from) : null;
      if (split == null) {
        if (t == task) {
          return new Slice(from, to, -1, 0, Integer.MAX_VALUE);
        }
        t++;
        continue;
      }
      int pieces = split.getMapTaskStartsCount();
      if (task < t + pieces) {
        int j = task - t;
        int mapTo = j + 1 < pieces ? split.getMapTaskStarts(j + 1)
            : mapTasks.getOrDefault(split.getConsumerInputIndex(), Integer.MAX_VALUE);
        return new Slice(from, to, split.getConsumerInputIndex(), split.getMapTaskStarts(j), mapTo);
      }
      t += pieces;
    }
    throw new IllegalArgumentException("stage " + stage.getStageId() + " has no task " + task);
  }

  /** {@link #slice(Stage, int, int, Map)} without map task counts. */
  static Slice slice(Stage stage, int task, int partitions) {
    return slice(stage, task, partitions, Map.of());
  }

  /**
   * The stage regrouped with its skewed partitions split, or empty when no partition is split (the
   * stage is not eligible, the settings turn splitting off, or no partition is skewed on a side
   * that may be split).
   *
   * @param stage the consumer stage, not yet started
   * @param inputs its input edges
   * @param output its output edge, or null for the root
   * @param hasScans whether the stage reads scan splits
   * @param winners every finished stage's winning results by partition (all producers' present)
   * @param targetBytes bytes a task should read at about (pieces of a split partition, coalesced
   *     groups of the others); at most 0 turns splitting off
   * @param skewFactor times the side's median a skewed partition is over; at most 0 turns splitting off
   * @param minBytes bytes a skewed partition is over on its side
   */
  static Optional<Stage> split(Stage stage, List<Edge> inputs, Edge output, boolean hasScans,
      Map<Integer, TaskResult[]> winners, long targetBytes, int skewFactor, long minBytes) {
    if (targetBytes <= 0 || skewFactor <= 0) {
      return Optional.empty();
    }
    int partitions = PartitionCoalescer.eligiblePartitions(stage, inputs, output, hasScans);
    if (partitions <= 1) {
      return Optional.empty();
    }
    Set<Integer> splittable = splittableInputs(stage.getFragment());
    List<SkewSplit> splits = new ArrayList<>();
    // The side with the most bytes in a partition is the one split there.
    long[][] sideBytes = new long[inputs.size()][];
    for (int i = 0; i < inputs.size(); i++) {
      Edge e = inputs.get(i);
      if (e.getPartitioning().getKindCase() == Partitioning.KindCase.HASH) {
        sideBytes[i] = PartitionCoalescer.partitionBytes(List.of(e), winners, partitions);
      }
    }
    for (int p = 0; p < partitions; p++) {
      int chosen = -1;
      for (int i = 0; i < inputs.size(); i++) {
        if (sideBytes[i] == null || !splittable.contains(inputs.get(i).getConsumerInputIndex())) {
          continue;
        }
        long median = Math.max(1, median(sideBytes[i]));
        long bytes = sideBytes[i][p];
        if (bytes > minBytes && bytes > skewFactor * median && (chosen < 0 || bytes > sideBytes[chosen][p])) {
          chosen = i;
        }
      }
      if (chosen < 0) {
        continue;
      }
      Edge e = inputs.get(chosen);
      int[] pieces = mapTaskStarts(mapTaskBytes(winners.get(e.getProducerStageId()), p), targetBytes);
      if (pieces.length > 1) {
        SkewSplit.Builder s = SkewSplit.newBuilder().setPartition(p).setConsumerInputIndex(e.getConsumerInputIndex());
        Arrays.stream(pieces).forEach(s::addMapTaskStarts);
        splits.add(s.build());
      }
    }
    if (splits.isEmpty()) {
      return Optional.empty();
    }
    TreeSet<Integer> starts = new TreeSet<>();
    Arrays.stream(PartitionCoalescer.group(PartitionCoalescer.partitionBytes(inputs, winners, partitions), targetBytes))
        .forEach(starts::add);
    for (SkewSplit s : splits) { // each split partition is a group of its own
      starts.add(s.getPartition());
      if (s.getPartition() + 1 < partitions) {
        starts.add(s.getPartition() + 1);
      }
    }
    Stage.Builder regrouped = stage.toBuilder().addAllPartitionGroupStarts(starts).addAllSkewSplits(splits);
    return Optional.of(regrouped.build());
  }

  /** Bytes of hash partition {@code p} in each map task's output, by map task. */
  static long[] mapTaskBytes(TaskResult[] producers, int p) {
    long[] bytes = new long[producers.length];
    for (int q = 0; q < producers.length; q++) {
      for (PartitionRange r : producers[q].getPartitionsList()) {
        if (r.getPartition() == p) {
          bytes[q] += r.getLength();
        }
      }
    }
    return bytes;
  }

  /**
   * Groups map tasks greedily, in order, into pieces of at most {@code targetBytes} (a single map
   * task larger than that is a piece of its own).
   *
   * @return the first map task of each piece, ascending from 0
   */
  static int[] mapTaskStarts(long[] bytes, long targetBytes) {
    return PartitionCoalescer.group(bytes, targetBytes);
  }

  /** The median of the sizes (the upper one of an even count). */
  static long median(long[] sizes) {
    long[] sorted = sizes.clone();
    Arrays.sort(sorted);
    return sorted.length == 0 ? 0 : sorted[sorted.length / 2];
  }

  /**
   * The consumer input indexes whose hash partitions may be split by map tasks: the shuffle read
   * under the stage's one hash join on a side that may be split for its join type, reached through
   * filters and projections only; above the join only filters, projections and partial
   * aggregations. Empty when the fragment has another shape.
   *
   * <p>The same inputs are those a task may read a part of while reading the join's other side
   * whole, which is also what an adaptive broadcast join needs of its probe side
   * ({@link AdaptiveBroadcastJoin}).
   */
  static Set<Integer> splittableInputs(Operator fragment) {
    Optional<HashJoin> found = rowwiseJoin(fragment);
    if (found.isEmpty()) {
      return Set.of();
    }
    HashJoin join = found.get();
    Set<Integer> sides = new HashSet<>();
    switch (join.getJoinType()) {
      case INNER -> {
        addRead(join.getLeft(), sides);
        addRead(join.getRight(), sides);
      }
      case LEFT, SEMI, ANTI -> addRead(join.getLeft(), sides);
      case RIGHT -> addRead(join.getRight(), sides);
      default -> { } // FULL: both sides' unmatched rows must be emitted by exactly one task
    }
    return sides;
  }

  /**
   * The hash join a fragment reaches from its top through filters, projections and partial
   * aggregations only (operators that need no other task's rows of a key), or empty.
   */
  static Optional<HashJoin> rowwiseJoin(Operator fragment) {
    Operator op = fragment;
    while (!op.hasHashJoin()) {
      switch (op.getOpCase()) {
        case FILTER -> op = op.getFilter().getInput();
        case PROJECT -> op = op.getProject().getInput();
        case AGGREGATE -> {
          if (op.getAggregate().getMode() != Aggregate.Mode.PARTIAL) {
            return Optional.empty(); // all rows of a group must meet in one task
          }
          op = op.getAggregate().getInput();
        }
        default -> {
          return Optional.empty();
        }
      }
    }
    return Optional.of(op.getHashJoin());
  }

  /** The input index of the shuffle read under {@code side} through filters and projections, or -1. */
  static int readUnder(Operator side) {
    Operator op = side;
    while (true) {
      switch (op.getOpCase()) {
        case FILTER -> op = op.getFilter().getInput();
        case PROJECT -> op = op.getProject().getInput();
        case SHUFFLE_READ -> {
          return op.getShuffleRead().getInputIndex();
        }
        default -> {
          return -1;
        }
      }
    }
  }

  private static void addRead(Operator side, Set<Integer> sides) {
    int read = readUnder(side);
    if (read >= 0) {
      sides.add(read);
    }
  }
}

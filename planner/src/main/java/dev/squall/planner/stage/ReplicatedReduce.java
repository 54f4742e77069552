package dev.squall.planner.stage;

import dev.squall.proto.v1.AggregateCall;
import dev.squall.proto.v1.DataType;
import dev.squall.proto.v1.Field;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Partitioning;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntToDoubleFunction;

/**
 * Replicated reductions: a one-task stage that only reduces rows it reads through edges of one
 * partition (single edges, or hash edges into one partition) and is broadcast to a join is
 * computed inside every task of the join's stage instead, from the same producers' outputs, its
 * edges becoming broadcast edges: the FINAL step of a scalar sub-query's global aggregate (TPC-H
 * Q11's total, Q22's average) or of a small grouped one (Q2's minimum cost per part). The answer
 * is the same: an edge's one partition and a broadcast edge both hand a task every row the
 * producer wrote, and the reduction is deterministic (only order-free aggregates, and no
 * floating-point column crosses it, whose sum could differ with the order its rows arrive in).
 * The job saves the stage, its shuffle object and the wait for it on the critical path; each task
 * of the join's stage repeats the reduction of rows bounded as replicated scans are
 * ({@code replicatedScanMaxBytes}).
 */
final class ReplicatedReduce {
  private ReplicatedReduce() {}

  /**
   * Whether {@code side} may be computed inside every task of the stage it is broadcast to.
   *
   * @param maxBytes the planner's replicatedScanMaxBytes (0: never)
   * @param producerBytes the estimated output bytes of a closed stage, by id
   */
  static boolean qualifies(StageDraft side, long maxBytes, IntToDoubleFunction producerBytes) {
    if (maxBytes <= 0 || side.isLeaf() || side.taskCount() != 1 || !side.probeFilters().isEmpty()
        || side.inputs().isEmpty()) {
      return false;
    }
    double bytes = 0;
    for (StageDraft.Input input : side.inputs()) {
      if (!(input instanceof StageDraft.EdgeInput edge) || !onePartition(edge.partitioning())) {
        return false;
      }
      bytes += producerBytes.applyAsDouble(edge.producerStageId());
    }
    return bytes <= maxBytes && onlyReductions(side.root());
  }

  /**
   * Adds {@code side}'s producers to {@code into} as broadcast edge inputs (appended to its inputs)
   * and returns {@code side}'s fragment reading them, for use as the join's input in {@code into}'s
   * fragment.
   */
  static Operator inline(StageDraft side, StageDraft into) {
    Map<Integer, Integer> indexes = new HashMap<>();
    for (int i = 0; i < side.inputs().size(); i++) {
      StageDraft.EdgeInput edge = (StageDraft.EdgeInput) side.inputs().get(i);
      indexes.put(i, into.addEdge(edge.producerStageId(), Partitionings.broadcast()));
    }
    return renumbered(side.root(), indexes);
  }

  /** A single edge, or a hash edge into one partition: either way one partition holds every row. */
  private static boolean onePartition(Partitioning partitioning) {
    return partitioning.getKindCase() == Partitioning.KindCase.SINGLE
        || (partitioning.getKindCase() == Partitioning.KindCase.HASH && partitioning.getHash().getPartitions() == 1);
  }

  private static boolean onlyReductions(Operator op) {
    return switch (op.getOpCase()) {
      case SHUFFLE_READ -> op.getOutputSchema().getFieldsList().stream().noneMatch(ReplicatedReduce::floating);
      case AGGREGATE -> op.getAggregate().getAggregatesList().stream().allMatch(ReplicatedReduce::orderFree)
          && onlyReductions(op.getAggregate().getInput());
      case FILTER -> onlyReductions(op.getFilter().getInput());
      case PROJECT -> onlyReductions(op.getProject().getInput());
      default -> false;
    };
  }

  /**
   * Aggregates whose result does not depend on the order of their input rows (a sketch's merge or
   * MAX_BY's choice between tied keys may).
   */
  private static boolean orderFree(AggregateCall call) {
    return switch (call.getKind()) {
      case SUM, COUNT, COUNT_STAR, MIN, MAX, AVG, COUNT_IF -> true;
      default -> false;
    };
  }

  private static boolean floating(Field field) {
    DataType.Kind kind = field.getType().getKind();
    return kind == DataType.Kind.DOUBLE || kind == DataType.Kind.REAL;
  }

  private static Operator renumbered(Operator op, Map<Integer, Integer> indexes) {
    Operator.Builder b = op.toBuilder();
    switch (op.getOpCase()) {
      case SHUFFLE_READ -> b.setShuffleRead(op.getShuffleRead().toBuilder()
          .setInputIndex(indexes.get(op.getShuffleRead().getInputIndex())));
      case AGGREGATE -> b.setAggregate(op.getAggregate().toBuilder().setInput(renumbered(op.getAggregate().getInput(), indexes)));
      case FILTER -> b.setFilter(op.getFilter().toBuilder().setInput(renumbered(op.getFilter().getInput(), indexes)));
      case PROJECT -> b.setProject(op.getProject().toBuilder().setInput(renumbered(op.getProject().getInput(), indexes)));
      default -> throw new IllegalStateException("not a replicable reduction: " + op.getOpCase());
    }
    return b.build();
  }
}

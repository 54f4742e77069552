package dev.squall.planner.stage;

import dev.squall.planner.catalog.ColumnRanges;
import dev.squall.proto.v1.HashJoin;
import dev.squall.proto.v1.NestedLoopJoin;
import dev.squall.proto.v1.Operator;
import java.util.HashMap;
import java.util.Map;

/**
 * Replicated scans: a small broadcast join side that only scans tables is computed inside every
 * task of the other side's stage, from all of its tables' splits, instead of in a stage of its
 * own whose output every task would read back from the shuffle. The answer is the same as the
 * broadcast's (every task sees the whole side); the job saves the side's stage, its shuffle object
 * and the wait for it on the critical path (TPC-H's region → nation → supplier chains are three
 * one-task stages each).
 *
 * <p>A side qualifies ({@link #qualifies}) when its draft reads only scans (no shuffle input), its
 * fragment has only scans, filters, projections and joins (each task's copy is then exactly the
 * side's rows; Squall has no non-deterministic function that could make copies differ), it has
 * no runtime filter of its own, and its tables' data files total at most the
 * planner's {@code replicatedScanMaxBytes}; the other side must be a leaf draft, whose own scans
 * decide its task count ({@code SplitPlanner} gives a replicated scan's splits to every task).
 * A side that would build a runtime filter is replicated only into a stage whose own tables are
 * within the same bound, or whose probe scan's data files are not clustered on the filtered
 * columns ({@link #unclustered}): elsewhere the filter's files and row groups skipped (at the
 * coordinator and in the tasks) can save far more than its build stage costs.
 */
final class ReplicatedScans {
  private ReplicatedScans() {}

  /**
   * Whether {@code side} may be scanned inside every task of {@code into}.
   *
   * @param maxBytes the planner's replicatedScanMaxBytes (0: never)
   */
  static boolean qualifies(StageDraft side, StageDraft into, long maxBytes) {
    if (maxBytes <= 0 || !into.isLeaf() || !side.isLeaf() || !side.probeFilters().isEmpty()) {
      return false;
    }
    for (StageDraft.Input input : side.inputs()) {
      if (!(input instanceof StageDraft.ScanInput)) {
        return false;
      }
    }
    return side.scanFileBytes() <= maxBytes && onlyScansFiltersProjectsAndJoins(side.root());
  }

  /**
   * Moves {@code side}'s scans into {@code into} as replicated scan inputs (appended to its inputs)
   * and returns {@code side}'s fragment with its scans renumbered and marked replicated, for use
   * as the join's input in {@code into}'s fragment.
   */
  static Operator inline(StageDraft side, StageDraft into) {
    Map<Integer, Integer> indexes = new HashMap<>();
    for (int i = 0; i < side.inputs().size(); i++) {
      StageDraft.ScanInput scan = (StageDraft.ScanInput) side.inputs().get(i);
      indexes.put(i, into.addScan(scan.table(), side.scanTable(i)));
    }
    into.addScanFileBytes(side.scanFileBytes());
    return renumbered(side.root(), indexes, Math.round(side.bytes()));
  }

  /**
   * Below this mean share of a column's range per data file ({@link ColumnRanges.Range#meanFileShare})
   * the files count as clustered on the column.
   */
  static final double CLUSTERED_FILE_SHARE = 0.5;

  /**
   * Whether the data files of scan input {@code scanInput} of {@code draft} hold values from all
   * over the range of every one of {@code columns} (scan output columns), so that a runtime
   * filter on them could skip few files or row groups by their bounds. False when a column's
   * range is unknown (not INT, BIGINT or DATE, or files without bounds).
   */
  static boolean unclustered(StageDraft draft, int scanInput, int[] columns) {
    dev.squall.planner.catalog.IcebergTable table = draft.scanTable(scanInput);
    Operator scan = dev.squall.proto.OperatorTree.scan(draft.root(), scanInput);
    if (table == null || scan == null) {
      return false;
    }
    for (int column : columns) {
      if (column < 0 || column >= scan.getScan().getProjectedFieldIdsCount()) {
        return false;
      }
      ColumnRanges.Range range = ColumnRanges.of(table.table()).range(scan.getScan().getProjectedFieldIds(column));
      if (range == null || range.meanFileShare() < CLUSTERED_FILE_SHARE) {
        return false;
      }
    }
    return true;
  }

  private static boolean onlyScansFiltersProjectsAndJoins(Operator op) {
    return switch (op.getOpCase()) {
      case SCAN -> true;
      case FILTER -> onlyScansFiltersProjectsAndJoins(op.getFilter().getInput());
      case PROJECT -> onlyScansFiltersProjectsAndJoins(op.getProject().getInput());
      case HASH_JOIN -> onlyScansFiltersProjectsAndJoins(op.getHashJoin().getLeft())
          && onlyScansFiltersProjectsAndJoins(op.getHashJoin().getRight());
      case NESTED_LOOP_JOIN -> onlyScansFiltersProjectsAndJoins(op.getNestedLoopJoin().getLeft())
          && onlyScansFiltersProjectsAndJoins(op.getNestedLoopJoin().getRight());
      default -> false;
    };
  }

  private static Operator renumbered(Operator op, Map<Integer, Integer> indexes, long sideBytes) {
    Operator.Builder b = op.toBuilder();
    switch (op.getOpCase()) {
      case SCAN -> b.setScan(op.getScan().toBuilder()
          .setInputIndex(indexes.get(op.getScan().getInputIndex()))
          .setReplicated(true)
          .setReplicatedEstimatedBytes(sideBytes));
      case FILTER -> b.setFilter(op.getFilter().toBuilder()
          .setInput(renumbered(op.getFilter().getInput(), indexes, sideBytes)));
      case PROJECT -> b.setProject(op.getProject().toBuilder()
          .setInput(renumbered(op.getProject().getInput(), indexes, sideBytes)));
      case HASH_JOIN -> {
        HashJoin j = op.getHashJoin();
        b.setHashJoin(j.toBuilder().setLeft(renumbered(j.getLeft(), indexes, sideBytes))
            .setRight(renumbered(j.getRight(), indexes, sideBytes)));
      }
      case NESTED_LOOP_JOIN -> {
        NestedLoopJoin j = op.getNestedLoopJoin();
        b.setNestedLoopJoin(j.toBuilder().setLeft(renumbered(j.getLeft(), indexes, sideBytes))
            .setRight(renumbered(j.getRight(), indexes, sideBytes)));
      }
      default -> throw new IllegalStateException("not a replicable operator: " + op.getOpCase());
    }
    return b.build();
  }
}

package dev.squall.coordinator.scheduler;

import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.TaskResult;

/**
 * Early stop of a scan stage that feeds a LIMIT without ORDER BY (after Spark's
 * {@code executeTake} with {@code spark.sql.limit.scaleUpFactor}): its fragment is a Limit of
 * offset + limit rows over filters and projections of a scan, and its one output edge is the single
 * edge into the task that applies the exact LIMIT. Any offset + limit rows of the stage's output
 * are an answer, so its tasks are started in waves, in task order: first {@link #INITIAL_WAVE},
 * then, while the winners' output rows are short of offset + limit, as many more as the rows so
 * far suggest (1.5 × the rows still wanted at the rows per task seen), at least one and at most
 * {@link #SCALE_UP} − 1 times the tasks started so far; once the rows suffice no further task is
 * started, and the stage's task list shrinks to the tasks that ran.
 *
 * <p>A scan without a filter needs none of this: the split planner plans only the splits the
 * manifests' record counts say hold offset + limit rows. Pipelined runs start consumers before
 * their producers finish, so they do not stop early (they run every task).
 */
final class LimitEarlyStop {
  /** Tasks of the first wave. */
  static final int INITIAL_WAVE = 1;
  /** A wave starts at most this factor − 1 times the tasks started before it. */
  static final int SCALE_UP = 4;

  private LimitEarlyStop() {}

  /**
   * The rows a scan stage must produce before it may stop starting tasks, or -1 when it may not
   * stop early: its fragment is a Limit with a limit over filters and projections of a scan, and
   * it feeds its consumer through a single edge.
   *
   * @param output the stage's output edge, or null for the root
   */
  static long rowsWanted(Operator fragment, Edge output) {
    if (output == null || output.getPartitioning().getKindCase() != Partitioning.KindCase.SINGLE
        || output.getCombineGroup() > 0 || !fragment.hasLimit() || fragment.getLimit().getLimit() < 0) {
      return -1;
    }
    Operator op = fragment.getLimit().getInput();
    while (op.hasProject() || op.hasFilter()) {
      op = op.hasProject() ? op.getProject().getInput() : op.getFilter().getInput();
    }
    return op.hasScan() ? fragment.getLimit().getOffset() + fragment.getLimit().getLimit() : -1;
  }

  /**
   * Where the next wave ends: tasks {@code [started, end)} start next.
   *
   * @param started tasks started so far (all finished)
   * @param rows their winners' output rows
   * @param wanted rows the stage must produce
   * @param tasks the stage's tasks
   * @return {@code started} when no task is to start (enough rows, or none left)
   */
  static int nextWaveEnd(int started, long rows, long wanted, int tasks) {
    if (rows >= wanted || started >= tasks) {
      return started;
    }
    if (started == 0) {
      return Math.min(tasks, INITIAL_WAVE);
    }
    long more;
    if (rows == 0) {
      more = (long) started * (SCALE_UP - 1);
    } else {
      more = (long) Math.ceil(1.5 * (wanted - rows) * started / rows);
      more = Math.max(1, Math.min(more, (long) started * (SCALE_UP - 1)));
    }
    return (int) Math.min(tasks, started + more);
  }

  /** Output rows of a stage's winners so far. */
  static long rowsOf(TaskResult[] winners) {
    long rows = 0;
    for (TaskResult w : winners) {
      if (w != null) {
        rows += w.getMetrics().getRowsWritten();
      }
    }
    return rows;
  }
}

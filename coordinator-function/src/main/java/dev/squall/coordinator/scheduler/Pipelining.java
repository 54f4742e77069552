package dev.squall.coordinator.scheduler;

import dev.squall.proto.v1.TaskResult;
import java.util.Locale;

/**
 * Whether and how a run may start consumer stages while their producers still run (pipelined, or
 * all-at-once, scheduling; after Ballista's all-at-once stage scheduling and Starling's
 * pipelining), so that a short query does not pay one invocation round per stage.
 *
 * <p>The rule ({@link #chosen}): a run pipelines when the mode is {@code pipelined}, or
 * {@code auto} and the graph has at most {@code maxTasks} tasks; and in either mode only when every
 * task of the graph fits in the slots the job may hold at once ({@code slotCapacity}: the least of
 * the job's {@code max_concurrent_tasks}, the account pool and the invoker's own cap), because a
 * consumer that waits for its producers holds a slot while it waits; and only when the run starts
 * fresh (no recorded winner: a resumed job runs stage by stage).
 *
 * @param mode the query's {@code scheduling} property
 * @param maxTasks largest graph (tasks of all stages) {@code auto} pipelines
 *     ({@code SQUALL_PIPELINE_MAX_TASKS})
 * @param slotCapacity task attempts the job can hold slots for at once
 * @param board where recorded winners are published for consumers started early; null: none, so
 *     nothing is pipelined
 */
public record Pipelining(Mode mode, int maxTasks, int slotCapacity, WinnerBoard board) {
  /** Default of {@code SQUALL_PIPELINE_MAX_TASKS}: 0, so auto runs stage by stage until pipelining pays (docs/benchmarks.md). */
  public static final int DEFAULT_MAX_TASKS = 0;

  /** Stage by stage, always. */
  public static final Pipelining STAGED = new Pipelining(Mode.STAGED, 0, 0, null);

  /** The query property {@code scheduling}. */
  public enum Mode {
    /** Pipelined when the graph is small ({@code maxTasks}) and fits the slots. */
    AUTO,
    /** Pipelined whenever the graph fits the slots. */
    PIPELINED,
    /** A stage starts when every stage it reads has finished. */
    STAGED;

    /**
     * @throws IllegalArgumentException for a value other than auto, pipelined or staged
     */
    public static Mode parse(String value) {
      try {
        return valueOf(value.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("'" + value + "' is not one of auto, pipelined, staged");
      }
    }
  }

  /** Publishes recorded winners to consumers that started before their producers finished. */
  public interface WinnerBoard {
    /** Called after the job store recorded {@code winner} as its task's winner. */
    void publish(TaskResult winner);

    /** The task's winner was discarded (its output was lost): consumers must not learn it any more. */
    void retract(int stageId, int partition);

    /** The job failed: tasks still running (consumers waiting for winners among them) should stop. */
    void stopTasks();
  }

  /** Whether a run of a graph of {@code totalTasks} tasks pipelines; {@code fresh}: no winner is recorded yet. */
  public boolean chosen(int totalTasks, boolean fresh) {
    if (board == null || !fresh || totalTasks > slotCapacity) {
      return false;
    }
    return switch (mode) {
      case PIPELINED -> true;
      case AUTO -> totalTasks <= maxTasks;
      case STAGED -> false;
    };
  }
}

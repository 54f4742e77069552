package dev.squall.coordinator.scheduler;

import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import java.time.Duration;

/**
 * What the scheduler asks of the invocation that runs a job: whether to go on, where attempt
 * numbers start, and where to record attempts and winners (the job store, so that another
 * invocation can resume the job). Called from the scheduler's thread, except
 * {@link #attemptStarted}, which is called from invoker threads.
 */
public interface JobControl {
  /** What the scheduler does next. */
  enum Directive {
    /** Keep going. */
    CONTINUE,
    /** The client cancelled the job: start nothing more, let running attempts end, fail as CANCELLED. */
    CANCEL,
    /** Hand the job over (time limit near, or the lease is lost): start nothing more, stop. */
    SUSPEND
  }

  /**
   * The first attempt number of this run: above every attempt recorded for the job, so that a
   * resumed job never reuses the attempt number, and so the shuffle object, of an attempt an
   * earlier invocation abandoned.
   */
  int attemptBase();

  /** Polled at least every 200 ms. */
  Directive check();

  /** How long a suspended run waits for running attempts before abandoning them. */
  Duration suspendGrace();

  /**
   * Time left before this invocation must hand the job over: a failing or cancelled run waits for
   * its running attempts at most this long, then suspends instead.
   */
  Duration timeLeft();

  /**
   * An attempt is about to be sent: records it.
   *
   * @return false if this attempt number was recorded before (by another invocation); it is then
   *     not sent
   */
  boolean attemptStarted(TaskSpec spec);

  /** An attempt ended, successfully or not. */
  void attemptFinished(TaskSpec spec, TaskResult result);

  /**
   * Records a successful attempt as its task's winner unless the task has one already.
   *
   * @return the task's winning result: {@code result}, or the attempt recorded first
   */
  TaskResult recordWinner(TaskResult result);

  /**
   * Failed attempts of a task recorded before this run (by earlier invocations), lost-output
   * failures aside: the task's retry budget is spent across invocations, not per invocation.
   */
  default int priorFailures(int stageId, int partition) {
    return 0;
  }

  /**
   * A winner's output was found missing by a consumer: forgets it, so that the task's next
   * successful attempt becomes its winner.
   */
  default void discardWinner(int stageId, int partition, int lostAttempt) {}

  /**
   * The concurrency slots an attempt of this job holds while it runs (job-wide and account-wide
   * caps); none beyond the invoker's own by default.
   */
  default TaskSlots slots() {
    return TaskSlots.UNLIMITED;
  }

  /**
   * The scheduler changed the plan at run time (a stage's tasks coalesced): stores it before any
   * task of the changed stage runs, so that every later invocation and the final step (summary,
   * EXPLAIN ANALYZE, result order) use the tasks that ran.
   */
  default void planChanged(JobPlan plan) {}

  /** Whether consumer stages may start while their producers run; stage by stage by default. */
  default Pipelining pipelining() {
    return Pipelining.STAGED;
  }

  /** A stage's count of tasks with a winner changed. */
  void progress(int stageId, int tasksDone, int tasksTotal);

  /** What the query asks of the task-size tiers (its properties); by the estimates by default. */
  default TaskTiers.Request tierRequest() {
    return TaskTiers.Request.AUTO;
  }

  /**
   * The largest tier (memory, MB) on which an earlier invocation's attempt of this task failed for
   * memory (INSUFFICIENT_RESOURCES), so that a resumed job goes on from the next larger one; 0 when none.
   */
  default int priorMemoryFailureTierMb(int stageId, int partition) {
    return 0;
  }
}

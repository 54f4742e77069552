package dev.squall.coordinator.job;

/**
 * Points in a job's run where tests inject coordinator faults (a crash, a stall); production
 * uses {@link #NONE}. A hook that throws an {@link Error} models the invocation dying there: the
 * driver neither records nor cleans up anything, and the lease lapses.
 */
public interface DriverHooks {
  DriverHooks NONE = new DriverHooks() {};

  /** The job's SQL is being planned (called on the planning thread, before the planner). */
  default void planning(String jobId) {}

  /** Every task of a stage has a winner, recorded in the store. */
  default void stageFinished(String jobId, int stageId) {}

  /** The job is in FINALIZING and its result or commit is about to be made. */
  default void finalizing(String jobId) {}

  /**
   * A write job's catalog commit is done (or was found done) and its end is about to be recorded
   * (again, if the previous try failed); SUCCEEDED is not recorded yet.
   */
  default void committed(String jobId) {}
}

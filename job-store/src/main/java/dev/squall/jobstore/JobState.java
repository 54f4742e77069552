package dev.squall.jobstore;

/**
 * The life of a job: {@code QUEUED → RUNNING → FINALIZING → SUCCEEDED}, or from any non-terminal
 * state to {@code FAILED} or {@code CANCELLED}. Terminal states never change again.
 */
public enum JobState {
  /** Accepted and stored; not yet planned. */
  QUEUED,
  /** Planned; stages are running. */
  RUNNING,
  /** Every stage finished; the coordinator is storing the result or committing to the catalog. */
  FINALIZING,
  SUCCEEDED,
  FAILED,
  CANCELLED;

  /** True for SUCCEEDED, FAILED and CANCELLED. */
  public boolean isTerminal() {
    return this == SUCCEEDED || this == FAILED || this == CANCELLED;
  }

  /** Whether a job may move from this state to {@code next}. */
  public boolean canMoveTo(JobState next) {
    if (isTerminal()) {
      return false;
    }
    return switch (next) {
      case QUEUED -> false;
      case RUNNING -> this == QUEUED;
      case FINALIZING -> this == RUNNING;
      case SUCCEEDED -> this == FINALIZING;
      case FAILED, CANCELLED -> true;
    };
  }
}

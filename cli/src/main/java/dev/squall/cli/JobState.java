package dev.squall.cli;

/**
 * A query job's state as {@code GET /v1/queries/{id}} reports it:
 * QUEUED → RUNNING → FINALIZING → SUCCEEDED | FAILED | CANCELLED.
 */
enum JobState {
  QUEUED, RUNNING, FINALIZING, SUCCEEDED, FAILED, CANCELLED;

  /** Whether the job has ended (no further transition happens). */
  boolean isTerminal() {
    return this == SUCCEEDED || this == FAILED || this == CANCELLED;
  }

  /**
   * @throws IllegalArgumentException naming the value when it is not a known state
   */
  static JobState parse(String text) {
    for (JobState s : values()) {
      if (s.name().equals(text)) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown job state \"" + text + "\"");
  }
}

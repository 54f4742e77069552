package dev.squall.coordinator.scheduler;

import dev.squall.coordinator.api.SquallException;
import dev.squall.proto.v1.TaskError;

/**
 * A job failed because one of its tasks failed for good (a non-retriable error, or its attempts
 * ran out). The message names the task (stage, partition, attempt) and carries the task's error.
 */
public final class JobFailedException extends SquallException {
  private final TaskError taskError;

  public JobFailedException(String jobId, int stageId, int partition, int attempt, TaskError error) {
    super(error.getCode(), String.format("job %s failed: task %d.%d (attempt %d) failed: %s",
        jobId, stageId, partition, attempt, error.getMessage()), 0, 0, null);
    this.taskError = error;
  }

  /** A job-level failure (cancelled, timed out) not tied to one task. */
  public JobFailedException(String jobId, TaskError error) {
    super(error.getCode(), String.format("job %s failed: %s", jobId, error.getMessage()), 0, 0, null);
    this.taskError = error;
  }

  /**
   * What the user reads: for a USER_ERROR (bad data, such as a failed cast or a division by zero)
   * the task's own message, as Trino answers it, since which task met the row is an internal
   * detail; for other codes the whole message, naming the task and attempt.
   */
  public String userMessage() {
    return taskError.getCode() == dev.squall.proto.v1.ErrorCode.USER_ERROR && !taskError.getMessage().isEmpty()
        ? taskError.getMessage() : getMessage();
  }

  /** The failing task's own error. */
  public TaskError taskError() {
    return taskError;
  }
}

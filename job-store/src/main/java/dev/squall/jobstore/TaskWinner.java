package dev.squall.jobstore;

import java.util.Objects;

/**
 * The winning (first recorded successful) attempt of one task; consumers read only its output.
 *
 * @param jobId the job
 * @param stageId the stage
 * @param partition the task's partition
 * @param attempt the winning attempt number
 * @param result opaque bytes: the attempt's serialized TaskResult (output locations, commit messages)
 */
public record TaskWinner(String jobId, int stageId, int partition, int attempt, byte[] result) {
  public TaskWinner {
    Objects.requireNonNull(jobId, "jobId");
    Objects.requireNonNull(result, "result");
  }
}

package dev.squall.jobstore;

import java.time.Instant;
import java.util.Objects;

/**
 * One attempt of one task (partition {@code partition} of stage {@code stageId}).
 *
 * @param jobId the job
 * @param stageId the stage
 * @param partition the task's partition within the stage
 * @param attempt the attempt number (unique per task)
 * @param leaseEpoch the lease epoch of the coordinator that started it
 * @param state running, succeeded or failed
 * @param startedAt when it was started
 * @param finishedAt when it ended, or null while running
 * @param detail opaque bytes the coordinator keeps with a finished attempt (metrics, error), or null
 */
public record TaskAttempt(String jobId, int stageId, int partition, int attempt, long leaseEpoch, AttemptState state,
    Instant startedAt, Instant finishedAt, byte[] detail) {
  public TaskAttempt {
    Objects.requireNonNull(jobId, "jobId");
    Objects.requireNonNull(state, "state");
  }
}

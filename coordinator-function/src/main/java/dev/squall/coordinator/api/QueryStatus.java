package dev.squall.coordinator.api;

import dev.squall.jobstore.JobError;
import dev.squall.jobstore.StageProgress;
import dev.squall.proto.v1.QuerySummary;
import java.time.Instant;
import java.util.List;

/**
 * A job as a client sees it.
 *
 * @param queryId the job id
 * @param state QUEUED, RUNNING, FINALIZING, SUCCEEDED, FAILED or CANCELLED
 * @param cancelRequested whether a cancel was asked for
 * @param createdAt when it was submitted
 * @param updatedAt when its state last changed
 * @param finishedAt when it ended, or null
 * @param stages tasks done and total per stage
 * @param error why it failed or was cancelled, or null
 * @param summary the summary of a job that succeeded, or null
 */
public record QueryStatus(String queryId, String state, boolean cancelRequested, Instant createdAt, Instant updatedAt,
    Instant finishedAt, List<StageProgress> stages, JobError error, QuerySummary summary) {}

package dev.squall.jobstore;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A job as stored.
 *
 * @param jobId the job id
 * @param sql the submitted SQL text
 * @param properties the submitted per-query settings
 * @param state the current state
 * @param version incremented by every write to the job; for readers that want to notice change
 * @param owner the coordinator invocation holding the lease, or null
 * @param leaseEpoch fencing token: incremented by every {@link JobStore#acquire acquisition}; a
 *     write under a lease succeeds only while the stored epoch still equals the lease's
 * @param leaseExpiresAt when the current lease lapses, or null when none is held
 * @param cancelRequested whether a client asked to cancel the job
 * @param createdAt when the job was created
 * @param updatedAt the time of the last write
 * @param finishedAt when the job reached a terminal state, or null
 * @param progress per stage, ordered by stage id; empty before planning
 * @param error why the job failed, or null
 * @param resultLocation where the result is (an opaque string the coordinator understands, such
 *     as an S3 URI), or null
 * @param summary the job summary (opaque bytes: a serialized QuerySummary), or null
 * @param expiresAt when the store may delete the job (set on reaching a terminal state), or null
 * @param caller the identity that submitted the job ({@link NewJob#caller}); empty when none
 */
public record JobRecord(
    String jobId,
    String sql,
    Map<String, String> properties,
    JobState state,
    long version,
    String owner,
    long leaseEpoch,
    Instant leaseExpiresAt,
    boolean cancelRequested,
    Instant createdAt,
    Instant updatedAt,
    Instant finishedAt,
    List<StageProgress> progress,
    JobError error,
    String resultLocation,
    byte[] summary,
    Instant expiresAt,
    String caller) {
  public JobRecord {
    Objects.requireNonNull(jobId, "jobId");
    Objects.requireNonNull(state, "state");
    properties = Map.copyOf(properties);
    progress = List.copyOf(progress);
    caller = caller == null ? "" : caller;
  }

  /** A job of no identified caller. */
  public JobRecord(String jobId, String sql, Map<String, String> properties, JobState state, long version,
      String owner, long leaseEpoch, Instant leaseExpiresAt, boolean cancelRequested, Instant createdAt,
      Instant updatedAt, Instant finishedAt, List<StageProgress> progress, JobError error, String resultLocation,
      byte[] summary, Instant expiresAt) {
    this(jobId, sql, properties, state, version, owner, leaseEpoch, leaseExpiresAt, cancelRequested, createdAt,
        updatedAt, finishedAt, progress, error, resultLocation, summary, expiresAt, "");
  }

  /** True when a lease is held and has not lapsed at {@code now}. */
  public boolean hasLiveLease(Instant now) {
    return owner != null && leaseExpiresAt != null && leaseExpiresAt.isAfter(now);
  }
}

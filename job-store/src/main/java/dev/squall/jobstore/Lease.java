package dev.squall.jobstore;

import java.time.Instant;
import java.util.Objects;

/**
 * The right of one coordinator invocation to advance one job, until {@code expiresAt}.
 *
 * @param jobId the job
 * @param owner the holder's identity (e.g. the Lambda request id)
 * @param epoch the fencing token the store granted; writes under this lease carry it
 * @param expiresAt when the lease lapses unless renewed
 */
public record Lease(String jobId, String owner, long epoch, Instant expiresAt) {
  public Lease {
    Objects.requireNonNull(jobId, "jobId");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(expiresAt, "expiresAt");
  }
}

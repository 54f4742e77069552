package dev.squall.jobstore;

import java.util.Map;
import java.util.Objects;

/**
 * A job as submitted: what any coordinator invocation needs to plan and run it.
 *
 * @param jobId the job (query) id, unique
 * @param sql the SQL text (at most 256 KiB)
 * @param properties per-query settings from the request
 * @param caller the identity of the caller that submitted the job, as the API's authorizer reported
 *     it (an IAM principal ARN, a JWT issuer and subject); empty when the deployment authenticates
 *     nobody. Only this caller may read or cancel the job.
 */
public record NewJob(String jobId, String sql, Map<String, String> properties, String caller) {
  public NewJob {
    Objects.requireNonNull(jobId, "jobId");
    Objects.requireNonNull(sql, "sql");
    properties = Map.copyOf(properties);
    caller = caller == null ? "" : caller;
  }

  /** A job of no identified caller. */
  public NewJob(String jobId, String sql, Map<String, String> properties) {
    this(jobId, sql, properties, "");
  }
}

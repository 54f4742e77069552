package dev.squall.jobstore;

import java.util.Map;
import java.util.Objects;

/**
 * A job as submitted: what any coordinator invocation needs to plan and run it.
 *
 * @param jobId the job (query) id, unique
 * @param sql the SQL text (at most 256 KiB)
 * @param properties per-query settings from the request
 */
public record NewJob(String jobId, String sql, Map<String, String> properties) {
  public NewJob {
    Objects.requireNonNull(jobId, "jobId");
    Objects.requireNonNull(sql, "sql");
    properties = Map.copyOf(properties);
  }
}

package dev.squall.coordinator.api;

import java.util.Map;

/**
 * Runs one SQL statement to completion. Implementations plan, schedule and finalise the job.
 */
public interface QueryService {
  /**
   * Runs {@code sql} as job {@code queryId}.
   *
   * @param properties per-query settings from the request (e.g. target bytes per task)
   * @return the answer: an Arrow IPC stream (or result URLs) and a summary
   * @throws SquallException for any failure to report to the client
   */
  QueryAnswer execute(String queryId, String sql, Map<String, String> properties);
}

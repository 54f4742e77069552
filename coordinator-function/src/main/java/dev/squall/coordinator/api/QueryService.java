package dev.squall.coordinator.api;

import java.util.Map;

/**
 * Squall's query operations, as the HTTP API offers them. A query is a job: stored first, then run
 * by this invocation (synchronous requests) or by an asynchronous one. Every operation acts for a
 * {@link Caller}: a job belongs to the caller that submitted it, and any other caller is told it
 * does not exist ({@link QueryNotFoundException}), so that query ids reveal nothing across callers.
 */
public interface QueryService {
  /**
   * Submits {@code sql} as job {@code queryId}.
   *
   * @param properties per-query settings from the request (e.g. target bytes per task)
   * @param async true to answer at once with the job's status; false to run the job here and answer
   *     with its result, unless it has not finished within the coordinator's synchronous wait
   * @return the answer, or the status of a job still running
   * @throws SquallException for a query that failed (SQL errors with line and column)
   */
  Submission submit(Caller caller, String queryId, String sql, Map<String, String> properties, boolean async);

  /**
   * The job's state, per-stage progress, error and summary.
   *
   * @throws QueryNotFoundException for an unknown id or a job of another caller
   */
  QueryStatus status(Caller caller, String queryId);

  /**
   * A finished job's answer.
   *
   * @throws QueryNotFoundException for an unknown id or a job of another caller
   * @throws QueryNotFinishedException while the job runs
   * @throws SquallException the job's own error if it failed or was cancelled
   */
  QueryAnswer result(Caller caller, String queryId);

  /**
   * Asks for the job to be cancelled: no new task starts, running tasks stop at their next batch,
   * the job's shuffle data is deleted and it ends CANCELLED.
   *
   * @return the status after the request was recorded
   * @throws QueryNotFoundException for an unknown id or a job of another caller
   * @throws QueryNotFinishedException never; a finished job is returned as is (the caller decides)
   */
  QueryStatus cancel(Caller caller, String queryId);
}

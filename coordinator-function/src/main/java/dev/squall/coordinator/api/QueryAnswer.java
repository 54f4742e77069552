package dev.squall.coordinator.api;

import dev.squall.proto.v1.QuerySummary;
import java.util.List;

/**
 * The answer to a query.
 *
 * @param queryId the job id
 * @param arrowIpc the result as one Arrow IPC stream, or empty when {@code resultUrls} is used
 * @param resultUrls presigned URLs of Arrow IPC streams holding a result over the inline cap
 * @param summary stages, tasks, attempts, rows, bytes and wall time of the job
 */
public record QueryAnswer(String queryId, byte[] arrowIpc, List<String> resultUrls, QuerySummary summary) {}

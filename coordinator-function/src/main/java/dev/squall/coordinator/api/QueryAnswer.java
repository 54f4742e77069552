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
 * @param spill moves an inline result to S3 and returns its URLs, for an encoding of the answer
 *     (such as JSON) that turned out too large to return inline
 */
public record QueryAnswer(String queryId, byte[] arrowIpc, List<String> resultUrls, QuerySummary summary, ResultSpill spill) {

  /** Stores an Arrow IPC result outside the response. */
  @FunctionalInterface
  public interface ResultSpill {
    /** Stores the stream and returns presigned URLs to it. */
    List<String> toUrls(byte[] arrowIpc);
  }

  /** This answer with its result moved to the given URLs. */
  public QueryAnswer withUrls(List<String> urls) {
    return new QueryAnswer(queryId, new byte[0], urls, summary, spill);
  }
}

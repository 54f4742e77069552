package dev.squall.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;

/**
 * The {@code 202 Accepted} answer of {@code POST /v1/queries}: {@code {"queryId", "state",
 * "statusUrl", "resultUrl"}}, the URLs being paths relative to the endpoint. A missing URL falls
 * back to the documented {@code /v1/queries/<id>} and {@code /v1/queries/<id>/result}.
 */
record Submission(String queryId, JobState state, String statusUrl, String resultUrl) {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** @throws IOException naming the problem when the body is not such an object */
  static Submission parse(byte[] body) throws IOException {
    JsonNode tree;
    try {
      tree = JSON.readTree(body);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IOException("the 202 answer is not valid JSON: " + e.getOriginalMessage(), e);
    }
    if (tree == null || !tree.isObject() || !tree.path("queryId").isTextual() || tree.path("queryId").asText().isEmpty()) {
      throw new IOException("the 202 answer lacks the string field \"queryId\"");
    }
    String id = tree.get("queryId").asText();
    JobState state;
    try {
      state = tree.path("state").isTextual() ? JobState.parse(tree.get("state").asText()) : JobState.QUEUED;
    } catch (IllegalArgumentException e) {
      throw new IOException("the 202 answer for query " + id + ": " + e.getMessage(), e);
    }
    return new Submission(id, state, tree.path("statusUrl").asText(QueryClient.statusPath(id)),
        tree.path("resultUrl").asText(QueryClient.resultPath(id)));
  }
}

package dev.squall.coordinator.job;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The coordinator's own invocation payloads, beside API Gateway events:
 * {@code {"squallAction": "resume", "jobId": "<id>"}} (carry on with a job) and
 * {@code {"squallAction": "sweep"}} (resume every job whose coordinator died; sent by a schedule).
 */
public final class CoordinatorActions {
  public static final String FIELD = "squallAction";
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private CoordinatorActions() {}

  /** A parsed action. */
  public record Action(String name, String jobId) {}

  public static byte[] resume(String jobId) {
    ObjectNode node = MAPPER.createObjectNode().put(FIELD, "resume").put("jobId", jobId);
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }

  public static byte[] sweep() {
    return MAPPER.createObjectNode().put(FIELD, "sweep").toString().getBytes(StandardCharsets.UTF_8);
  }

  /** The action in a payload, or null when the payload is something else (an API Gateway event). */
  public static Action parse(byte[] payload) {
    if (payload.length == 0 || payload[0] != '{' || !new String(payload, 0, Math.min(payload.length, 64),
        StandardCharsets.UTF_8).contains(FIELD)) {
      return null;
    }
    try {
      JsonNode node = MAPPER.readTree(payload);
      if (node == null || !node.has(FIELD)) {
        return null;
      }
      return new Action(node.get(FIELD).asText(), node.path("jobId").asText(null));
    } catch (IOException e) {
      return null;
    }
  }
}

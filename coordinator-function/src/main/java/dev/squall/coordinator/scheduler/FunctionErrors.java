package dev.squall.coordinator.scheduler;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Reads a Lambda function-error payload ({@code {"errorType", "errorMessage", "stackTrace"}}) down
 * to one line, {@code errorType: errorMessage}: the stack trace stays in the function's logs and
 * out of answers to users.
 */
final class FunctionErrors {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final int MAX_CHARS = 2000;

  private FunctionErrors() {}

  static String summary(byte[] payload) {
    String text = new String(payload, StandardCharsets.UTF_8);
    try {
      JsonNode node = MAPPER.readTree(payload);
      if (node != null && node.has("errorMessage")) {
        text = node.path("errorType").asText("Error") + ": " + node.path("errorMessage").asText();
      }
    } catch (IOException e) {
      // not JSON: keep the raw text
    }
    return text.length() > MAX_CHARS ? text.substring(0, MAX_CHARS) + "..." : text;
  }
}

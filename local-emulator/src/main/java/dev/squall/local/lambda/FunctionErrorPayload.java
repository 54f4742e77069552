package dev.squall.local.lambda;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

/**
 * The JSON documents AWS Lambda returns for failed invocations. Shapes follow the AWS Java runtime:
 * {@code {"errorMessage":..., "errorType":..., "stackTrace":["cls.method(File.java:N)", ...],
 * "cause":{...}}}; a timeout is {@code {"errorMessage":"<time> <requestId> Task timed out after
 * N.NN seconds", "errorType":"Sandbox.Timedout"}}.
 */
final class FunctionErrorPayload {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_CAUSE_DEPTH = 8;

  private FunctionErrorPayload() {}

  /** The error document for an exception thrown by a handler. */
  static byte[] forException(Throwable error) {
    return toBytes(describe(error, 0));
  }

  /** The error document for an invocation stopped at its timeout. */
  static byte[] forTimeout(String requestId, Duration timeout) {
    ObjectNode node = JSON.createObjectNode();
    node.put("errorMessage", String.format(Locale.ROOT, "%s %s Task timed out after %.2f seconds",
        Instant.now(), requestId, timeout.toMillis() / 1000.0));
    node.put("errorType", "Sandbox.Timedout");
    return toBytes(node);
  }

  /** The error document for a response above the 6 MB limit. */
  static byte[] forResponseTooLarge(long sizeBytes, long limitBytes) {
    ObjectNode node = JSON.createObjectNode();
    node.put("errorMessage", "Response payload size (" + sizeBytes + " bytes) exceeded maximum allowed payload size ("
        + limitBytes + " bytes).");
    node.put("errorType", "Function.ResponseSizeTooLarge");
    return toBytes(node);
  }

  /** "errorType: errorMessage" of an error document, for log lines (no stack trace). */
  static String summary(byte[] errorPayload) {
    try {
      JsonNode node = JSON.readTree(errorPayload);
      return node.path("errorType").asText("?") + ": " + node.path("errorMessage").asText("");
    } catch (java.io.IOException | RuntimeException e) {
      return new String(errorPayload, java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  private static ObjectNode describe(Throwable error, int depth) {
    ObjectNode node = JSON.createObjectNode();
    node.put("errorMessage", error.getMessage() != null ? error.getMessage() : error.getClass().getName());
    node.put("errorType", error.getClass().getName());
    ArrayNode trace = node.putArray("stackTrace");
    for (StackTraceElement frame : error.getStackTrace()) {
      trace.add(frame.toString());
    }
    Throwable cause = error.getCause();
    if (cause != null && cause != error && depth < MAX_CAUSE_DEPTH) {
      node.set("cause", describe(cause, depth + 1));
    }
    return node;
  }

  private static byte[] toBytes(ObjectNode node) {
    try {
      return JSON.writeValueAsBytes(node);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}

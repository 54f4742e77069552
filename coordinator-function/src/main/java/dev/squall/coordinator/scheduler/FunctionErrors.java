package dev.squall.coordinator.scheduler;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * Reads a Lambda function-error payload ({@code {"errorType", "errorMessage", "stackTrace"}}) down
 * to one line: {@link #summary} ({@code errorType: errorMessage}) for the coordinator's log, and
 * {@link #forUsers} (the message alone, without Java class names) for error bodies and job records.
 * The stack trace stays in the function's logs.
 */
final class FunctionErrors {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final int MAX_CHARS = 2000;

  /** An exception's class name leading a message, {@code java.lang.IllegalStateException: }. */
  private static final Pattern LEADING_CLASS = Pattern.compile(
      "^\\s*(?:[a-zA-Z_$][\\w$]*\\.)*[A-Z][\\w$]*(?:Exception|Error|Throwable)\\s*:?\\s*");
  /** A fully qualified class name anywhere, {@code dev.squall.task.Foo} or {@code java.lang.Foo$Bar}. */
  private static final Pattern QUALIFIED_CLASS = Pattern.compile("\\b(?:[a-z_$][\\w$]*\\.){2,}[A-Z][\\w$]*\\b");

  private FunctionErrors() {}

  /**
   * The failure as users may read it: the function's message without the exception's class name
   * (nor any other fully qualified class name), or "the function crashed" when nothing else is left.
   */
  static String forUsers(byte[] payload) {
    String text = new String(payload, StandardCharsets.UTF_8);
    try {
      JsonNode node = MAPPER.readTree(payload);
      if (node != null && node.has("errorMessage")) {
        text = node.path("errorMessage").asText();
      }
    } catch (IOException e) {
      // not JSON: keep the raw text
    }
    String previous;
    do {
      previous = text;
      text = LEADING_CLASS.matcher(text).replaceFirst("");
    } while (!text.equals(previous));
    text = QUALIFIED_CLASS.matcher(text).replaceAll("<class>").trim();
    if (text.isEmpty()) {
      text = "the function crashed";
    }
    return text.length() > MAX_CHARS ? text.substring(0, MAX_CHARS) + "..." : text;
  }

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

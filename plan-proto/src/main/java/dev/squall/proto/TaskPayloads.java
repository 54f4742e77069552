package dev.squall.proto;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Lambda payloads between coordinator and task function. Lambda payloads must be JSON, so a
 * {@link TaskSpec} travels as {@code {"taskSpec":"<base64 of the protobuf bytes>"}} and a
 * {@link TaskResult} as {@code {"taskResult":"<base64>"}}: compact, and exact for every field.
 */
public final class TaskPayloads {
  private static final Pattern SPEC = Pattern.compile("^\\s*\\{\\s*\"taskSpec\"\\s*:\\s*\"([A-Za-z0-9+/=]*)\"\\s*}\\s*$");
  private static final Pattern RESULT = Pattern.compile("^\\s*\\{\\s*\"taskResult\"\\s*:\\s*\"([A-Za-z0-9+/=]*)\"\\s*}\\s*$");

  private TaskPayloads() {}

  /** The invocation payload for a task spec. */
  public static byte[] encodeSpec(TaskSpec spec) {
    return wrap("taskSpec", spec.toByteArray());
  }

  /** The function's answer for a task result. */
  public static byte[] encodeResult(TaskResult result) {
    return wrap("taskResult", result.toByteArray());
  }

  /**
   * Reads an invocation payload.
   *
   * @throws IllegalArgumentException when the payload is not {@code {"taskSpec":"<base64>"}} or
   *     does not hold a valid TaskSpec
   */
  public static TaskSpec decodeSpec(byte[] payload) {
    try {
      return ProtoNesting.parse(TaskSpec.parser(), unwrap(SPEC, "taskSpec", payload));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("task payload does not hold a valid squall.v1.TaskSpec: " + e.getMessage(), e);
    }
  }

  /**
   * Reads a function's answer.
   *
   * @throws IllegalArgumentException when the answer is not {@code {"taskResult":"<base64>"}}
   */
  public static TaskResult decodeResult(byte[] payload) {
    try {
      return TaskResult.parseFrom(unwrap(RESULT, "taskResult", payload));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("task answer does not hold a valid squall.v1.TaskResult: " + e.getMessage(), e);
    }
  }

  private static byte[] wrap(String field, byte[] bytes) {
    return ("{\"" + field + "\":\"" + Base64.getEncoder().encodeToString(bytes) + "\"}").getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] unwrap(Pattern pattern, String field, byte[] payload) {
    Matcher m = pattern.matcher(new String(payload, StandardCharsets.UTF_8));
    if (!m.matches()) {
      String head = new String(payload, 0, Math.min(payload.length, 80), StandardCharsets.UTF_8);
      throw new IllegalArgumentException("expected a JSON payload {\"" + field + "\": \"<base64>\"}, got: " + head);
    }
    return Base64.getDecoder().decode(m.group(1));
  }
}

package dev.squall.proto;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Lambda payloads between coordinator and task function. Lambda payloads must be JSON, so a
 * {@link TaskSpec} travels as {@code {"taskSpec":"<base64 of the protobuf bytes>"}} and a
 * {@link TaskResult} as {@code {"taskResult":"<base64>"}}: compact, and exact for every field. A
 * spec or result too large for Lambda's 6 MB payload limit is stored in S3 and the payload names
 * it: {@code {"taskSpecRef":{"bucket","key"}}} or {@code {"taskResultRef":{"bucket","key"}}}.
 */
public final class TaskPayloads {
  private static final Pattern SPEC = Pattern.compile("^\\s*\\{\\s*\"taskSpec\"\\s*:\\s*\"([A-Za-z0-9+/=]*)\"\\s*}\\s*$");
  private static final Pattern RESULT = Pattern.compile("^\\s*\\{\\s*\"taskResult\"\\s*:\\s*\"([A-Za-z0-9+/=]*)\"\\s*}\\s*$");

  private static final Pattern SPEC_REF = refPattern("taskSpecRef");
  private static final Pattern RESULT_REF = refPattern("taskResultRef");

  /**
   * The largest payload sent inline. Lambda's synchronous Invoke takes and answers at most 6 MB
   * (6,291,456 bytes); a spec or an answer above this travels as an S3 object and the payload names
   * it ({@link #encodeSpecRef}, {@link #encodeResultRef}).
   */
  public static final int MAX_INLINE_PAYLOAD_BYTES = 6_000_000;

  /**
   * An S3 object holding a TaskSpec or TaskResult too large for a payload.
   *
   * @param bucket the bucket (the job's shuffle bucket)
   * @param key the object key (under the job's prefix, deleted with the job's data)
   */
  public record ObjectRef(String bucket, String key) {
    public ObjectRef {
      if (bucket.contains("\"") || key.contains("\"") || bucket.contains("\\") || key.contains("\\")) {
        throw new IllegalArgumentException("bucket and key must not contain quotes or backslashes");
      }
    }
  }

  private TaskPayloads() {}

  private static Pattern refPattern(String field) {
    return Pattern.compile("^\\s*\\{\\s*\"" + field + "\"\\s*:\\s*\\{\\s*\"bucket\"\\s*:\\s*\"([^\"]+)\"\\s*,"
        + "\\s*\"key\"\\s*:\\s*\"([^\"]+)\"\\s*}\\s*}\\s*$");
  }

  /** The payload for a spec stored in S3: {@code {"taskSpecRef":{"bucket":"…","key":"…"}}}. */
  public static byte[] encodeSpecRef(ObjectRef ref) {
    return wrapRef("taskSpecRef", ref);
  }

  /** The answer for a result stored in S3: {@code {"taskResultRef":{"bucket":"…","key":"…"}}}. */
  public static byte[] encodeResultRef(ObjectRef ref) {
    return wrapRef("taskResultRef", ref);
  }

  /** The stored spec a payload names, if it is a {@code taskSpecRef}. */
  public static Optional<ObjectRef> specRef(byte[] payload) {
    return ref(SPEC_REF, payload);
  }

  /** The stored result an answer names, if it is a {@code taskResultRef}. */
  public static Optional<ObjectRef> resultRef(byte[] payload) {
    return ref(RESULT_REF, payload);
  }

  /** A spec's protobuf bytes (as stored for a {@code taskSpecRef}), with Squall's nesting limit. */
  public static TaskSpec parseSpec(byte[] protobuf) {
    try {
      return ProtoNesting.parse(TaskSpec.parser(), protobuf);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("stored task spec is not a valid squall.v1.TaskSpec: " + e.getMessage(), e);
    }
  }

  /** A result's protobuf bytes (as stored for a {@code taskResultRef}). */
  public static TaskResult parseResult(byte[] protobuf) {
    try {
      return ProtoNesting.parse(TaskResult.parser(), protobuf);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("stored task result is not a valid squall.v1.TaskResult: " + e.getMessage(), e);
    }
  }

  private static byte[] wrapRef(String field, ObjectRef ref) {
    return ("{\"" + field + "\":{\"bucket\":\"" + ref.bucket() + "\",\"key\":\"" + ref.key() + "\"}}")
        .getBytes(StandardCharsets.UTF_8);
  }

  private static Optional<ObjectRef> ref(Pattern pattern, byte[] payload) {
    if (payload.length > 4096) {
      return Optional.empty(); // a reference is short; a long payload is inline
    }
    Matcher m = pattern.matcher(new String(payload, StandardCharsets.UTF_8));
    return m.matches() ? Optional.of(new ObjectRef(m.group(1), m.group(2))) : Optional.empty();
  }

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
      return ProtoNesting.parse(TaskResult.parser(), unwrap(RESULT, "taskResult", payload));
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

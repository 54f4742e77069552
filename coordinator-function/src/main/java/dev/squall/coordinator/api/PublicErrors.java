package dev.squall.coordinator.api;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What of an error a user may read. Error bodies and job records carry the error's code, a message
 * with internal detail removed (object URIs, endpoints, addresses, ARNs, account ids, access keys,
 * bucket names) and a reference id; the full detail goes to the coordinator's log under the same
 * reference, where an operator finds it.
 */
public final class PublicErrors {
  private static final Logger LOG = LoggerFactory.getLogger(PublicErrors.class);
  private static final SecureRandom RANDOM = new SecureRandom();

  /** Internal detail and what it becomes, applied in order. */
  private static final List<Replacement> PATTERNS = List.of(
      new Replacement(Pattern.compile("\\bs3[an]?://[^\\s'\"),;]+"), "<object>"),
      new Replacement(Pattern.compile("\\b(?:https?|jdbc:[a-z]+):(?://)?[^\\s'\"),;]+"), "<endpoint>"),
      new Replacement(Pattern.compile("\\barn:aws[a-z-]*:[^\\s'\"),;]+"), "<arn>"),
      new Replacement(Pattern.compile("\\b(?:\\d{1,3}\\.){3}\\d{1,3}(?::\\d+)?\\b"), "<address>"),
      new Replacement(Pattern.compile("\\blocalhost:\\d+\\b"), "<address>"),
      new Replacement(Pattern.compile("\\b(?:AKIA|ASIA)[0-9A-Z]{16}\\b"), "<access key>"),
      new Replacement(Pattern.compile("\\b\\d{12}\\b"), "<account>"));

  private record Replacement(Pattern pattern, String with) {}

  private static final Pattern REFERENCED = Pattern.compile("\\(reference [0-9a-f]{12}\\)$");

  private final List<String> bucketNames;

  /**
   * @param bucketNames names that must never appear (the deployment's buckets), each at least 3
   *     characters
   */
  public PublicErrors(Collection<String> bucketNames) {
    this.bucketNames = new ArrayList<>(bucketNames);
  }

  /** A new reference id: 12 hex digits. */
  public static String newReference() {
    byte[] b = new byte[6];
    RANDOM.nextBytes(b);
    return HexFormat.of().formatHex(b);
  }

  /** {@code detail} without internal detail. */
  public String scrub(String detail) {
    if (detail == null) {
      return "";
    }
    String s = detail;
    for (Replacement r : PATTERNS) {
      s = r.pattern().matcher(s).replaceAll(r.with());
    }
    for (String bucket : bucketNames) {
      if (bucket != null && bucket.length() >= 3) {
        s = s.replace(bucket, "<bucket>");
      }
    }
    return s;
  }

  /**
   * The message a user reads for a failure: the scrubbed detail and a reference id; the full
   * detail is logged under that reference.
   *
   * @param subject what failed, for the log (e.g. "job 1234")
   */
  public String publicMessage(String subject, String code, String detail) {
    if (detail != null && REFERENCED.matcher(detail).find()) {
      return scrub(detail); // logged under its reference already
    }
    return referenced(subject, code, detail, scrub(detail));
  }

  /**
   * A message that holds no internal detail (a refused query property, say) with a new reference id,
   * under which it is logged: errors answered before a job exists read as a failed job's do.
   *
   * @param subject what failed, for the log (e.g. "query 1234")
   */
  public static String withReference(String subject, String code, String message) {
    return referenced(subject, code, message, message);
  }

  private static String referenced(String subject, String code, String logged, String shown) {
    String reference = newReference();
    LOG.warn("{} failed with {} (reference {}): {}", subject, code, reference, logged);
    return shown + " (reference " + reference + ")";
  }

  /**
   * The message for an unexpected exception: no exception text at all (it may hold anything), only
   * a reference under which the exception and its stack trace are logged.
   */
  public static String internal(String subject, Throwable e) {
    String reference = newReference();
    LOG.error("{} failed with an internal error (reference {})", subject, reference, e);
    return "internal error (reference " + reference + ")";
  }
}

package dev.squall.local.lambda;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Invoke requests per caller and function, the caller being the access key id the request was
 * signed with (SigV4 {@code Authorization: AWS4-HMAC-SHA256 Credential=<key id>/...}), as CloudTrail
 * names the identity behind a call; {@code "anonymous"} for an unsigned request. Every request that
 * names a function counts, throttled ones included.
 */
public final class InvokeCounts {
  /** The caller of an unsigned request. */
  public static final String ANONYMOUS = "anonymous";
  private static final Pattern CREDENTIAL = Pattern.compile("Credential=([^/,\\s]+)/");

  private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

  /** The caller named by an {@code Authorization} header (null when absent). */
  static String callerOf(String authorization) {
    if (authorization == null) {
      return ANONYMOUS;
    }
    Matcher m = CREDENTIAL.matcher(authorization);
    return m.find() ? m.group(1) : ANONYMOUS;
  }

  void record(String caller, String function) {
    counts.computeIfAbsent(caller + " " + function, k -> new AtomicLong()).incrementAndGet();
  }

  /** Invoke requests {@code caller} sent to {@code function} so far. */
  public long of(String caller, String function) {
    AtomicLong n = counts.get(caller + " " + function);
    return n == null ? 0 : n.get();
  }

  /** Every count so far, keyed {@code "<caller> <function>"}, sorted. */
  public Map<String, Long> snapshot() {
    Map<String, Long> out = new TreeMap<>();
    counts.forEach((k, v) -> out.put(k, v.get()));
    return out;
  }

  /** Forgets every count. */
  public void clear() {
    counts.clear();
  }
}

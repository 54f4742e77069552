package dev.squall.local.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Faults to inject into the local stack, as {@code squall local --faults FILE} and
 * {@code PUT /_local/faults} take them (docs/faults.md):
 *
 * <pre>{@code
 * {"rules": [
 *   {"target": "task", "stage": 0, "partition": 1, "attempt": 0, "action": "crash", "times": 1},
 *   {"target": "s3", "operation": "GetObject", "key": "jobs/.+/s0/m0/.+", "action": "deleteObject"},
 *   {"target": "commit", "key": "tpch\\.t", "action": "loseAnswer"},
 *   {"target": "coordinator", "operation": "FINALIZING", "action": "kill"}
 * ]}
 * }</pre>
 *
 * <p>Rules are tried in order; the first that matches a point and has times left acts. Thread-safe.
 */
public final class FaultPlan {
  private static final Logger LOG = LoggerFactory.getLogger(FaultPlan.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> FIELDS = Set.of("target", "stage", "partition", "attempt", "operation", "key",
      "action", "seconds", "times");

  private final List<FaultRule> rules;
  private final AtomicInteger fired = new AtomicInteger();

  private FaultPlan(List<FaultRule> rules) {
    this.rules = List.copyOf(rules);
  }

  /** How many faults this plan has injected so far. */
  public int fired() {
    return fired.get();
  }

  /** A plan without rules. */
  public static FaultPlan none() {
    return new FaultPlan(List.of());
  }

  /** The number of rules. */
  public int size() {
    return rules.size();
  }

  /**
   * Reads a plan.
   *
   * @throws IllegalArgumentException naming the rule and field that is wrong
   */
  public static FaultPlan parse(byte[] json) {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("fault plan is not valid JSON: " + e.getMessage());
    }
    if (root == null || !root.isObject() || !root.path("rules").isArray()) {
      throw new IllegalArgumentException("a fault plan is an object {\"rules\": [...]}");
    }
    List<FaultRule> rules = new ArrayList<>();
    int i = 0;
    for (JsonNode r : root.get("rules")) {
      rules.add(rule(i++, r));
    }
    return new FaultPlan(rules);
  }

  private static FaultRule rule(int index, JsonNode r) {
    String where = "fault rule " + index;
    if (!r.isObject()) {
      throw new IllegalArgumentException(where + " is not an object");
    }
    for (Iterator<String> names = r.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!FIELDS.contains(name)) {
        throw new IllegalArgumentException(where + ": unknown field '" + name + "' (known: " + FIELDS + ")");
      }
    }
    FaultTarget target = enumOf(FaultTarget.class, where, "target", r.path("target").asText(null));
    FaultAction action = enumOf(FaultAction.class, where, "action", r.path("action").asText(null));
    if (!allowed(target).contains(action)) {
      throw new IllegalArgumentException(where + ": action " + action + " does not apply to target " + target
          + " (allowed: " + allowed(target) + ")");
    }
    Pattern key = null;
    if (r.hasNonNull("key")) {
      try {
        key = Pattern.compile(r.get("key").asText());
      } catch (PatternSyntaxException e) {
        throw new IllegalArgumentException(where + ": key is not a regular expression: " + e.getDescription());
      }
    }
    if (r.hasNonNull("seconds") && !r.get("seconds").isNumber()) {
      throw new IllegalArgumentException(where + ": \"seconds\" must be a number, got " + r.get("seconds"));
    }
    double seconds = r.path("seconds").asDouble(0);
    if ((action == FaultAction.HANG || action == FaultAction.DELAY) && seconds <= 0) {
      throw new IllegalArgumentException(where + ": " + action + " needs \"seconds\" > 0");
    }
    Integer times = intOrNull(where, r, "times");
    return new FaultRule(target, intOrNull(where, r, "stage"), intOrNull(where, r, "partition"),
        intOrNull(where, r, "attempt"), r.hasNonNull("operation") ? r.get("operation").asText() : null, key, action,
        Duration.ofMillis((long) (seconds * 1000)), times == null ? 1 : times);
  }

  private static Set<FaultAction> allowed(FaultTarget target) {
    return switch (target) {
      case TASK -> EnumSet.of(FaultAction.CRASH, FaultAction.HANG, FaultAction.DELAY, FaultAction.THROTTLE,
          FaultAction.LOSE_ANSWER);
      case S3 -> EnumSet.of(FaultAction.CRASH, FaultAction.HANG, FaultAction.DELAY, FaultAction.THROTTLE,
          FaultAction.SLOW_DOWN, FaultAction.DELETE_OBJECT);
      case COMMIT -> EnumSet.of(FaultAction.CRASH, FaultAction.DELAY, FaultAction.HANG, FaultAction.LOSE_ANSWER);
      case COORDINATOR -> EnumSet.of(FaultAction.KILL, FaultAction.HANG, FaultAction.DELAY);
    };
  }

  /**
   * @throws IllegalArgumentException naming the rule and field when the value is not a whole number
   *     (Jackson would read {@code "one"} as 0, matching stage 0)
   */
  private static Integer intOrNull(String where, JsonNode r, String field) {
    if (!r.hasNonNull(field)) {
      return null;
    }
    JsonNode v = r.get(field);
    if (!v.isIntegralNumber() || !v.canConvertToInt()) {
      throw new IllegalArgumentException(where + ": \"" + field + "\" must be a whole number, got " + v);
    }
    return v.asInt();
  }

  private static <E extends Enum<E>> E enumOf(Class<E> type, String where, String field, String value) {
    if (value == null) {
      throw new IllegalArgumentException(where + ": \"" + field + "\" is required");
    }
    String normal = value.replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT);
    try {
      return Enum.valueOf(type, normal);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": unknown " + field + " '" + value + "'");
    }
  }

  /**
   * The rule that acts at {@code point}, if any, among those whose action is one of {@code actions};
   * its times are counted down.
   */
  public Optional<FaultRule> fire(FaultPoint point, Set<FaultAction> actions) {
    for (FaultRule rule : rules) {
      if (actions.contains(rule.action()) && rule.matches(point) && rule.take()) {
        fired.incrementAndGet();
        LOG.warn("fault injected at {}: {}", point, rule);
        return Optional.of(rule);
      }
    }
    return Optional.empty();
  }
}

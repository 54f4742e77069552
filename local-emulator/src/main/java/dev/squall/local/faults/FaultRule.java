package dev.squall.local.faults;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * One rule of a {@link FaultPlan}: a target, what it must match (null fields match anything) and
 * an action, taken at most {@code times} times (negative: every time).
 */
public final class FaultRule {
  private final FaultTarget target;
  private final Integer stage;
  private final Integer partition;
  private final Integer attempt;
  private final String operation;
  private final Pattern key;
  private final FaultAction action;
  private final Duration duration;
  private final AtomicInteger remaining;
  private final boolean unlimited;

  FaultRule(FaultTarget target, Integer stage, Integer partition, Integer attempt, String operation, Pattern key,
      FaultAction action, Duration duration, int times) {
    this.target = target;
    this.stage = stage;
    this.partition = partition;
    this.attempt = attempt;
    this.operation = operation;
    this.key = key;
    this.action = action;
    this.duration = duration;
    this.remaining = new AtomicInteger(Math.max(times, 0));
    this.unlimited = times < 0;
  }

  public FaultAction action() {
    return action;
  }

  /** How long HANG and DELAY wait. */
  public Duration duration() {
    return duration;
  }

  boolean matches(FaultPoint p) {
    return target == p.target()
        && (stage == null || stage.equals(p.stage()))
        && (partition == null || partition.equals(p.partition()))
        && (attempt == null || attempt.equals(p.attempt()))
        && (operation == null || operation.equalsIgnoreCase(p.operation()))
        && (key == null || (p.key() != null && key.matcher(p.key()).matches()));
  }

  /** Takes one of the rule's times; false when none is left. */
  boolean take() {
    if (unlimited) {
      return true;
    }
    return remaining.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0;
  }

  @Override
  public String toString() {
    return target + (stage != null ? " stage " + stage : "") + (partition != null ? " partition " + partition : "")
        + (attempt != null ? " attempt " + attempt : "") + (operation != null ? " " + operation : "")
        + (key != null ? " key " + key : "") + " → " + action;
  }
}

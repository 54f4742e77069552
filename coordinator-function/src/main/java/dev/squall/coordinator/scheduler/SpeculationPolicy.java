package dev.squall.coordinator.scheduler;

import java.time.Duration;
import java.util.List;

/**
 * When the scheduler starts a speculative copy of a straggling task (as Spark's
 * {@code spark.speculation.quantile} and {@code .multiplier}): once at least {@code quantile} of a
 * stage's tasks have finished, a task still running {@code multiplier} times the stage's median task
 * time, and at least {@code minimum}, gets one more attempt. The first attempt to succeed wins; the
 * other's output is ignored (and deleted with the job's data, or as a losing writer's files).
 *
 * @param quantile the share of a stage's tasks that must have finished, in (0, 1]; above 1: never
 * @param multiplier how many median task times a straggler has run
 * @param minimum the least time a task runs before it may be copied
 */
public record SpeculationPolicy(double quantile, double multiplier, Duration minimum) {
  /** 75% of the stage done, 2 × its median, at least 10 s. */
  public static SpeculationPolicy defaults() {
    return new SpeculationPolicy(0.75, 2.0, Duration.ofSeconds(10));
  }

  /** No speculative attempts. */
  public static SpeculationPolicy off() {
    return new SpeculationPolicy(2.0, 1.0, Duration.ZERO);
  }

  /**
   * Whether an attempt running for {@code runningNanos} is a straggler of a stage of {@code tasks}
   * tasks whose finished attempts took {@code finishedNanos}.
   */
  boolean isStraggler(long runningNanos, int tasks, List<Long> finishedNanos) {
    if (quantile > 1 || tasks < 2 || finishedNanos.size() < Math.max(1, Math.ceil(tasks * quantile))) {
      return false;
    }
    List<Long> sorted = finishedNanos.stream().sorted().toList();
    long median = sorted.get(sorted.size() / 2);
    return runningNanos > Math.max(minimum.toNanos(), (long) (median * multiplier));
  }
}

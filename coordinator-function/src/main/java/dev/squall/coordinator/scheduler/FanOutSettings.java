package dev.squall.coordinator.scheduler;

import java.util.Map;

/**
 * When the coordinator invokes a stage's tasks through invoker invocations ({@link FanOutTaskInvoker}):
 * a launch of more than {@code threshold} tasks of one stage is split into ⌈√N⌉ shares, each invoked
 * through one invoker, at most {@code maxInvokers} shares.
 *
 * <p>From the environment: {@code SQUALL_FANOUT_THRESHOLD} (default 256 tasks; 0 turns two-level
 * invocation off) and {@code SQUALL_FANOUT_MAX_INVOKERS} (default 128, 1-1,000).
 *
 * @param threshold tasks of a stage launched together above which invokers are used; 0: never
 * @param maxInvokers most shares (invoker invocations) one launch of a stage is split into
 */
public record FanOutSettings(int threshold, int maxInvokers) {
  /** Default threshold: below it one coordinator's own invocations start a stage quickly enough. */
  public static final int DEFAULT_THRESHOLD = 256;
  public static final int DEFAULT_MAX_INVOKERS = 128;

  public FanOutSettings {
    if (threshold < 0 || maxInvokers < 1) {
      throw new IllegalArgumentException("Invalid fan-out settings: threshold " + threshold + ", max invokers "
          + maxInvokers);
    }
  }

  /** Whether two-level invocation is on. */
  public boolean enabled() {
    return threshold > 0;
  }

  /** Invokers for {@code tasks} tasks: ⌈√tasks⌉, at most {@link #maxInvokers}. */
  int invokersFor(int tasks) {
    return Math.max(1, Math.min(maxInvokers, (int) Math.ceil(Math.sqrt(tasks))));
  }

  /**
   * Reads the settings above.
   *
   * @throws IllegalArgumentException naming the variable and its range for a bad value
   */
  public static FanOutSettings fromEnv(Map<String, String> env) {
    return new FanOutSettings(setting(env, "SQUALL_FANOUT_THRESHOLD", DEFAULT_THRESHOLD, 0, 100_000),
        setting(env, "SQUALL_FANOUT_MAX_INVOKERS", DEFAULT_MAX_INVOKERS, 1, 1000));
  }

  private static int setting(Map<String, String> env, String name, int defaultValue, int min, int max) {
    String raw = env.get(name);
    if (raw == null || raw.isBlank()) {
      return defaultValue;
    }
    try {
      int v = Integer.parseInt(raw.trim());
      if (v >= min && v <= max) {
        return v;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw new IllegalArgumentException(name + " must be a whole number from " + min + " to " + max + ", not '" + raw + "'");
  }
}

package dev.squall.coordinator.job;

import java.time.Duration;

/**
 * How a job's task attempts rank when the account's concurrency slots are scarce: by the query's
 * {@code priority} (1 lowest to 9 highest, 5 unless given) raised one level for every
 * {@code aging} its attempt has waited, so that a busy account still lets a low-priority job
 * through in time (aging, as operating-system schedulers use against starvation).
 *
 * @param priority 1 to 9
 * @param aging how long an attempt waits before it ranks one level higher; zero for never
 */
public record SlotPriority(int priority, Duration aging) {
  /** The lowest priority. */
  public static final int MIN = 1;
  /** The highest priority: an attempt at this level never defers to another. */
  public static final int MAX = 9;
  /** The priority of a query that gives none. */
  public static final int DEFAULT = 5;
  /** The aging unless configured: a level a minute. */
  public static final Duration DEFAULT_AGING = Duration.ofSeconds(60);

  public SlotPriority {
    if (priority < MIN || priority > MAX || aging.isNegative()) {
      throw new IllegalArgumentException("Invalid slot priority " + priority + ", aging " + aging);
    }
  }

  /** The default priority with the default aging. */
  public static SlotPriority defaults() {
    return new SlotPriority(DEFAULT, DEFAULT_AGING);
  }

  /** The level of an attempt that has waited {@code waited} for a slot: at most {@link #MAX}. */
  public int after(Duration waited) {
    if (aging.isZero() || priority == MAX) {
      return priority;
    }
    long levels = waited.toMillis() / Math.max(1, aging.toMillis());
    return (int) Math.min(MAX, priority + levels);
  }
}

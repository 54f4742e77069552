package dev.squall.cli;

import java.time.Duration;

/**
 * How often a job's status is polled: first after {@link #FIRST}, each next wait 1.5 times the
 * last, at most {@link #MAX}, so short queries answer quickly and long ones cost one request a
 * second.
 */
final class PollSchedule {
  static final Duration FIRST = Duration.ofMillis(250);
  static final Duration MAX = Duration.ofSeconds(1);

  private PollSchedule() {}

  /** The wait after {@code previous}. */
  static Duration next(Duration previous) {
    Duration grown = Duration.ofMillis(previous.toMillis() * 3 / 2);
    return grown.compareTo(MAX) > 0 ? MAX : grown;
  }
}

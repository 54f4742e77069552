package dev.squall.coordinator.scheduler;

import dev.squall.proto.v1.ErrorCode;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * When and how soon a failed task attempt runs again: up to {@code maxAttempts} attempts in all,
 * after an exponential backoff with full jitter (AWS Architecture Blog, "Exponential Backoff And
 * Jitter", 2015): a random delay in [0, min(cap, base * 2^attempt)).
 *
 * <p>Only failures that another attempt can cure are retried: EXTERNAL (throttling, a crashed or
 * timed-out function, S3 errors), TIMEOUT (an attempt stopped at its deadline), INTERNAL_ERROR and
 * unknown codes. USER_ERROR (e.g. division by
 * zero), INSUFFICIENT_RESOURCES, INCOMPATIBLE_PLAN and CANCELLED fail the job at once.
 */
public record RetryPolicy(int maxAttempts, Duration baseDelay, Duration maxDelay) {
  public RetryPolicy {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("Invalid max attempts: " + maxAttempts);
    }
  }

  /** Four attempts, 100 ms base, 5 s cap. */
  public static RetryPolicy defaults() {
    return new RetryPolicy(4, Duration.ofMillis(100), Duration.ofSeconds(5));
  }

  /** Whether a failure with this code may be cured by another attempt. */
  public boolean isRetriable(ErrorCode code) {
    return switch (code) {
      case USER_ERROR, INSUFFICIENT_RESOURCES, INCOMPATIBLE_PLAN, CANCELLED -> false;
      default -> true;
    };
  }

  /** Whether attempt number {@code failedAttempt} (0-based) may be followed by another. */
  public boolean hasAttemptAfter(int failedAttempt) {
    return failedAttempt + 1 < maxAttempts;
  }

  /** The delay before attempt {@code nextAttempt} (1-based for retries). */
  public Duration delayBefore(int nextAttempt) {
    long cap = Math.min(maxDelay.toMillis(), baseDelay.toMillis() << Math.min(nextAttempt, 20));
    return Duration.ofMillis(cap <= 0 ? 0 : ThreadLocalRandom.current().nextLong(cap));
  }
}

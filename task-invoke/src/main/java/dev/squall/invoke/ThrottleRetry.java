package dev.squall.invoke;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import software.amazon.awssdk.services.lambda.model.InvokeResponse;
import software.amazon.awssdk.services.lambda.model.TooManyRequestsException;

/**
 * Sends an Invoke again when Lambda throttled it (429 {@code TooManyRequestsException}: the account
 * concurrency or the function's scaling rate was exceeded). A throttled invocation never ran, so
 * sending the identical payload again cannot run an attempt twice, unlike a retry after a timeout.
 * At most {@code maxRetries} re-sends, each after exponential backoff with full jitter (AWS
 * Architecture Blog, "Exponential Backoff And Jitter", 2015): a random delay in
 * {@code [0, min(maxDelay, baseDelay × 2^k))}; after them the 429 is thrown and the scheduler
 * counts a failed attempt. Every re-send is counted ({@link #throttled()}).
 *
 * @param maxRetries re-sends after a 429, 0 or more
 * @param baseDelay delay cap of the first re-send
 * @param maxDelay largest delay cap
 */
public record ThrottleRetry(int maxRetries, Duration baseDelay, Duration maxDelay, AtomicLong throttledCounter) {
  public ThrottleRetry {
    if (maxRetries < 0 || baseDelay.isNegative() || maxDelay.isNegative()) {
      throw new IllegalArgumentException("Invalid throttle retry: " + maxRetries + ", " + baseDelay + ", " + maxDelay);
    }
  }

  /**
   * Ten re-sends, 100 ms base, 4 s cap: about 12 s of backoff expected in all, past the 10 s in
   * which Lambda's scaling rate lets a function add its next 1,000 environments.
   */
  public static ThrottleRetry defaults() {
    return new ThrottleRetry(10, Duration.ofMillis(100), Duration.ofSeconds(4), new AtomicLong());
  }

  /** Throttled Invoke requests so far (each was sent again, or failed its attempt when the re-sends were spent). */
  public long throttled() {
    return throttledCounter.get();
  }

  /**
   * Runs {@code invoke}, sending it again after a 429 while re-sends are left.
   *
   * @throws TooManyRequestsException when the last re-send was throttled too
   */
  public InvokeResponse invoke(Supplier<InvokeResponse> invoke) {
    for (int retry = 0; ; retry++) {
      try {
        return invoke.get();
      } catch (TooManyRequestsException e) {
        throttledCounter.incrementAndGet();
        if (retry >= maxRetries) {
          throw e;
        }
        long cap = Math.min(maxDelay.toMillis(), baseDelay.toMillis() << Math.min(retry, 20));
        try {
          Thread.sleep(cap <= 0 ? 0 : ThreadLocalRandom.current().nextLong(cap));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }
}

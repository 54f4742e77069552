package dev.squall.shuffle.s3;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Retries of shuffle S3 requests: exponential backoff with full jitter (the "Full Jitter" scheme
 * of the AWS Architecture Blog post "Exponential Backoff And Jitter", 2015): before retry
 * {@code k} (1-based) the caller sleeps a uniformly random time in
 * {@code [0, min(maxDelay, baseDelay × 2^(k-1))]}.
 *
 * <p>Retried: S3 answers with status 5xx (500 InternalError, 503 SlowDown / ServiceUnavailable,
 * …) or 429, and client-side I/O failures (connection reset, timeout). Everything else (404,
 * 403, 400, 416) fails at once. This runs on top of whatever retries the S3 client itself is
 * configured with.
 *
 * @param maxAttempts attempts in total, at least 1
 * @param baseDelay delay cap of the first retry
 * @param maxDelay largest delay cap
 */
public record RetryPolicy(int maxAttempts, Duration baseDelay, Duration maxDelay) {
  /** 10 attempts, 50 ms base, 5 s cap. */
  public static final RetryPolicy DEFAULT = new RetryPolicy(10, Duration.ofMillis(50), Duration.ofSeconds(5));

  public RetryPolicy {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("Invalid retry attempts: " + maxAttempts);
    }
    if (baseDelay.isNegative() || maxDelay.isNegative()) {
      throw new IllegalArgumentException("Invalid retry delays: " + baseDelay + ", " + maxDelay);
    }
  }

  /** Whether a failed S3 request may succeed when sent again. */
  public static boolean isRetryable(Throwable failure) {
    if (failure instanceof S3Exception) {
      int status = ((S3Exception) failure).statusCode();
      return status >= 500 || status == 429;
    }
    return failure instanceof SdkClientException;
  }

  /**
   * Runs {@code request}, retrying retryable failures.
   *
   * @param beforeEachAttempt run before every attempt (request counting)
   * @throws RuntimeException the last failure once attempts are spent, or the first
   *     non-retryable one
   */
  public <T> T run(Supplier<T> request, Runnable beforeEachAttempt) {
    for (int attempt = 1; ; attempt++) {
      beforeEachAttempt.run();
      try {
        return request.get();
      } catch (RuntimeException e) {
        if (attempt >= maxAttempts || !isRetryable(e)) {
          throw e;
        }
        sleepBeforeRetry(attempt);
      }
    }
  }

  private void sleepBeforeRetry(int retry) {
    long capMillis = Math.min(maxDelay.toMillis(), baseDelay.toMillis() << Math.min(retry - 1, 30));
    long delay = capMillis <= 0 ? 0 : ThreadLocalRandom.current().nextLong(capMillis + 1);
    try {
      Thread.sleep(delay);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while backing off before an S3 retry", e);
    }
  }
}

package dev.squall.local.s3;

import java.time.Duration;
import java.util.Objects;

/**
 * How closely the embedded S3 models S3 at scale; off by default.
 *
 * <ul>
 *   <li>{@code latency}: added to every request before it is answered (S3's first-byte latency is
 *       tens of milliseconds);
 *   <li>{@code writesPerSecond} and {@code readsPerSecond}: request rates per prefix beyond which
 *       S3 answers 503 {@code SlowDown}. S3 supports at least 3,500 PUT/COPY/POST/DELETE and 5,500
 *       GET/HEAD requests per second per partitioned prefix (Amazon S3 User Guide, "Best practices
 *       design patterns: optimizing Amazon S3 performance"). A prefix here is the bucket and the key
 *       up to its last {@code /}; each prefix has a token bucket per class holding one second of
 *       its rate. 0 means no limit.
 * </ul>
 *
 * @param latency delay of every request, zero or more
 * @param writesPerSecond PUT, POST and DELETE requests per second per prefix (0: unlimited)
 * @param readsPerSecond GET and HEAD requests per second per prefix (0: unlimited)
 */
public record S3RequestModel(Duration latency, int writesPerSecond, int readsPerSecond) {
  /** No latency, no rate limit. */
  public static final S3RequestModel OFF = new S3RequestModel(Duration.ZERO, 0, 0);

  public S3RequestModel {
    Objects.requireNonNull(latency, "latency");
    if (latency.isNegative() || writesPerSecond < 0 || readsPerSecond < 0) {
      throw new IllegalArgumentException("S3 latency and request rates must be zero or more: " + latency + ", "
          + writesPerSecond + ", " + readsPerSecond);
    }
  }

  /** S3's published per-prefix rates (3,500 writes and 5,500 reads per second) with the given latency. */
  public static S3RequestModel s3Like(Duration latency) {
    return new S3RequestModel(latency, 3500, 5500);
  }

  /** Whether the model changes anything. */
  public boolean isOff() {
    return latency.isZero() && writesPerSecond == 0 && readsPerSecond == 0;
  }
}

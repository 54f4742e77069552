package dev.squall.engine.io;

import java.time.Duration;

/**
 * When a ranged read is sent a second time ({@link HedgedRequests}): once it has waited longer
 * than the {@code percentile}-th percentile of recent reads' latencies, kept within
 * {@code [minDelay, maxDelay]}; at most a {@code budget} share of reads is sent twice.
 *
 * @param percentile latency percentile of recent reads, above 0 and below 100
 * @param minDelay shortest wait before a second request (so that fast, uniform reads are never doubled)
 * @param maxDelay longest wait before a second request; also the wait while fewer than
 *     {@link HedgedRequests#MIN_SAMPLES} latencies are known
 * @param budget largest share of reads sent twice, 0 to 1 (plus one, so that a first slow read
 *     can be hedged); 0 turns hedging off
 */
public record HedgeSettings(double percentile, Duration minDelay, Duration maxDelay, double budget) {
  /** The 95th percentile, within 50 ms to 2 s, at most 5% of reads sent twice. */
  public static final HedgeSettings DEFAULT = new HedgeSettings(95, Duration.ofMillis(50), Duration.ofSeconds(2), 0.05);
  /** Never sends a read twice. */
  public static final HedgeSettings OFF = new HedgeSettings(95, Duration.ofMillis(50), Duration.ofSeconds(2), 0);

  public HedgeSettings {
    if (!(percentile > 0 && percentile < 100)) {
      throw new IllegalArgumentException("Invalid hedge percentile: " + percentile + " (must be above 0, below 100)");
    }
    if (minDelay.isNegative() || maxDelay.compareTo(minDelay) < 0) {
      throw new IllegalArgumentException("Invalid hedge delays: " + minDelay + " to " + maxDelay);
    }
    if (!(budget >= 0 && budget <= 1)) {
      throw new IllegalArgumentException("Invalid hedge budget: " + budget + " (must be 0 to 1)");
    }
  }

  /** Whether reads are ever sent twice. */
  public boolean enabled() {
    return budget > 0;
  }
}

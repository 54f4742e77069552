package dev.squall.shuffle;

import dev.squall.engine.io.HedgeSettings;
import dev.squall.shuffle.s3.RetryPolicy;

/**
 * Parallelism and memory of a {@link ShuffleReader}.
 *
 * @param maxInFlight ranged GETs running at once (fetch threads)
 * @param chunkBytes largest single ranged GET; longer segments are fetched in several chunks
 * @param maxBufferedBytes bytes fetched ahead of the decoder (in flight or waiting), at least
 *     one chunk; with one decoded batch this bounds the reader's memory
 * @param retry backoff for GETs answered with 5xx / SlowDown or failing on I/O
 * @param hedging when a GET that has not answered is sent a second time (each try of the retry
 *     policy is hedged on its own)
 */
public record ShuffleReaderOptions(int maxInFlight, int chunkBytes, long maxBufferedBytes, RetryPolicy retry,
    HedgeSettings hedging) {
  /** 8 GETs in flight, 8 MiB chunks, 64 MiB read ahead, default retries and hedging. */
  public static final ShuffleReaderOptions DEFAULT =
      new ShuffleReaderOptions(8, 8 << 20, 64L << 20, RetryPolicy.DEFAULT, HedgeSettings.DEFAULT);

  public ShuffleReaderOptions {
    if (maxInFlight < 1) {
      throw new IllegalArgumentException("Invalid shuffle GETs in flight: " + maxInFlight);
    }
    if (chunkBytes < 1) {
      throw new IllegalArgumentException("Invalid shuffle chunk size: " + chunkBytes);
    }
    if (maxBufferedBytes < chunkBytes) {
      throw new IllegalArgumentException("Shuffle read-ahead " + maxBufferedBytes + " is below one chunk of " + chunkBytes);
    }
  }

  public ShuffleReaderOptions withMaxInFlight(int n) {
    return new ShuffleReaderOptions(n, chunkBytes, maxBufferedBytes, retry, hedging);
  }

  public ShuffleReaderOptions withChunkBytes(int bytes) {
    return new ShuffleReaderOptions(maxInFlight, bytes, Math.max(bytes, maxBufferedBytes), retry, hedging);
  }

  public ShuffleReaderOptions withRetry(RetryPolicy policy) {
    return new ShuffleReaderOptions(maxInFlight, chunkBytes, maxBufferedBytes, policy, hedging);
  }

  public ShuffleReaderOptions withHedging(HedgeSettings settings) {
    return new ShuffleReaderOptions(maxInFlight, chunkBytes, maxBufferedBytes, retry, settings);
  }
}

package dev.squall.shuffle;

import dev.squall.shuffle.s3.RetryPolicy;

/**
 * Parallelism and memory of a {@link ShuffleReader}.
 *
 * @param maxInFlight ranged GETs running at once (fetch threads)
 * @param chunkBytes largest single ranged GET; longer segments are fetched in several chunks
 * @param maxBufferedBytes bytes fetched ahead of the decoder (in flight or waiting), at least
 *     one chunk; with one decoded batch this bounds the reader's memory
 * @param retry backoff for GETs answered with 5xx / SlowDown or failing on I/O
 */
public record ShuffleReaderOptions(int maxInFlight, int chunkBytes, long maxBufferedBytes, RetryPolicy retry) {
  /** 8 GETs in flight, 8 MiB chunks, 64 MiB read ahead, default retries. */
  public static final ShuffleReaderOptions DEFAULT =
      new ShuffleReaderOptions(8, 8 << 20, 64L << 20, RetryPolicy.DEFAULT);

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
    return new ShuffleReaderOptions(n, chunkBytes, maxBufferedBytes, retry);
  }

  public ShuffleReaderOptions withChunkBytes(int bytes) {
    return new ShuffleReaderOptions(maxInFlight, bytes, Math.max(bytes, maxBufferedBytes), retry);
  }

  public ShuffleReaderOptions withRetry(RetryPolicy policy) {
    return new ShuffleReaderOptions(maxInFlight, chunkBytes, maxBufferedBytes, policy);
  }
}

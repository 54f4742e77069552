package dev.squall.shuffle.s3;

import dev.squall.engine.io.HedgedRequests;
import dev.squall.proto.v1.ShuffleSegment;
import dev.squall.shuffle.MissingShuffleOutputException;
import dev.squall.shuffle.ShuffleMetrics;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Fetches the bytes of a list of shuffle segments with ranged GETs, in order, ahead of the
 * consumer: at most {@code maxInFlight} GETs at once and at most {@code maxBufferedBytes}
 * fetched but not yet taken. Segments longer than {@code chunkBytes} are split into several
 * GETs. Each GET is hedged ({@link HedgedRequests}: sent again when it is slow, the first answer
 * wins). Failures surface when the consumer takes the failed chunk: a 404 as
 * {@link MissingShuffleOutputException}, anything else after {@link RetryPolicy} gave up.
 */
public final class RangeFetcher implements AutoCloseable {
  private static final AtomicInteger THREADS = new AtomicInteger();

  private record Chunk(int segment, long offset, int length) {}

  private final S3Client s3;
  private final List<ShuffleSegment> segments;
  private final int maxInFlight;
  private final long maxBufferedBytes;
  private final RetryPolicy retry;
  private final HedgedRequests hedging;
  private final ShuffleMetrics metrics;
  private final List<Chunk> chunks = new ArrayList<>();
  private final ArrayDeque<Future<byte[]>> window = new ArrayDeque<>();
  private final ArrayDeque<Chunk> windowChunks = new ArrayDeque<>();
  private final ExecutorService pool;
  private long windowBytes;
  private int nextToFetch;

  public RangeFetcher(S3Client s3, List<ShuffleSegment> segments, int maxInFlight, int chunkBytes,
      long maxBufferedBytes, RetryPolicy retry, HedgedRequests hedging, ShuffleMetrics metrics) {
    this.s3 = s3;
    this.hedging = hedging;
    this.segments = segments;
    this.maxInFlight = maxInFlight;
    this.maxBufferedBytes = maxBufferedBytes;
    this.retry = retry;
    this.metrics = metrics;
    for (int s = 0; s < segments.size(); s++) {
      ShuffleSegment segment = segments.get(s);
      for (long at = 0; at < segment.getLength(); at += chunkBytes) {
        chunks.add(new Chunk(s, segment.getOffset() + at, (int) Math.min(chunkBytes, segment.getLength() - at)));
      }
    }
    this.pool = Executors.newFixedThreadPool(Math.max(1, Math.min(maxInFlight, chunks.size())), r -> {
      Thread t = new Thread(r, "shuffle-fetch-" + THREADS.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  /** The hedging of this fetcher's GETs (its counters). */
  public HedgedRequests hedging() {
    return hedging;
  }

  /** Number of chunks (GETs without retries) this fetcher will make. */
  public int chunkCount() {
    return chunks.size();
  }

  /**
   * The next chunk's bytes, blocking until fetched; chunks come in segment order.
   *
   * @return null when every chunk has been taken
   * @throws MissingShuffleOutputException if the chunk's object does not exist
   */
  public byte[] take() {
    fill();
    if (window.isEmpty()) {
      return null;
    }
    Future<byte[]> head = window.removeFirst();
    Chunk chunk = windowChunks.removeFirst();
    windowBytes -= chunk.length();
    try {
      byte[] bytes = head.get();
      fill();
      return bytes;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while fetching shuffle data", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      throw new IllegalStateException("Fetching shuffle data failed", cause);
    } catch (CancellationException e) {
      throw new IllegalStateException("Shuffle fetch was cancelled", e);
    }
  }

  private void fill() {
    while (nextToFetch < chunks.size() && window.size() < maxInFlight
        && (window.isEmpty() || windowBytes + chunks.get(nextToFetch).length() <= maxBufferedBytes)) {
      Chunk chunk = chunks.get(nextToFetch++);
      window.addLast(pool.submit(() -> fetch(chunk)));
      windowChunks.addLast(chunk);
      windowBytes += chunk.length();
    }
  }

  private byte[] fetch(Chunk chunk) {
    ShuffleSegment segment = segments.get(chunk.segment());
    String range = "bytes=" + chunk.offset() + "-" + (chunk.offset() + chunk.length() - 1);
    ResponseBytes<GetObjectResponse> response;
    try {
      response = retry.run(() -> hedging.callUnchecked(() -> {
        metrics.countGet(); // every copy sent is a request
        return s3.getObjectAsBytes(b -> b.bucket(segment.getBucket()).key(segment.getObjectKey()).range(range));
      }), () -> { });
    } catch (NoSuchKeyException e) {
      throw new MissingShuffleOutputException(segment, e);
    } catch (S3Exception e) {
      if (e.statusCode() == 404 && !"NoSuchBucket".equals(errorCode(e))) {
        throw new MissingShuffleOutputException(segment, e);
      }
      throw e;
    }
    byte[] bytes = response.asByteArrayUnsafe();
    if (bytes.length != chunk.length()) {
      throw new IllegalStateException("Shuffle object s3://" + segment.getBucket() + "/" + segment.getObjectKey()
          + " returned " + bytes.length + " bytes for " + range + "; the object is shorter than its index says");
    }
    metrics.addBytesRead(bytes.length);
    return bytes;
  }

  private static String errorCode(S3Exception e) {
    return e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
  }

  /** Cancels outstanding GETs and stops the fetch threads. */
  @Override
  public void close() {
    for (Future<byte[]> f : window) {
      f.cancel(true);
    }
    window.clear();
    windowChunks.clear();
    pool.shutdownNow();
  }
}

package dev.squall.shuffle.s3;

import dev.squall.engine.io.HedgedRequests;
import dev.squall.proto.v1.ShuffleSegment;
import dev.squall.shuffle.MissingShuffleOutputException;
import dev.squall.shuffle.ShuffleMetrics;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
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
 * GETs; adjacent segments of one object (a task of coalesced partitions reads partitions {@code
 * [from, to)} of each map output, back to back) are fetched together, up to {@code chunkBytes} per
 * GET, and handed out one by one. Each GET is hedged ({@link HedgedRequests}: sent again when it
 * is slow, the first answer wins). Failures surface when the consumer takes the failed chunk: a
 * 404 as {@link MissingShuffleOutputException}, anything else after {@link RetryPolicy} gave up.
 */
public final class RangeFetcher implements AutoCloseable {
  private static final AtomicInteger THREADS = new AtomicInteger();

  private record Chunk(int segment, long offset, int length) {}

  /** One GET: chunks {@code [first, first + count)}, contiguous in one object. */
  private record Fetch(int first, int count, long offset, int length) {}

  private final S3Client s3;
  private final List<ShuffleSegment> segments;
  private final int maxInFlight;
  private final long maxBufferedBytes;
  private final RetryPolicy retry;
  private final HedgedRequests hedging;
  private final ShuffleMetrics metrics;
  /** Objects held in memory (small results returned inline), by key: read without a request. */
  private final Map<String, byte[]> inMemory;
  private final List<Chunk> chunks = new ArrayList<>();
  private final List<Fetch> fetches = new ArrayList<>();
  private final ArrayDeque<Future<byte[]>> window = new ArrayDeque<>();
  private final ArrayDeque<Fetch> windowFetches = new ArrayDeque<>();
  private final ExecutorService pool;
  private long windowBytes;
  private int nextToFetch;
  /** The fetch whose chunks are being taken, its bytes, and how many of its chunks were taken. */
  private Fetch current;
  private byte[] currentBytes;
  private int takenOfCurrent;

  public RangeFetcher(S3Client s3, List<ShuffleSegment> segments, int maxInFlight, int chunkBytes,
      long maxBufferedBytes, RetryPolicy retry, HedgedRequests hedging, ShuffleMetrics metrics) {
    this(s3, segments, maxInFlight, chunkBytes, maxBufferedBytes, retry, hedging, metrics, Map.of());
  }

  /**
   * As the other constructor, with the bytes of some objects at hand ({@code inMemory}, by key):
   * their ranges are cut from those bytes instead of fetched.
   */
  public RangeFetcher(S3Client s3, List<ShuffleSegment> segments, int maxInFlight, int chunkBytes,
      long maxBufferedBytes, RetryPolicy retry, HedgedRequests hedging, ShuffleMetrics metrics,
      Map<String, byte[]> inMemory) {
    this.inMemory = inMemory;
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
    for (int c = 0; c < chunks.size(); c++) {
      Chunk chunk = chunks.get(c);
      Fetch last = fetches.isEmpty() ? null : fetches.get(fetches.size() - 1);
      if (last != null && last.offset() + last.length() == chunk.offset()
          && (long) last.length() + chunk.length() <= chunkBytes && sameObject(chunks.get(last.first()), chunk)) {
        fetches.set(fetches.size() - 1, new Fetch(last.first(), last.count() + 1, last.offset(),
            last.length() + chunk.length()));
      } else {
        fetches.add(new Fetch(c, 1, chunk.offset(), chunk.length()));
      }
    }
    this.pool = Executors.newFixedThreadPool(Math.max(1, Math.min(maxInFlight, fetches.size())), r -> {
      Thread t = new Thread(r, "shuffle-fetch-" + THREADS.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  /** The hedging of this fetcher's GETs (its counters). */
  public HedgedRequests hedging() {
    return hedging;
  }

  /** Number of GETs (without retries) this fetcher will make. */
  public int chunkCount() {
    return fetches.size();
  }

  private boolean sameObject(Chunk a, Chunk b) {
    ShuffleSegment x = segments.get(a.segment());
    ShuffleSegment y = segments.get(b.segment());
    return x.getObjectKey().equals(y.getObjectKey()) && x.getBucket().equals(y.getBucket());
  }

  /**
   * The next chunk's bytes, blocking until fetched; chunks come in segment order.
   *
   * @return null when every chunk has been taken
   * @throws MissingShuffleOutputException if the chunk's object does not exist
   */
  public byte[] take() {
    if (current == null) {
      fill();
      if (window.isEmpty()) {
        return null;
      }
      Future<byte[]> head = window.removeFirst();
      current = windowFetches.removeFirst();
      windowBytes -= current.length();
      currentBytes = await(head);
      takenOfCurrent = 0;
      fill();
    }
    Chunk chunk = chunks.get(current.first() + takenOfCurrent);
    byte[] bytes = current.count() == 1 ? currentBytes
        : Arrays.copyOfRange(currentBytes, (int) (chunk.offset() - current.offset()),
            (int) (chunk.offset() - current.offset()) + chunk.length());
    if (++takenOfCurrent == current.count()) {
      current = null;
      currentBytes = null;
    }
    return bytes;
  }

  private static byte[] await(Future<byte[]> fetch) {
    try {
      return fetch.get();
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
    while (nextToFetch < fetches.size() && window.size() < maxInFlight
        && (window.isEmpty() || windowBytes + fetches.get(nextToFetch).length() <= maxBufferedBytes)) {
      Fetch fetch = fetches.get(nextToFetch++);
      byte[] held = inMemory.get(segments.get(chunks.get(fetch.first()).segment()).getObjectKey());
      window.addLast(held != null ? cut(fetch, held) : pool.submit(() -> fetch(fetch)));
      windowFetches.addLast(fetch);
      windowBytes += fetch.length();
    }
  }

  /**
   * A fetch's range of an object held in memory, cut on the caller's thread (no request, no fetch
   * thread); a range past its end fails when taken, as a GET's failure does.
   */
  private CompletableFuture<byte[]> cut(Fetch fetch, byte[] held) {
    CompletableFuture<byte[]> bytes = new CompletableFuture<>();
    if (fetch.offset() + fetch.length() > held.length) {
      bytes.completeExceptionally(new IllegalStateException("Shuffle output "
          + segments.get(chunks.get(fetch.first()).segment()).getObjectKey() + " held in memory has "
          + held.length + " bytes, fewer than its index says"));
    } else {
      metrics.addBytesRead(fetch.length());
      bytes.complete(Arrays.copyOfRange(held, (int) fetch.offset(), (int) fetch.offset() + fetch.length()));
    }
    return bytes;
  }

  private byte[] fetch(Fetch chunk) {
    ShuffleSegment segment = segments.get(chunks.get(chunk.first()).segment());
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
    windowFetches.clear();
    pool.shutdownNow();
  }
}

package dev.squall.shuffle;

import dev.squall.engine.io.HedgedRequests;
import dev.squall.proto.v1.ShuffleInput;
import dev.squall.proto.v1.ShuffleSegment;
import dev.squall.shuffle.format.Codecs;
import dev.squall.shuffle.format.ShuffleIndex;
import dev.squall.shuffle.s3.RangeFetcher;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The reduce side of a shuffle: the rows of one reduce partition, read from every winning map
 * output with ranged GETs and decoded lazily into Arrow batches.
 *
 * <pre>
 *   try (ShuffleReader reader = ShuffleReader.open(s3, allocator, spec.getInputs(i).getShuffle(),
 *       ShuffleReaderOptions.DEFAULT)) {
 *     while (reader.hasNext()) { VectorSchemaRoot batch = reader.next(); ... }
 *     reader.metrics().addTo(taskMetrics);
 *   }
 * </pre>
 *
 * <p>Segments are fetched ahead of decoding in parallel ({@link RangeFetcher}: bounded GETs in
 * flight and bounded bytes read ahead; 5xx and SlowDown retried with backoff). Each segment is an
 * Arrow IPC stream, decoded with its recorded body compression. The batch returned by
 * {@link #next()} belongs to the reader and stays valid only until the next call to
 * {@link #hasNext()} or {@link #next()}; batches of different segments may be different root
 * objects with equal schemas. Zero-length segments are skipped without a request. A segment may
 * hold several IPC streams back to back (a combiner's output, {@link ShuffleCombiner}); they are
 * decoded one after the other.
 *
 * <p>Errors: a missing map output object raises {@link MissingShuffleOutputException} (from
 * {@code hasNext}); a segment whose decoded rows differ from its index raises
 * {@link IllegalStateException} naming the object.
 */
public final class ShuffleReader implements Iterator<VectorSchemaRoot>, AutoCloseable {
  private final BufferAllocator allocator;
  private final List<ShuffleSegment> segments;
  private final RangeFetcher fetcher;
  private final ShuffleMetrics metrics;
  private int nextSegment;
  private ShuffleSegment current;
  private ArrowStreamReader decoder;
  private SegmentInput segmentInput;
  private long segmentRows;
  private boolean loaded;
  private boolean closed;

  private ShuffleReader(S3Client s3, BufferAllocator allocator, List<ShuffleSegment> segments, ShuffleReaderOptions options,
      ShuffleMetrics metrics) {
    this(s3, allocator, segments, options, metrics, Map.of());
  }

  private ShuffleReader(S3Client s3, BufferAllocator allocator, List<ShuffleSegment> segments, ShuffleReaderOptions options,
      ShuffleMetrics metrics, Map<String, byte[]> inMemory) {
    this.metrics = metrics;
    this.allocator = allocator.newChildAllocator("shuffle-reader", 0, Long.MAX_VALUE);
    List<ShuffleSegment> nonEmpty = new ArrayList<>();
    for (ShuffleSegment segment : segments) {
      if (segment.getLength() < 0 || segment.getOffset() < 0) {
        throw new IllegalArgumentException("Invalid shuffle segment of s3://" + segment.getBucket() + "/"
            + segment.getObjectKey() + ": offset " + segment.getOffset() + ", length " + segment.getLength());
      }
      if (segment.getLength() > 0) {
        nonEmpty.add(segment);
      }
    }
    this.segments = nonEmpty;
    this.fetcher = new RangeFetcher(s3, nonEmpty, options.maxInFlight(), options.chunkBytes(),
        options.maxBufferedBytes(), options.retry(), new HedgedRequests(options.hedging()), metrics, inMemory);
  }

  /**
   * Opens a reader over a reduce task's shuffle input. Fetching starts at the first
   * {@link #hasNext()}.
   *
   * @param s3 client for ranged GETs (not closed by the reader)
   * @param allocator parent allocator; decoded batches live in a child allocator freed on close
   */
  public static ShuffleReader open(S3Client s3, BufferAllocator allocator, ShuffleInput input, ShuffleReaderOptions options) {
    if (input.hasPipelined()) {
      throw new IllegalArgumentException("a pipelined shuffle input is read with PipelinedShuffleReader");
    }
    return new ShuffleReader(s3, allocator, input.getSegmentsList(), options, new ShuffleMetrics());
  }

  /** As {@link #open(S3Client, BufferAllocator, ShuffleInput, ShuffleReaderOptions)}, over a list of segments. */
  public static ShuffleReader open(S3Client s3, BufferAllocator allocator, List<ShuffleSegment> segments,
      ShuffleReaderOptions options) {
    return new ShuffleReader(s3, allocator, segments, options, new ShuffleMetrics());
  }

  /**
   * As {@link #open(S3Client, BufferAllocator, List, ShuffleReaderOptions)}, with some objects' bytes
   * at hand ({@code inMemory}, by key: results a task returned inline), read without a request.
   */
  public static ShuffleReader open(S3Client s3, BufferAllocator allocator, List<ShuffleSegment> segments,
      ShuffleReaderOptions options, Map<String, byte[]> inMemory) {
    return new ShuffleReader(s3, allocator, segments, options, new ShuffleMetrics(), inMemory);
  }

  /** As {@link #open(S3Client, BufferAllocator, List, ShuffleReaderOptions)}, counting into {@code metrics}. */
  static ShuffleReader open(S3Client s3, BufferAllocator allocator, List<ShuffleSegment> segments,
      ShuffleReaderOptions options, ShuffleMetrics metrics) {
    return new ShuffleReader(s3, allocator, segments, options, metrics);
  }

  /** Live counters: bytes and rows read, GET requests. */
  public ShuffleMetrics metrics() {
    return metrics;
  }

  /** GETs this reader sent a second time because the first was slow ({@link HedgedRequests}). */
  public long hedgedGets() {
    return fetcher.hedging().hedged();
  }

  @Override
  public boolean hasNext() {
    if (closed) {
      return false;
    }
    if (loaded) {
      return true;
    }
    try {
      while (true) {
        if (decoder == null) {
          if (nextSegment >= segments.size()) {
            return false;
          }
          current = segments.get(nextSegment++);
          segmentRows = 0;
          segmentInput = new SegmentInput(current.getLength());
          decoder = new ArrowStreamReader(segmentInput, allocator, Codecs.factory());
        }
        if (decoder.loadNextBatch()) {
          VectorSchemaRoot root = decoder.getVectorSchemaRoot();
          segmentRows += root.getRowCount();
          metrics.addRowsRead(root.getRowCount());
          loaded = true;
          return true;
        }
        if (segmentInput.hasMore()) {
          // A combined segment: another IPC stream follows this one's end-of-stream marker.
          decoder.close();
          decoder = new ArrowStreamReader(segmentInput, allocator, Codecs.factory());
          continue;
        }
        finishSegment();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Decoding shuffle segment of s3://" + current.getBucket() + "/"
          + current.getObjectKey() + " failed", e);
    }
  }

  /** The next batch; valid until the next {@code hasNext()} or {@code next()}. */
  @Override
  public VectorSchemaRoot next() {
    if (!hasNext()) {
      throw new NoSuchElementException("No more shuffle batches");
    }
    loaded = false;
    try {
      return decoder.getVectorSchemaRoot();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void finishSegment() throws IOException {
    decoder.close();
    decoder = null;
    if (segmentRows != current.getRows()) {
      throw new IllegalStateException("Shuffle segment of s3://" + current.getBucket() + "/" + current.getObjectKey()
          + " at offset " + current.getOffset() + " decoded to " + segmentRows + " rows, its index says "
          + current.getRows());
    }
  }

  /** Stops fetching and frees every buffer; safe to call more than once. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      fetcher.close();
      if (decoder != null) {
        decoder.close();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      allocator.close();
    }
  }

  /**
   * Reads the footer index of a map output object with two ranged GETs (trailer, then entries).
   *
   * @throws IllegalArgumentException if the object has no Squall shuffle footer
   * @throws software.amazon.awssdk.services.s3.model.NoSuchKeyException if it does not exist
   */
  public static ShuffleIndex readIndex(S3Client s3, String bucket, String key) {
    String name = "s3://" + bucket + "/" + key;
    byte[] trailer = s3.getObjectAsBytes(b -> b.bucket(bucket).key(key).range("bytes=-" + ShuffleIndex.TRAILER_BYTES))
        .asByteArrayUnsafe();
    int[] header = ShuffleIndex.decodeTrailer(trailer, name);
    long size = s3.headObject(b -> b.bucket(bucket).key(key)).contentLength();
    long entriesBytes = (long) header[1] * ShuffleIndex.ENTRY_BYTES;
    long start = size - ShuffleIndex.TRAILER_BYTES - entriesBytes;
    if (start < 0) {
      throw new IllegalArgumentException("Shuffle object " + name + " is shorter than its footer");
    }
    byte[] entries = s3.getObjectAsBytes(b -> b.bucket(bucket).key(key)
        .range("bytes=" + start + "-" + (start + entriesBytes - 1))).asByteArrayUnsafe();
    return ShuffleIndex.decodeEntries(header[0], header[1], entries);
  }

  /** The bytes of the current segment, taken chunk by chunk from the fetcher. */
  private final class SegmentInput extends InputStream {
    private long remaining;
    private byte[] chunk = new byte[0];
    private int position;

    SegmentInput(long length) {
      this.remaining = length;
    }

    /** Whether bytes of the segment are left to read. */
    boolean hasMore() {
      return position < chunk.length || remaining > 0;
    }

    private boolean ensure() {
      if (position < chunk.length) {
        return true;
      }
      if (remaining == 0) {
        return false;
      }
      byte[] next = fetcher.take();
      if (next == null) {
        throw new IllegalStateException("Shuffle fetcher ran out of chunks inside a segment");
      }
      chunk = next;
      position = 0;
      remaining -= next.length;
      return true;
    }

    @Override
    public int read() {
      return ensure() ? chunk[position++] & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (len == 0) {
        return 0;
      }
      if (!ensure()) {
        return -1;
      }
      int n = Math.min(len, chunk.length - position);
      System.arraycopy(chunk, position, b, off, n);
      position += n;
      return n;
    }

    @Override
    public void close() {
      // The fetcher outlives the segment; the unread rest (if any) is dropped with the chunk.
    }
  }
}

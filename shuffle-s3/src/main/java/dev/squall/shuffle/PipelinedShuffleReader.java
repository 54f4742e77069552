package dev.squall.shuffle;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.squall.engine.EngineException;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.PipelinedInput;
import dev.squall.proto.v1.Schema;
import dev.squall.proto.v1.ShuffleSegment;
import dev.squall.proto.v1.TaskResult;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.BooleanSupplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The reduce side of a pipelined shuffle input: reads partitions {@code [from, to)} of every map
 * output of a producer stage that may still be running. The producer tasks' winners are learned
 * from the objects the coordinator publishes as it records them ({@link PublishedWinners}): the
 * reader lists the stage's winner prefix, fetches each new winner's TaskResult, and reads its
 * ranges with a {@link ShuffleReader} while later producers still run. Exactly one attempt of each
 * map task is read — the published (recorded) winner; a winner seen once is kept.
 *
 * <p>While no new winner is published, it polls with backoff: 20 ms after progress, doubling to
 * 500 ms. Between polls it asks {@code stop} (the task's cancel probe: the job's cancel marker or
 * the invocation's time limit) and throws {@link EngineException} CANCELLED once it says stop.
 *
 * <p>Errors as {@link ShuffleReader}: a missing map output raises
 * {@link MissingShuffleOutputException} naming it.
 */
public final class PipelinedShuffleReader implements Iterator<VectorSchemaRoot>, AutoCloseable {
  static final long FIRST_POLL_MILLIS = 20;
  static final long MAX_POLL_MILLIS = 500;

  private final S3Client s3;
  private final BufferAllocator allocator;
  private final Schema schema;
  private final PipelinedInput input;
  private final ShuffleReaderOptions options;
  private final BooleanSupplier stop;
  private final ShuffleMetrics metrics = new ShuffleMetrics();
  private final boolean[] known;
  private int knownCount;
  private long pollMillis = FIRST_POLL_MILLIS;
  private long polls;
  private ShuffleReader current;
  private boolean closed;

  private PipelinedShuffleReader(S3Client s3, BufferAllocator allocator, Schema schema, PipelinedInput input,
      ShuffleReaderOptions options, BooleanSupplier stop) {
    if (input.getProducerTasks() < 1 || input.getFromPartition() < 0 || input.getToPartition() <= input.getFromPartition()) {
      throw new IllegalArgumentException("Invalid pipelined shuffle input of stage " + input.getProducerStageId()
          + ": " + input.getProducerTasks() + " tasks, partitions [" + input.getFromPartition() + ", "
          + input.getToPartition() + ")");
    }
    this.s3 = s3;
    this.allocator = allocator;
    this.schema = schema;
    this.input = input;
    this.options = options;
    this.stop = stop;
    this.known = new boolean[input.getProducerTasks()];
  }

  /**
   * Opens a reader; nothing is requested before the first {@link #hasNext()}.
   *
   * @param s3 client for listing, winner and ranged GETs (not closed by the reader)
   * @param stop polled between waits; true stops the reader with CANCELLED
   */
  public static PipelinedShuffleReader open(S3Client s3, BufferAllocator allocator, Schema schema,
      PipelinedInput input, ShuffleReaderOptions options, BooleanSupplier stop) {
    return new PipelinedShuffleReader(s3, allocator, schema, input, options, stop);
  }

  /** Live counters of every map output read so far (the listing and winner GETs are not in them). */
  public ShuffleMetrics metrics() {
    return metrics;
  }

  /** Listings of the winner prefix so far. */
  public long polls() {
    return polls;
  }

  @Override
  public boolean hasNext() {
    while (!closed) {
      if (current != null) {
        if (current.hasNext()) {
          return true;
        }
        current.close();
        current = null;
      }
      if (knownCount == known.length) {
        return false;
      }
      List<TaskResult> fresh = poll();
      if (fresh.isEmpty()) {
        waitBeforeNextPoll();
        continue;
      }
      pollMillis = FIRST_POLL_MILLIS;
      List<ShuffleSegment> segments = new ArrayList<>(ShuffleSegments.input(schema, input.getBucket(), fresh,
          input.getFromPartition(), input.getToPartition()).getSegmentsList());
      current = ShuffleReader.open(s3, allocator, segments, options, metrics);
    }
    return false;
  }

  @Override
  public VectorSchemaRoot next() {
    if (!hasNext()) {
      throw new NoSuchElementException("No more shuffle batches");
    }
    return current.next();
  }

  /** Winners published since the last poll, each read once. */
  private List<TaskResult> poll() {
    polls++;
    List<TaskResult> fresh = new ArrayList<>();
    String token = null;
    do {
      String page = token;
      ListObjectsV2Response listed = s3.listObjectsV2(b -> b.bucket(input.getBucket()).prefix(input.getWinnersPrefix())
          .continuationToken(page));
      for (S3Object o : listed.contents()) {
        int q = partitionOf(o.key());
        if (q >= 0 && q < known.length && !known[q]) {
          TaskResult winner = read(o.key(), q);
          if (winner != null) {
            known[q] = true;
            knownCount++;
            fresh.add(winner);
          }
        }
      }
      token = listed.isTruncated() ? listed.nextContinuationToken() : null;
    } while (token != null);
    return fresh;
  }

  /** The published winner at {@code key}, or null when it was retracted since the listing. */
  private TaskResult read(String key, int q) {
    byte[] bytes;
    try {
      bytes = s3.getObjectAsBytes(b -> b.bucket(input.getBucket()).key(key)).asByteArrayUnsafe();
    } catch (NoSuchKeyException e) {
      return null;
    }
    try {
      TaskResult winner = TaskResult.parseFrom(bytes);
      if (winner.getStageId() != input.getProducerStageId() || winner.getPartition() != q) {
        throw new IllegalStateException("published winner " + key + " names task " + winner.getStageId() + "."
            + winner.getPartition());
      }
      return winner;
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("published winner " + key + " is unreadable", e);
    }
  }

  private int partitionOf(String key) {
    String name = key.substring(input.getWinnersPrefix().length());
    if (!name.startsWith("m")) {
      return -1;
    }
    try {
      return Integer.parseInt(name.substring(1));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private void waitBeforeNextPoll() {
    if (stop.getAsBoolean()) {
      throw new EngineException(ErrorCode.CANCELLED, "task stopped while waiting for stage "
          + input.getProducerStageId() + " (" + knownCount + " of " + known.length + " map outputs known)");
    }
    try {
      Thread.sleep(pollMillis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new EngineException(ErrorCode.CANCELLED, "task interrupted while waiting for stage "
          + input.getProducerStageId());
    }
    pollMillis = Math.min(MAX_POLL_MILLIS, pollMillis * 2);
  }

  /** Stops fetching and frees every buffer; safe to call more than once. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (current != null) {
      current.close();
      current = null;
    }
  }
}

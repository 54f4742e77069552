package dev.squall.shuffle;

import dev.squall.engine.EngineException;
import dev.squall.engine.io.HedgedRequests;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.PartitionRange;
import dev.squall.proto.v1.ShuffleInput;
import dev.squall.proto.v1.ShuffleSegment;
import dev.squall.shuffle.format.ShuffleIndex;
import dev.squall.shuffle.s3.ObjectUpload;
import dev.squall.shuffle.s3.RangeFetcher;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The combiner of a combining exchange: reads a group of whole map outputs with one ranged GET
 * each and writes one object holding, for each partition, the group's ranges of that partition
 * back to back (each a complete Arrow IPC stream, copied without decoding). The index has one
 * range per partition (zero-length when the group has no rows for it), so a reduce task reads one
 * range of the combined object where it read one range of each map output; {@link ShuffleReader}
 * decodes a range holding several streams one after the other.
 *
 * <p>Memory: the group's map outputs are held whole (their bytes, compressed) while the object is
 * written; the planner sizes groups so that they fit the task's budget.
 *
 * <p>Errors: a missing map output raises {@link MissingShuffleOutputException} naming it (so the
 * scheduler runs that map task again); on any failure the partial upload is aborted.
 */
public final class ShuffleCombiner {
  private ShuffleCombiner() {}

  /**
   * Combines the map outputs of {@code input} (every non-empty range of each, with its partition
   * set, as {@link ShuffleSegments#wholeOutputs} lists them).
   *
   * @param output where the combined object goes: its bucket, key and partition count
   *     ({@code output.partitionCount()} partitions, every input partition below it)
   * @param cancelled polled as each map output arrives and before the object is completed; when
   *     true the attempt stops with {@link EngineException} CANCELLED (the upload aborted)
   * @return the combined object and its index, with the GET and PUT counters
   * @throws MissingShuffleOutputException if a map output does not exist
   * @throws IllegalArgumentException if a range names a partition outside {@code [0, partitionCount)}
   */
  public static MapOutput combine(S3Client s3, ShuffleInput input, Target output, ShuffleReaderOptions options,
      BooleanSupplier cancelled) {
    Map<String, List<ShuffleSegment>> byObject = new LinkedHashMap<>();
    for (ShuffleSegment s : input.getSegmentsList()) {
      if (s.getPartition() < 0 || s.getPartition() >= output.partitionCount()) {
        throw new IllegalArgumentException("Shuffle range of s3://" + s.getBucket() + "/" + s.getObjectKey()
            + " names partition " + s.getPartition() + " of " + output.partitionCount());
      }
      if (s.getLength() > 0) {
        byObject.computeIfAbsent(s.getObjectKey(), k -> new ArrayList<>()).add(s);
      }
    }
    // One span per map output, from its first range's start to its last range's end: one GET each.
    List<ShuffleSegment> spans = new ArrayList<>();
    long largest = 1;
    for (List<ShuffleSegment> ranges : byObject.values()) {
      long start = Long.MAX_VALUE;
      long end = 0;
      for (ShuffleSegment r : ranges) {
        start = Math.min(start, r.getOffset());
        end = Math.max(end, r.getOffset() + r.getLength());
      }
      spans.add(ranges.get(0).toBuilder().setOffset(start).setLength(end - start).setRows(0).build());
      largest = Math.max(largest, end - start);
    }
    if (largest > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException("A map output of " + largest + " bytes is too large to combine");
    }
    ShuffleMetrics metrics = new ShuffleMetrics();
    List<byte[]> bytes = new ArrayList<>();
    try (RangeFetcher fetcher = new RangeFetcher(s3, spans, options.maxInFlight(), (int) largest, Long.MAX_VALUE,
        options.retry(), new HedgedRequests(options.hedging()), metrics)) {
      for (int i = 0; i < spans.size(); i++) {
        stopIf(cancelled);
        bytes.add(fetcher.take());
      }
    }
    ObjectUpload upload = new ObjectUpload(s3, output.bucket(), output.key(), output.partSizeBytes(), options.retry(),
        metrics);
    try {
      List<PartitionRange> index = new ArrayList<>();
      List<List<ShuffleSegment>> objects = new ArrayList<>(byObject.values());
      long rows = 0;
      for (int p = 0; p < output.partitionCount(); p++) {
        long start = upload.position();
        long partitionRows = 0;
        for (int o = 0; o < objects.size(); o++) {
          long spanStart = spans.get(o).getOffset();
          for (ShuffleSegment r : objects.get(o)) {
            if (r.getPartition() == p) {
              upload.append(bytes.get(o), (int) (r.getOffset() - spanStart), (int) r.getLength());
              partitionRows += r.getRows();
            }
          }
        }
        index.add(PartitionRange.newBuilder().setPartition(p).setOffset(start).setLength(upload.position() - start)
            .setRows(partitionRows).build());
        rows += partitionRows;
      }
      stopIf(cancelled);
      upload.append(new ShuffleIndex(output.partitionCount(), index).encodeFooter());
      long size = upload.complete();
      metrics.addBytesWritten(size);
      metrics.addRowsWritten(rows);
      metrics.addObjectWritten();
      return new MapOutput(output.bucket(), output.key(), output.combiner(), output.partitionCount(), index, size,
          metrics);
    } catch (RuntimeException e) {
      upload.abort();
      throw e;
    }
  }

  private static void stopIf(BooleanSupplier cancelled) {
    if (cancelled.getAsBoolean()) {
      throw new EngineException(ErrorCode.CANCELLED, "combiner task stopped: the query was cancelled");
    }
  }

  /**
   * Where a combiner attempt writes.
   *
   * @param bucket the shuffle bucket
   * @param key the attempt's object key ({@link ShuffleKeys#mapOutputKey} of the combiner's stage,
   *     partition and attempt)
   * @param combiner the combiner task attempt
   * @param partitionCount partitions of the exchange
   * @param partSizeBytes multipart part size (at least S3's 5 MiB)
   */
  public record Target(String bucket, String key, MapTaskAttempt combiner, int partitionCount, long partSizeBytes) {}
}

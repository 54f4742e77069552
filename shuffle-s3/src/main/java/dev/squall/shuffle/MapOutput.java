package dev.squall.shuffle;

import com.google.protobuf.ByteString;
import dev.squall.proto.v1.PartitionRange;
import dev.squall.proto.v1.ShuffleSegment;
import dev.squall.proto.v1.TaskResult;
import java.util.ArrayList;
import java.util.List;

/**
 * What a map task attempt wrote: one S3 object and where each output partition lies in it.
 *
 * @param bucket bucket of the object
 * @param key object key ({@link ShuffleKeys#mapOutputKey})
 * @param producer the map task attempt
 * @param partitionCount output partitions (1 for single, broadcast and forward edges)
 * @param ranges the index: by partition then offset; one entry per spill run in which a
 *     partition got rows, one zero-length entry for a partition with no rows
 * @param objectBytes object size in bytes, footer included
 * @param metrics the writer's counters
 * @param inlineBytes the object's bytes when it was kept in memory, not written (a small result,
 *     {@link ShuffleWriterOptions#inlineMaxBytes}); else null
 */
public record MapOutput(String bucket, String key, MapTaskAttempt producer, int partitionCount,
    List<PartitionRange> ranges, long objectBytes, ShuffleMetrics metrics, byte[] inlineBytes) {

  public MapOutput {
    ranges = List.copyOf(ranges);
  }

  /** An output written to S3. */
  public MapOutput(String bucket, String key, MapTaskAttempt producer, int partitionCount,
      List<PartitionRange> ranges, long objectBytes, ShuffleMetrics metrics) {
    this(bucket, key, producer, partitionCount, ranges, objectBytes, metrics, null);
  }

  /** Rows over all partitions. */
  public long rows() {
    return ranges.stream().mapToLong(PartitionRange::getRows).sum();
  }

  /** The non-empty segments of reduce partition {@code partition}, for a reader's ShuffleInput. */
  public List<ShuffleSegment> segmentsFor(int partition) {
    List<ShuffleSegment> out = new ArrayList<>();
    for (PartitionRange r : ranges) {
      if (r.getPartition() == partition && r.getLength() > 0) {
        out.add(ShuffleSegments.segment(bucket, key, producer, r));
      }
    }
    return out;
  }

  /**
   * Fills a successful task result: output_object_key, partitions (the index), the object's bytes
   * when it was kept in memory (inline_output) and the shuffle counters added into its metrics.
   */
  public TaskResult.Builder addTo(TaskResult.Builder result) {
    result.setOutputObjectKey(key).addAllPartitions(ranges);
    if (inlineBytes != null) {
      result.setInlineOutput(ByteString.copyFrom(inlineBytes));
    }
    metrics.addTo(result.getMetricsBuilder());
    return result;
  }
}

package dev.squall.shuffle;

import dev.squall.proto.v1.PartitionRange;
import dev.squall.proto.v1.Schema;
import dev.squall.proto.v1.ShuffleInput;
import dev.squall.proto.v1.ShuffleSegment;
import dev.squall.proto.v1.TaskResult;
import java.util.List;

/**
 * Scheduler side of a shuffle: turns the winning map attempts' task results into the
 * {@link ShuffleInput} of one reduce task.
 *
 * <p>For a hash or range edge, reduce task {@code p} reads partition {@code p} of every map
 * output (partitions {@code [from, to)} once the coordinator has coalesced them); for single and
 * broadcast edges every consumer reads partition 0 of every map output;
 * for a forward edge consumer {@code i} reads partition 0 of producer task {@code i} only.
 */
public final class ShuffleSegments {
  private ShuffleSegments() {}

  /**
   * The input of reduce partition {@code partition}.
   *
   * @param schema the producer stage's output schema
   * @param bucket the bucket of the producer's ShuffleOutput
   * @param winners one successful result per map task (the attempt that won)
   * @throws IllegalArgumentException if a result is a failure or has no output object
   */
  public static ShuffleInput input(Schema schema, String bucket, List<TaskResult> winners, int partition) {
    return ranges(schema, bucket, winners, partition, partition + 1, false);
  }

  /**
   * The input of a reduce task that reads the adjacent partitions {@code [from, to)} (a task of
   * coalesced partitions): each map output's segments of those partitions, in partition order.
   *
   * @throws IllegalArgumentException if a result is a failure or has no output object
   */
  public static ShuffleInput input(Schema schema, String bucket, List<TaskResult> winners, int from, int to) {
    return ranges(schema, bucket, winners, from, to, false);
  }

  /**
   * The input of a combiner task ({@link ShuffleCombiner}): every non-empty range of each winner's
   * output, each segment carrying its partition.
   *
   * @throws IllegalArgumentException if a result is a failure or has no output object
   */
  public static ShuffleInput wholeOutputs(Schema schema, String bucket, List<TaskResult> winners) {
    return ranges(schema, bucket, winners, 0, Integer.MAX_VALUE, true);
  }

  /** Ranges of partitions {@code [from, to)} of every winner; {@code tagged}: each segment names its partition. */
  private static ShuffleInput ranges(Schema schema, String bucket, List<TaskResult> winners, int from, int to,
      boolean tagged) {
    ShuffleInput.Builder input = ShuffleInput.newBuilder().setSchema(schema);
    for (TaskResult winner : winners) {
      if (winner.hasError() || winner.getOutputObjectKey().isEmpty()) {
        throw new IllegalArgumentException("Task result of stage " + winner.getStageId() + ", partition "
            + winner.getPartition() + ", attempt " + winner.getAttempt() + " has no shuffle output");
      }
      MapTaskAttempt producer = new MapTaskAttempt(winner.getStageId(), winner.getPartition(), winner.getAttempt());
      for (PartitionRange r : winner.getPartitionsList()) {
        if (r.getPartition() >= from && r.getPartition() < to && r.getLength() > 0) {
          ShuffleSegment s = segment(bucket, winner.getOutputObjectKey(), producer, r);
          input.addSegments(tagged ? s.toBuilder().setPartition(r.getPartition()).build() : s);
        }
      }
    }
    return input.build();
  }

  static ShuffleSegment segment(String bucket, String key, MapTaskAttempt producer, PartitionRange r) {
    return ShuffleSegment.newBuilder()
        .setBucket(bucket)
        .setObjectKey(key)
        .setOffset(r.getOffset())
        .setLength(r.getLength())
        .setRows(r.getRows())
        .setProducerStageId(producer.stageId())
        .setProducerPartition(producer.partition())
        .setProducerAttempt(producer.attempt())
        .build();
  }
}

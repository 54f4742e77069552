package dev.squall.shuffle;

import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.ShuffleSegment;
import dev.squall.proto.v1.TaskError;

/**
 * A map output a reduce task needs is not in S3 (GET answered 404 NoSuchKey): the scheduler must
 * run that map task again. The message names the map output: stage, partition, attempt and the
 * object's bucket and key.
 */
public final class MissingShuffleOutputException extends RuntimeException {
  private final transient ShuffleSegment segment;

  public MissingShuffleOutputException(ShuffleSegment segment, Throwable cause) {
    super("Shuffle map output is missing: stage " + segment.getProducerStageId() + ", partition "
        + segment.getProducerPartition() + ", attempt " + segment.getProducerAttempt() + " (s3://"
        + segment.getBucket() + "/" + segment.getObjectKey() + "); that map task must run again", cause);
    this.segment = segment;
  }

  /** The segment whose object is missing, with the producer's stage, partition and attempt. */
  public ShuffleSegment segment() {
    return segment;
  }

  public int stageId() {
    return segment.getProducerStageId();
  }

  public int partition() {
    return segment.getProducerPartition();
  }

  public int attempt() {
    return segment.getProducerAttempt();
  }

  public String objectKey() {
    return segment.getObjectKey();
  }

  /** The task error a reduce task reports: code MISSING_SHUFFLE_OUTPUT with the segment. */
  public TaskError toTaskError() {
    return TaskError.newBuilder()
        .setCode(ErrorCode.MISSING_SHUFFLE_OUTPUT)
        .setMessage(getMessage())
        .setMissing(segment)
        .build();
  }
}

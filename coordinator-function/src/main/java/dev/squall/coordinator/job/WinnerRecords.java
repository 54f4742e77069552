package dev.squall.coordinator.job;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.squall.proto.v1.StoredTaskResult;
import dev.squall.proto.v1.TaskResult;
import dev.squall.shuffle.ShuffleKeys;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Encodes a winning attempt's result for the job store ({@link StoredTaskResult}). A result over
 * {@link #INLINE_LIMIT} bytes (a writer task's commit messages for many data files) goes to S3 at
 * {@code <jobPrefix>/winners/s<stage>-p<partition>-a<attempt>.pb}, deleted with the job's data,
 * and the store keeps its key.
 */
final class WinnerRecords {
  /** Largest result kept in the store itself; well under a DynamoDB item's 400 KB. */
  static final int INLINE_LIMIT = 128 * 1024;

  private final S3Client s3;
  private final String bucket;

  WinnerRecords(S3Client s3, String bucket) {
    this.s3 = s3;
    this.bucket = bucket;
  }

  byte[] encode(TaskResult result) {
    byte[] bytes = result.toByteArray();
    if (bytes.length <= INLINE_LIMIT) {
      return StoredTaskResult.newBuilder().setInline(result).build().toByteArray();
    }
    String key = ShuffleKeys.jobRoot(PlanStore.jobPrefix(result.getJobId())) + "winners/s" + result.getStageId()
        + "-p" + result.getPartition() + "-a" + result.getAttempt() + ".pb";
    s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(bytes));
    return StoredTaskResult.newBuilder().setObjectKey(key).build().toByteArray();
  }

  /**
   * @throws IllegalStateException when the stored bytes or the S3 object are unreadable
   */
  TaskResult decode(byte[] stored) {
    try {
      StoredTaskResult s = StoredTaskResult.parseFrom(stored);
      if (s.hasInline()) {
        return s.getInline();
      }
      return TaskResult.parseFrom(s3.getObjectAsBytes(b -> b.bucket(bucket).key(s.getObjectKey())).asByteArray());
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("a stored task winner is unreadable: " + e.getMessage(), e);
    }
  }
}

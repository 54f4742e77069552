package dev.squall.shuffle;

import dev.squall.proto.v1.PipelinedInput;
import dev.squall.proto.v1.TaskResult;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Where the coordinator publishes a map task's recorded winner for consumers that started before
 * their producer stage finished (pipelined scheduling), and what those consumers read:
 *
 * <pre>
 *   &lt;jobPrefix&gt;/winners/s&lt;stage&gt;/m&lt;partition&gt;   ← the winner's TaskResult (no metrics)
 * </pre>
 *
 * <p>An object is put only after the job store recorded the winner (first writer wins), so a
 * consumer that reads it reads the one attempt every other consumer reads; a winner discarded
 * because its output was lost is retracted (deleted) before its task runs again. Everything lies
 * under the job's prefix and is deleted with its shuffle data.
 */
public final class PublishedWinners {
  private PublishedWinners() {}

  /** The key prefix of a producer stage's published winners, ending in a slash. */
  public static String prefix(String jobPrefix, int stageId) {
    return ShuffleKeys.jobRoot(jobPrefix) + "winners/s" + stageId + "/";
  }

  /** The key of one task's published winner. */
  public static String key(String jobPrefix, int stageId, int partition) {
    return prefix(jobPrefix, stageId) + "m" + partition;
  }

  /**
   * The pipelined shuffle input of a consumer reading partitions {@code [from, to)} of every map
   * output of a producer stage of {@code producerTasks} tasks.
   */
  public static PipelinedInput input(String bucket, String jobPrefix, int producerStageId, int producerTasks, int from,
      int to) {
    return PipelinedInput.newBuilder().setBucket(bucket).setWinnersPrefix(prefix(jobPrefix, producerStageId))
        .setProducerStageId(producerStageId).setProducerTasks(producerTasks).setFromPartition(from).setToPartition(to)
        .build();
  }

  /**
   * Publishes a recorded winner: its identity, output object and partition index.
   *
   * @throws IllegalArgumentException if the result is a failure or has no shuffle output
   */
  public static void publish(S3Client s3, String bucket, String jobPrefix, TaskResult winner) {
    if (winner.hasError() || winner.getOutputObjectKey().isEmpty()) {
      throw new IllegalArgumentException("task " + winner.getStageId() + "." + winner.getPartition() + " attempt "
          + winner.getAttempt() + " has no shuffle output to publish");
    }
    TaskResult published = TaskResult.newBuilder().setJobId(winner.getJobId()).setStageId(winner.getStageId())
        .setPartition(winner.getPartition()).setAttempt(winner.getAttempt())
        .setOutputObjectKey(winner.getOutputObjectKey()).addAllPartitions(winner.getPartitionsList()).build();
    s3.putObject(b -> b.bucket(bucket).key(key(jobPrefix, winner.getStageId(), winner.getPartition())),
        RequestBody.fromBytes(published.toByteArray()));
  }

  /** Withdraws a task's published winner (its output was lost; the task runs again). */
  public static void retract(S3Client s3, String bucket, String jobPrefix, int stageId, int partition) {
    s3.deleteObject(b -> b.bucket(bucket).key(key(jobPrefix, stageId, partition)));
  }
}

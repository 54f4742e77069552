package dev.squall.coordinator.job;

import dev.squall.coordinator.scheduler.Pipelining;
import dev.squall.proto.v1.TaskResult;
import dev.squall.shuffle.PublishedWinners;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Publishes a job's recorded winners in its shuffle bucket ({@link PublishedWinners}) for consumer
 * tasks that started before their producers finished, and stops the job's tasks through its
 * cancel marker when the job fails.
 */
final class S3WinnerBoard implements Pipelining.WinnerBoard {
  private final S3Client s3;
  private final String bucket;
  private final String jobPrefix;
  private final Runnable stop;

  /** @param stop puts the job's cancel marker (never throws) */
  S3WinnerBoard(S3Client s3, String bucket, String jobPrefix, Runnable stop) {
    this.s3 = s3;
    this.bucket = bucket;
    this.jobPrefix = jobPrefix;
    this.stop = stop;
  }

  @Override
  public void publish(TaskResult winner) {
    PublishedWinners.publish(s3, bucket, jobPrefix, winner);
  }

  @Override
  public void retract(int stageId, int partition) {
    PublishedWinners.retract(s3, bucket, jobPrefix, stageId, partition);
  }

  @Override
  public void stopTasks() {
    stop.run();
  }
}

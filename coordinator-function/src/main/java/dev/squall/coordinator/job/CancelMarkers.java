package dev.squall.coordinator.job;

import dev.squall.coordinator.scheduler.TaskSpecFactory;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Puts a job's cancel marker, the empty object {@link TaskSpecFactory#cancelMarkerKey} names, which
 * running tasks poll between batches. It lives under the job's prefix and is deleted with the job's
 * shuffle data.
 */
public final class CancelMarkers {
  private final S3Client s3;
  private final String bucket;

  public CancelMarkers(S3Client s3, String bucket) {
    this.s3 = s3;
    this.bucket = bucket;
  }

  /** Tells the job's running tasks to stop. */
  public void put(String jobId) {
    s3.putObject(b -> b.bucket(bucket).key(TaskSpecFactory.cancelMarkerKey(PlanStore.jobPrefix(jobId))),
        RequestBody.empty());
  }
}

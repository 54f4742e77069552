package dev.squall.coordinator.job;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.squall.coordinator.scheduler.JobPlan;
import dev.squall.proto.ProtoNesting;
import dev.squall.proto.v1.JobPlanRecord;
import dev.squall.shuffle.ShuffleKeys;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Keeps a planned job in S3 at {@code <jobPrefix>/plan.pb} (a {@link JobPlanRecord}), beside its
 * shuffle data and deleted with it, so that an invocation resuming the job does not plan again.
 * The plan lives in S3 rather than in the job store because split lists outgrow a store item.
 */
public final class PlanStore {
  private final S3Client s3;
  private final String bucket;

  public PlanStore(S3Client s3, String bucket) {
    this.s3 = s3;
    this.bucket = bucket;
  }

  /** The job prefix of a job id: every object of the job lives under it. */
  public static String jobPrefix(String jobId) {
    return "jobs/" + jobId;
  }

  static String key(String jobId) {
    return ShuffleKeys.jobRoot(jobPrefix(jobId)) + "plan.pb";
  }

  public void save(JobPlan plan) {
    s3.putObject(b -> b.bucket(bucket).key(key(plan.jobId())), RequestBody.fromBytes(plan.toRecord().toByteArray()));
  }

  /**
   * @throws IllegalStateException when the stored plan is unreadable
   */
  public JobPlan load(String jobId) {
    byte[] bytes = s3.getObjectAsBytes(b -> b.bucket(bucket).key(key(jobId))).asByteArray();
    try {
      return JobPlan.fromRecord(ProtoNesting.parse(JobPlanRecord.parser(), bytes));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("stored plan of job " + jobId + " is unreadable: " + e.getMessage(), e);
    }
  }
}

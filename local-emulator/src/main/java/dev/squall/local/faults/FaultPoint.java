package dev.squall.local.faults;

/**
 * A place where a fault may be injected, with what a rule can match on; fields that do not apply
 * to the target are null.
 *
 * @param target what is about to happen
 * @param stage the task's stage (TASK)
 * @param partition the task's partition (TASK)
 * @param attempt the task's attempt (TASK)
 * @param operation the S3 operation ({@code GetObject}, {@code PutObject}, ...), or the job state a
 *     coordinator is in ({@code QUEUED}, {@code RUNNING}, {@code FINALIZING}, {@code COMMITTED})
 * @param key the S3 object key (S3), the table name (COMMIT), or the job id (COORDINATOR)
 */
public record FaultPoint(FaultTarget target, Integer stage, Integer partition, Integer attempt, String operation,
    String key) {

  public static FaultPoint task(int stage, int partition, int attempt) {
    return new FaultPoint(FaultTarget.TASK, stage, partition, attempt, null, null);
  }

  public static FaultPoint s3(String operation, String key) {
    return new FaultPoint(FaultTarget.S3, null, null, null, operation, key);
  }

  public static FaultPoint commit(String table) {
    return new FaultPoint(FaultTarget.COMMIT, null, null, null, "commit", table);
  }

  public static FaultPoint coordinator(String state, String jobId) {
    return new FaultPoint(FaultTarget.COORDINATOR, null, null, null, state, jobId);
  }
}

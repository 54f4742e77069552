package dev.squall.jobstore;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Size limits every job store enforces, so that the embedded store refuses what DynamoDB would
 * (a DynamoDB item holds at most 400 KB). The job item's parts are capped so that together they
 * stay below that: SQL 256 KiB + summary 64 KiB + properties 16 KiB + error message 8 KiB +
 * result location 2 KiB + progress 1,000 stages.
 *
 * <p>Oversized values are refused with a {@link JobStoreException} naming the limit, except the
 * error message, which is cut to {@link #MAX_ERROR_MESSAGE_CHARS} so that failing a job always works.
 */
public final class JobStoreLimits {
  /** The SQL text, in UTF-8 bytes. */
  public static final int MAX_SQL_BYTES = 256 * 1024;
  /** The job summary bytes. */
  public static final int MAX_SUMMARY_BYTES = 64 * 1024;
  /** The per-query properties, keys and values together, in UTF-8 bytes. */
  public static final int MAX_PROPERTIES_BYTES = 16 * 1024;
  /** Largest caller identity (an IAM ARN or a JWT issuer and subject). */
  public static final int MAX_CALLER_BYTES = 2 * 1024;
  /** The result location, in UTF-8 bytes. */
  public static final int MAX_RESULT_LOCATION_BYTES = 2 * 1024;
  /** Stages in the per-stage progress. */
  public static final int MAX_PROGRESS_STAGES = 1_000;
  /** The error message, in chars; longer messages are cut and marked. */
  public static final int MAX_ERROR_MESSAGE_CHARS = 8 * 1024;
  /** A finished attempt's detail bytes. */
  public static final int MAX_ATTEMPT_DETAIL_BYTES = 64 * 1024;
  /** A task winner's result bytes. */
  public static final int MAX_WINNER_RESULT_BYTES = 256 * 1024;
  /** Job ids, in chars (DynamoDB partition keys may be up to 2,048 bytes). */
  public static final int MAX_JOB_ID_CHARS = 512;
  /** The largest stage id and partition the attempt and winner keys can carry. */
  public static final int MAX_STAGE_ID = 9_999;
  public static final int MAX_PARTITION = 999_999;
  public static final int MAX_ATTEMPT = 999_999;

  /** Names of concurrency-slot pools, in chars. */
  public static final int MAX_POOL_CHARS = 600;
  /** Slots in one concurrency-slot pool. */
  public static final int MAX_SLOTS = 10_000;

  private JobStoreLimits() {}

  /** Checks a new job; returns it unchanged. */
  public static NewJob check(NewJob job) {
    checkJobId(job.jobId());
    requireAtMost("SQL text of job " + job.jobId(), utf8Length(job.sql()), MAX_SQL_BYTES);
    long props = 0;
    for (Map.Entry<String, String> e : job.properties().entrySet()) {
      props += utf8Length(e.getKey()) + utf8Length(e.getValue());
    }
    requireAtMost("properties of job " + job.jobId(), props, MAX_PROPERTIES_BYTES);
    requireAtMost("caller identity of job " + job.jobId(), utf8Length(job.caller()), MAX_CALLER_BYTES);
    return job;
  }

  /** Checks an update and cuts an overlong error message; returns the update to store. */
  public static JobUpdate check(String jobId, JobUpdate update) {
    if (update.summary() != null) {
      requireAtMost("summary of job " + jobId, update.summary().length, MAX_SUMMARY_BYTES);
    }
    if (update.resultLocation() != null) {
      requireAtMost("result location of job " + jobId, utf8Length(update.resultLocation()), MAX_RESULT_LOCATION_BYTES);
    }
    List<StageProgress> progress = update.progress();
    if (progress != null && progress.size() > MAX_PROGRESS_STAGES) {
      throw new JobStoreException("Progress of job " + jobId + " has " + progress.size()
          + " stages; the job store keeps at most " + MAX_PROGRESS_STAGES);
    }
    JobError error = update.error();
    if (error != null && error.message().length() > MAX_ERROR_MESSAGE_CHARS) {
      String cut = error.message().substring(0, MAX_ERROR_MESSAGE_CHARS) + " ... (message truncated)";
      error = new JobError(error.code(), cut, error.line(), error.column());
      return new JobUpdate(progress, error, update.resultLocation(), update.summary());
    }
    return update;
  }

  /** Checks a job id. */
  public static void checkJobId(String jobId) {
    if (jobId.isEmpty() || jobId.length() > MAX_JOB_ID_CHARS) {
      throw new JobStoreException("Invalid job id: length " + jobId.length() + " (must be 1.." + MAX_JOB_ID_CHARS + ")");
    }
    if (jobId.startsWith("#")) {
      // Keys starting with '#' are the store's own (concurrency-slot pools).
      throw new JobStoreException("Invalid job id: it must not start with '#'");
    }
  }

  /** Checks a task's coordinates. */
  public static void checkTask(int stageId, int partition, int attempt) {
    if (stageId < 0 || stageId > MAX_STAGE_ID) {
      throw new JobStoreException("Invalid stage id: " + stageId + " (must be 0.." + MAX_STAGE_ID + ")");
    }
    if (partition < 0 || partition > MAX_PARTITION) {
      throw new JobStoreException("Invalid partition: " + partition + " (must be 0.." + MAX_PARTITION + ")");
    }
    if (attempt < 0 || attempt > MAX_ATTEMPT) {
      throw new JobStoreException("Invalid attempt: " + attempt + " (must be 0.." + MAX_ATTEMPT + ")");
    }
  }

  /** Checks a concurrency-slot pool's name and capacity. */
  public static void checkPool(String pool, int capacity) {
    if (pool.isEmpty() || pool.length() > MAX_POOL_CHARS) {
      throw new JobStoreException("Invalid slot pool name: length " + pool.length() + " (must be 1.." + MAX_POOL_CHARS
          + ")");
    }
    if (capacity < 1 || capacity > MAX_SLOTS) {
      throw new JobStoreException("Invalid capacity of slot pool " + pool + ": " + capacity + " (must be 1.."
          + MAX_SLOTS + ")");
    }
  }

  /** Checks a finished attempt's detail bytes (null allowed). */
  public static void checkDetail(String jobId, int stageId, int partition, int attempt, byte[] detail) {
    if (detail != null) {
      requireAtMost("detail of attempt " + attempt + " of task " + stageId + "/" + partition + " of job " + jobId,
          detail.length, MAX_ATTEMPT_DETAIL_BYTES);
    }
  }

  /** Checks a winner's result bytes. */
  public static void checkResult(String jobId, int stageId, int partition, int attempt, byte[] result) {
    requireAtMost("result of attempt " + attempt + " of task " + stageId + "/" + partition + " of job " + jobId,
        result.length, MAX_WINNER_RESULT_BYTES);
  }

  private static void requireAtMost(String what, long bytes, int limit) {
    if (bytes > limit) {
      throw new JobStoreException("The " + what + " is " + bytes + " bytes; the job store keeps at most " + limit
          + " bytes (" + (limit / 1024) + " KiB)");
    }
  }

  static long utf8Length(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }
}

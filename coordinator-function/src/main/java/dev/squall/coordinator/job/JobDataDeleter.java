package dev.squall.coordinator.job;

import dev.squall.shuffle.ShuffleCleaner;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Deletes what a job left under its prefix of the shuffle bucket (plan, task specs, map outputs,
 * winner records, cancel marker) once the job's end is recorded: one LIST and one DeleteObjects
 * per 1,000 keys ({@link ShuffleCleaner}).
 *
 * <p>{@link #deleteAfterAnswer} runs the deletion on one daemon thread of its own, so that a query's
 * answer does not wait for those requests (on S3 two round trips of 20–50 ms). At most {@code
 * maxPending} deletions wait; past that the caller deletes itself, so memory stays bounded and a
 * burst of queries slows down instead of piling up work. With {@code maxPending} 0 every deletion is
 * inline. {@link #deleteNow} is always inline: a failed or cancelled job is answered after its data
 * is gone.
 *
 * <p>In a Lambda function a deletion still queued when the handler returns runs when the execution
 * environment is next thawed; one that never runs (the environment is reclaimed) is removed by the
 * shuffle bucket's expiry of {@code jobs/} ({@code shuffle_expiry_days} in infra/storage.tf), as is
 * the data of a coordinator that died. Failures are logged, never raised: the job has ended.
 */
public final class JobDataDeleter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(JobDataDeleter.class);
  /** Default of {@code SQUALL_JOB_DATA_DELETION_MAX_PENDING}. */
  public static final int DEFAULT_MAX_PENDING = 256;
  /** How long {@link #close} waits for queued deletions. */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

  private final S3Client s3;
  private final String bucket;
  private final ThreadPoolExecutor background;

  private JobDataDeleter(S3Client s3, String bucket, int maxPending) {
    if (maxPending < 0) {
      throw new IllegalArgumentException("Invalid number of pending job data deletions " + maxPending + ": must be at least 0");
    }
    this.s3 = s3;
    this.bucket = bucket;
    if (maxPending == 0) {
      this.background = null;
    } else {
      this.background = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(maxPending),
          r -> {
            Thread t = new Thread(r, "squall-job-data-deletion");
            t.setDaemon(true);
            return t;
          });
    }
  }

  /** A deleter that deletes on the caller's thread, always. */
  public static JobDataDeleter inline(S3Client s3, String bucket) {
    return new JobDataDeleter(s3, bucket, 0);
  }

  /**
   * A deleter whose {@link #deleteAfterAnswer} runs on a thread of its own, with at most {@code
   * maxPending} deletions waiting (0: inline).
   *
   * @throws IllegalArgumentException when {@code maxPending} is negative
   */
  public static JobDataDeleter background(S3Client s3, String bucket, int maxPending) {
    return new JobDataDeleter(s3, bucket, maxPending);
  }

  /** Deletes the job's data before returning. */
  public void deleteNow(String jobId) {
    delete(jobId);
  }

  /** Deletes the job's data in the background, or inline when this deleter has no room left (or no thread). */
  public void deleteAfterAnswer(String jobId) {
    if (background == null) {
      delete(jobId);
      return;
    }
    try {
      background.execute(() -> delete(jobId));
    } catch (RejectedExecutionException full) {
      delete(jobId); // the queue is full, or the deleter is closing
    }
  }

  /**
   * Waits until every deletion handed over so far has run.
   *
   * @return false when {@code timeout} passed first
   */
  public boolean awaitIdle(Duration timeout) throws InterruptedException {
    long until = System.nanoTime() + timeout.toNanos();
    while (background != null && (background.getActiveCount() > 0 || !background.getQueue().isEmpty())) {
      if (System.nanoTime() > until) {
        return false;
      }
      Thread.sleep(5);
    }
    return true;
  }

  /** Stops taking deletions; waits up to 10 s for the queued ones. */
  @Override
  public void close() {
    if (background == null) {
      return;
    }
    background.shutdown();
    try {
      if (!background.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn("{} job data deletions still queued at shutdown; the bucket's expiry removes them",
            background.getQueue().size());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void delete(String jobId) {
    try {
      new ShuffleCleaner(s3).deleteJob(bucket, PlanStore.jobPrefix(jobId));
    } catch (RuntimeException e) {
      LOG.warn("job {}: deleting its shuffle data failed: {}", jobId, e.toString());
    }
  }
}

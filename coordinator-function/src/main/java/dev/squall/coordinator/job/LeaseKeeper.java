package dev.squall.coordinator.job;

import dev.squall.jobstore.JobStore;
import dev.squall.jobstore.JobStoreException;
import dev.squall.jobstore.Lease;
import dev.squall.jobstore.LeaseLostException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews a job's lease every third of its duration on a background thread while an invocation
 * works on the job, and notes when the lease is lost (another invocation took the job over), so
 * that the work stops. A renewal that fails for another reason (the store briefly unreachable) is
 * retried at the next period; the lease lapses only if renewals keep failing.
 */
final class LeaseKeeper implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseKeeper.class);

  private final JobStore store;
  private final Clock clock;
  private final Duration duration;
  private final ScheduledExecutorService timer;
  private volatile Lease lease;
  private volatile boolean lost;

  LeaseKeeper(JobStore store, Clock clock, Lease lease, Duration duration) {
    this.store = store;
    this.clock = clock;
    this.lease = lease;
    this.duration = duration;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "squall-lease-" + lease.jobId());
      t.setDaemon(true);
      return t;
    });
    long period = Math.max(50, duration.toMillis() / 3);
    timer.scheduleWithFixedDelay(this::renew, period, period, TimeUnit.MILLISECONDS);
  }

  private void renew() {
    if (lost) {
      return;
    }
    try {
      lease = store.renew(lease, clock.instant(), duration);
    } catch (LeaseLostException e) {
      // Also the normal end of a renewal racing the job's last transition.
      LOG.info("{}", e.getMessage());
      lost = true;
    } catch (JobStoreException e) {
      LOG.warn("renewing the lease of job {} failed, retrying: {}", lease.jobId(), e.getMessage());
    }
  }

  /** The current lease (its expiry moves on with each renewal; owner and epoch never change). */
  Lease lease() {
    return lease;
  }

  /** True once the store refused a renewal: another invocation holds the job. */
  boolean isLost() {
    return lost;
  }

  /** Notes a loss found by another write. */
  void markLost() {
    lost = true;
  }

  /**
   * Renews the lease now, fenced on its epoch: the check that must come right before a side effect
   * another invocation could duplicate (a catalog commit).
   *
   * @throws LeaseLostException if another invocation took the job over
   */
  void confirm() {
    if (lost) {
      throw new LeaseLostException(lease, "another invocation took the job over");
    }
    try {
      lease = store.renew(lease, clock.instant(), duration);
    } catch (LeaseLostException e) {
      lost = true;
      throw e;
    }
  }

  /** Stops renewing (the lease then lapses unless released). */
  @Override
  public void close() {
    timer.shutdownNow();
  }
}

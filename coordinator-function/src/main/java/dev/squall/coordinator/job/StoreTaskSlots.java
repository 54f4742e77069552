package dev.squall.coordinator.job;

import dev.squall.coordinator.scheduler.TaskSlots;
import dev.squall.jobstore.ConcurrencySlot;
import dev.squall.jobstore.JobStore;
import dev.squall.proto.v1.TaskSpec;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Task concurrency slots from the job store ({@link JobStore#acquireSlot}): an attempt holds a slot
 * of its job's pool ({@value #JOB_POOL_PREFIX}{@code <job id>}, when the query set a job-wide cap)
 * and one of the account's pool ({@value #ACCOUNT_POOL}) while it runs. Every coordinator on the
 * store shares the account's pool, so parallel jobs together stay under the cap instead of failing
 * each other with Lambda's 429. A slot is leased for longer than a task invocation can last, so a
 * coordinator that dies holding slots gives them back when their leases lapse.
 *
 * <p>While no slot is free the invoker's thread waits, retrying after a jittered pause that grows
 * from 20 ms to 500 ms.
 */
final class StoreTaskSlots implements TaskSlots {
  private static final Logger LOG = LoggerFactory.getLogger(StoreTaskSlots.class);
  /** The pool every coordinator on the store shares. */
  static final String ACCOUNT_POOL = "account";
  /** Prefix of a job's own pool. */
  static final String JOB_POOL_PREFIX = "job/";
  private static final long FIRST_PAUSE_MILLIS = 20;
  private static final long LONGEST_PAUSE_MILLIS = 500;

  private final JobStore store;
  private final Clock clock;
  private final String jobId;
  private final int jobCap;
  private final int accountCap;
  private final Duration lease;

  /**
   * @param jobCap the job's cap, or 0 for none beyond the account's
   * @param accountCap the account's cap, at least 1
   * @param lease how long a slot is held unless given back: longer than a task invocation may last
   */
  StoreTaskSlots(JobStore store, Clock clock, String jobId, int jobCap, int accountCap, Duration lease) {
    if (jobCap < 0 || accountCap < 1) {
      throw new IllegalArgumentException("Invalid caps: job " + jobCap + ", account " + accountCap);
    }
    this.store = store;
    this.clock = clock;
    this.jobId = jobId;
    this.jobCap = jobCap;
    this.accountCap = accountCap;
    this.lease = lease;
  }

  @Override
  public Held acquire(TaskSpec spec, BooleanSupplier stop) throws InterruptedException {
    String holder = jobId + "/" + spec.getStageId() + "." + spec.getPartition() + "." + spec.getAttempt();
    long pause = FIRST_PAUSE_MILLIS;
    while (!stop.getAsBoolean()) {
      Held held = tryAcquire(holder);
      if (held != null) {
        return held;
      }
      Thread.sleep(ThreadLocalRandom.current().nextLong(pause / 2, pause + 1));
      pause = Math.min(LONGEST_PAUSE_MILLIS, pause * 2);
    }
    return null;
  }

  /**
   * Both slots, or none (a job slot taken without an account slot is given back at once). A store
   * that cannot be reached counts as no free slot: the attempt waits rather than fails.
   */
  private Held tryAcquire(String holder) {
    try {
      return takeBoth(holder);
    } catch (RuntimeException e) {
      LOG.warn("job {}: taking a task slot failed; trying again: {}", jobId, e.toString());
      return null;
    }
  }

  private Held takeBoth(String holder) {
    ConcurrencySlot jobSlot = null;
    if (jobCap > 0) {
      Optional<ConcurrencySlot> s = store.acquireSlot(JOB_POOL_PREFIX + jobId, jobCap, holder, clock.instant(), lease);
      if (s.isEmpty()) {
        return null;
      }
      jobSlot = s.get();
    }
    Optional<ConcurrencySlot> account = store.acquireSlot(ACCOUNT_POOL, accountCap, holder, clock.instant(), lease);
    if (account.isEmpty()) {
      release(jobSlot);
      return null;
    }
    ConcurrencySlot j = jobSlot;
    AtomicBoolean closed = new AtomicBoolean();
    return () -> {
      if (closed.compareAndSet(false, true)) {
        release(account.get());
        release(j);
      }
    };
  }

  /** Gives a slot back; a failure only delays it (its lease lapses). */
  private void release(ConcurrencySlot slot) {
    if (slot == null) {
      return;
    }
    try {
      store.releaseSlot(slot);
    } catch (RuntimeException e) {
      LOG.warn("job {}: giving back slot {} of pool {} failed; it is free when its lease lapses: {}", jobId,
          slot.index(), slot.pool(), e.toString());
    }
  }
}

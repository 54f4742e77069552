package dev.squall.coordinator.job;

import dev.squall.coordinator.scheduler.TaskSlots;
import dev.squall.jobstore.ConcurrencySlot;
import dev.squall.jobstore.JobStore;
import dev.squall.jobstore.JobStoreLimits;
import dev.squall.proto.v1.TaskSpec;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
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
 *
 * <p>Priority ({@link SlotPriority}): while any of a job's attempts waits, the job announces itself
 * with one short-leased slot of the pool {@value #WAITING_POOL} whose holder names its level
 * ({@code p<level>/<job id>}), renewed while they wait and given back when none waits. An attempt
 * takes no account slot while another job waits at a higher level, so when a slot frees up the
 * highest waiting level gets it: a high-priority job overtakes a running low-priority one at its
 * next free slot. The waiting pool is read at most once per {@value #WAITERS_CACHE_MILLIS} ms per
 * job (its attempts share the read).
 */
final class StoreTaskSlots implements TaskSlots {
  private static final Logger LOG = LoggerFactory.getLogger(StoreTaskSlots.class);
  /** The pool every coordinator on the store shares. */
  static final String ACCOUNT_POOL = "account";
  /** Prefix of a job's own pool. */
  static final String JOB_POOL_PREFIX = "job/";
  /** The pool where waiting attempts announce their priority level. */
  static final String WAITING_POOL = "waiting";
  /** How long a waiting attempt's announcement lasts unless renewed (a dead coordinator's lapses soon). */
  static final Duration WAITING_LEASE = Duration.ofSeconds(10);
  static final long WAITERS_CACHE_MILLIS = 50;
  private static final long FIRST_PAUSE_MILLIS = 20;
  private static final long LONGEST_PAUSE_MILLIS = 500;

  private final JobStore store;
  private final Clock clock;
  private final String jobId;
  private final int jobCap;
  private final int accountCap;
  private final Duration lease;
  private final SlotPriority priority;
  /** The waiting pool's live holders as last read, and when (shared by the job's invoker threads). */
  private volatile Waiters waiters = new Waiters(List.of(), 0L);

  private record Waiters(List<String> holders, long readAtMillis) {}

  /** The job's announcement in the waiting pool, while any of its attempts waits (guarded by this). */
  private ConcurrencySlot announced;
  private int announcedLevel;
  private int waitingAttempts;

  /** As the full constructor, at the default priority. */
  StoreTaskSlots(JobStore store, Clock clock, String jobId, int jobCap, int accountCap, Duration lease) {
    this(store, clock, jobId, jobCap, accountCap, lease, SlotPriority.defaults());
  }

  /**
   * @param jobCap the job's cap, or 0 for none beyond the account's
   * @param accountCap the account's cap, at least 1
   * @param lease how long a slot is held unless given back: longer than a task invocation may last
   * @param priority how the job's attempts rank for account slots
   */
  StoreTaskSlots(JobStore store, Clock clock, String jobId, int jobCap, int accountCap, Duration lease,
      SlotPriority priority) {
    if (jobCap < 0 || accountCap < 1) {
      throw new IllegalArgumentException("Invalid caps: job " + jobCap + ", account " + accountCap);
    }
    this.store = store;
    this.clock = clock;
    this.jobId = jobId;
    this.jobCap = jobCap;
    this.accountCap = accountCap;
    this.lease = lease;
    this.priority = priority;
  }

  @Override
  public Held acquire(TaskSpec spec, BooleanSupplier stop) throws InterruptedException {
    String holder = jobId + "/" + spec.getStageId() + "." + spec.getPartition() + "." + spec.getAttempt();
    long pause = FIRST_PAUSE_MILLIS;
    long since = clock.millis();
    boolean waiting = false;
    try {
      while (!stop.getAsBoolean()) {
        int level = priority.after(Duration.ofMillis(clock.millis() - since));
        if (!higherLevelWaits(level)) {
          Held held = tryAcquire(holder);
          if (held != null) {
            return held;
          }
        }
        if (!waiting) {
          waiting = true;
          synchronized (this) {
            waitingAttempts++;
          }
        }
        announce(level);
        Thread.sleep(ThreadLocalRandom.current().nextLong(pause / 2, pause + 1));
        pause = Math.min(LONGEST_PAUSE_MILLIS, pause * 2);
      }
      return null;
    } finally {
      if (waiting) {
        stopWaiting();
      }
    }
  }

  /** Whether an attempt of another job waits at a level above {@code level}. */
  private boolean higherLevelWaits(int level) {
    if (level >= SlotPriority.MAX) {
      return false;
    }
    Waiters w = waiters;
    long now = clock.millis();
    if (now - w.readAtMillis() >= WAITERS_CACHE_MILLIS) {
      try {
        w = new Waiters(store.heldSlots(WAITING_POOL, clock.instant()).stream().map(ConcurrencySlot::holder).toList(),
            now);
      } catch (RuntimeException e) {
        LOG.warn("job {}: reading waiting task attempts failed; taking slots by arrival: {}", jobId, e.toString());
        w = new Waiters(List.of(), now);
      }
      waiters = w;
    }
    for (String h : w.holders()) {
      int slash = h.indexOf('/');
      if (h.startsWith("p") && slash > 1 && !h.substring(slash + 1).equals(jobId)) {
        try {
          if (Integer.parseInt(h.substring(1, slash)) > level) {
            return true;
          }
        } catch (NumberFormatException ignored) {
          // Not an announcement of this format: it ranks nothing.
        }
      }
    }
    return false;
  }

  /**
   * Keeps the job announced in the waiting pool ({@code p<level>/<job id>}) at the highest level
   * of its waiting attempts: taken the first time, and again when the level rose or the lease is
   * about to lapse (the old one given back). Nobody ranks below the lowest level, so it is never
   * announced.
   */
  private synchronized void announce(int level) {
    int wanted = Math.max(level, announced == null ? 0 : announcedLevel);
    if (wanted <= SlotPriority.MIN || waitingAttempts == 0) {
      return;
    }
    boolean fresh = announced != null && announcedLevel == wanted
        && announced.expiresAt().isAfter(clock.instant().plus(WAITING_LEASE.dividedBy(2)));
    if (fresh) {
      return;
    }
    try {
      Optional<ConcurrencySlot> taken = store.acquireSlot(WAITING_POOL, JobStoreLimits.MAX_SLOTS,
          "p" + wanted + "/" + jobId, clock.instant(), WAITING_LEASE);
      release(announced);
      announced = taken.orElse(null);
      announcedLevel = taken.isPresent() ? wanted : 0;
    } catch (RuntimeException e) {
      LOG.warn("job {}: announcing waiting task attempts failed: {}", jobId, e.toString());
    }
  }

  /** One attempt stopped waiting; the last one withdraws the job's announcement. */
  private synchronized void stopWaiting() {
    if (--waitingAttempts == 0) {
      release(announced);
      announced = null;
      announcedLevel = 0;
    }
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

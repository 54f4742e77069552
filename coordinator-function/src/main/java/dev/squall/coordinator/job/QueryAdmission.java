package dev.squall.coordinator.job;

import dev.squall.jobstore.ConcurrencySlot;
import dev.squall.jobstore.JobRecord;
import dev.squall.jobstore.JobStore;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds the queries running at once, so that the invocations driving them never take every one
 * of the coordinator's reserved concurrency: the rest stays free for status, result and cancel
 * requests. A submission takes a slot of the job store's pool {@value #POOL} (holder: the job id)
 * before its job exists; when none is free it is refused, and the client is answered 429 as if
 * Lambda had throttled it (nothing was created, so sending it again is safe). The slot is given
 * back when the job ends, found so by the invocation that drove it or by the sweep; one whose
 * release was lost lapses with the job's time limit.
 */
public final class QueryAdmission {
  private static final Logger LOG = LoggerFactory.getLogger(QueryAdmission.class);
  /** The pool of running queries, shared by every coordinator on the store. */
  static final String POOL = "queries";
  /** Added to the job's time limit for the slot's lease: a job never runs past its limit. */
  private static final Duration LEASE_MARGIN = Duration.ofMinutes(5);

  private final JobStore store;
  private final Clock clock;
  private final int capacity;
  private final Duration lease;

  /**
   * @param capacity queries running at once, 0 for no cap (then nothing is read or written)
   * @param jobTimeout a job's time limit from its submission
   */
  public QueryAdmission(JobStore store, Clock clock, int capacity, Duration jobTimeout) {
    if (capacity < 0) {
      throw new IllegalArgumentException("Invalid running queries: " + capacity);
    }
    this.store = store;
    this.clock = clock;
    this.capacity = capacity;
    this.lease = jobTimeout.plus(LEASE_MARGIN);
  }

  /** The cap on running queries (0: none). */
  public int capacity() {
    return capacity;
  }

  /**
   * Takes a running-query slot for {@code jobId}.
   *
   * @return false when {@link #capacity()} queries run already
   */
  public boolean admit(String jobId) {
    if (capacity == 0) {
      return true;
    }
    return store.acquireSlot(POOL, capacity, jobId, clock.instant(), lease).isPresent();
  }

  /** Gives back {@code jobId}'s slot, if it holds one (idempotent). */
  public void release(String jobId) {
    if (capacity == 0) {
      return;
    }
    Optional<ConcurrencySlot> held = store.heldSlots(POOL, clock.instant()).stream()
        .filter(s -> s.holder().equals(jobId)).findFirst();
    held.ifPresent(store::releaseSlot);
  }

  /** Gives back {@code job}'s slot when the job has ended. */
  public void releaseIfEnded(JobRecord job) {
    if (job.state().isTerminal()) {
      release(job.jobId());
    }
  }

  /**
   * Gives back the slots of jobs that have ended or are gone (their driver died before giving them
   * back); run by the sweep.
   *
   * @return the slots given back
   */
  public int releaseEnded() {
    if (capacity == 0) {
      return 0;
    }
    int released = 0;
    for (ConcurrencySlot slot : store.heldSlots(POOL, clock.instant())) {
      boolean ended = store.get(slot.holder()).map(j -> j.state().isTerminal()).orElse(true);
      if (ended && store.releaseSlot(slot)) {
        LOG.info("running-query slot of job {} given back by the sweep", slot.holder());
        released++;
      }
    }
    return released;
  }
}

package dev.squall.jobstore;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job store protocol, shared by every backend: argument checks and size limits
 * ({@link JobStoreLimits}), the allowed transitions ({@link JobState#canMoveTo}), what reaching a
 * terminal state sets (finish time, expiry = finish time plus retention, lease cleared), the choice
 * of a concurrency slot, and the diagnosis of a refused write ({@link WriteRefusals}, from the job
 * as read after the refusal). A backend implements only the conditional writes and reads below,
 * each one atomic write whose condition is spelled in the backend's own terms (an SQL
 * {@code WHERE}, a DynamoDB {@code ConditionExpression}); as Iceberg's
 * {@code BaseMetastoreTableOperations} keeps the commit protocol and leaves each catalog only its
 * atomic swap.
 *
 * <p>The conditions a backend must apply are stated on each method; "holds the lease" means the
 * stored epoch and owner equal the lease's.
 */
public abstract class ConditionalJobStore implements JobStore {
  private static final Logger LOG = LoggerFactory.getLogger(ConditionalJobStore.class);
  /** Reads of a slot pool one acquisition makes before it gives up on a pool that others keep filling. */
  private static final int SLOT_ROUNDS = 4;

  private final Duration retention;

  /**
   * @param retention how long finished jobs are kept: their {@code expiresAt} is the finish time plus this
   * @throws IllegalArgumentException if the retention is negative
   */
  protected ConditionalJobStore(Duration retention) {
    this.retention = Objects.requireNonNull(retention, "retention");
    if (retention.isNegative()) {
      throw new IllegalArgumentException("Invalid retention: " + retention + " (must not be negative)");
    }
  }

  /** How long finished jobs are kept. */
  protected final Duration retention() {
    return retention;
  }

  // ---- what a backend writes and reads

  /** Inserts a QUEUED job, version 1, epoch 0, if the id is new; empty if it exists. */
  protected abstract Optional<JobRecord> insertJob(NewJob job, Instant now);

  /**
   * Sets owner, {@code leaseExpiresAt = expires}, epoch + 1 if the job is not terminal and has no
   * owner, or its lease expired at {@code now} ({@code leaseExpiresAt <= now}), or {@code owner}
   * owns it; empty if refused (or there is no job).
   */
  protected abstract Optional<JobRecord> tryAcquire(String jobId, String owner, Instant now, Instant expires);

  /** Sets {@code leaseExpiresAt = expires} if the caller holds the lease and the job is not terminal. */
  protected abstract boolean tryRenew(Lease lease, Instant now, Instant expires);

  /** Clears owner and lease expiry if the caller holds the lease. */
  protected abstract boolean tryRelease(Lease lease, Instant now);

  /**
   * Sets state {@code to} and the update's non-null fields if the caller holds the lease and the job
   * is in {@code from}; when {@code terminal} is given, also sets its finish time and expiry and
   * clears the lease (and any marker of an unfinished job). Empty if refused.
   */
  protected abstract Optional<JobRecord> tryTransition(Lease lease, JobState from, JobState to, JobUpdate update,
      Instant now, Terminal terminal);

  /** Sets the update's non-null fields if the caller holds the lease and the job is not terminal. */
  protected abstract Optional<JobRecord> tryUpdate(Lease lease, JobUpdate update, Instant now);

  /**
   * Sets the cancel flag if the job exists, is not terminal and has no cancel request yet; empty if
   * refused.
   */
  protected abstract Optional<JobRecord> tryRequestCancel(String jobId, Instant now);

  /** Up to {@code limit} non-terminal jobs, oldest first ({@code limit} is at least 0). */
  protected abstract List<JobRecord> listUnfinished(int limit);

  /** Inserts a RUNNING attempt if it is new. */
  protected abstract boolean insertAttempt(String jobId, int stageId, int partition, int attempt, long leaseEpoch,
      Instant now);

  /**
   * Sets an attempt's end ({@code state} is SUCCEEDED or FAILED) if it is absent (then with epoch 0
   * and no start), RUNNING, or already in {@code state}.
   */
  protected abstract boolean endAttempt(String jobId, int stageId, int partition, int attempt, AttemptState state,
      byte[] detail, Instant now);

  /** Inserts a task's winner if it has none; returns the task's winner after the write. */
  protected abstract TaskWinner insertWinnerIfAbsent(String jobId, int stageId, int partition, int attempt,
      byte[] result);

  /** Deletes a task's winner if it is {@code attempt}. */
  protected abstract boolean deleteWinner(String jobId, int stageId, int partition, int attempt);

  /** Every slot item of a pool, live or lapsed. */
  protected abstract List<ConcurrencySlot> readSlots(String pool);

  /** Writes slot {@code index} of {@code pool} for {@code holder} if it is absent or lapsed at {@code now}. */
  protected abstract boolean tryTakeSlot(String pool, int index, String holder, Instant now, Instant expires);

  /** Deletes a slot if it is still held by {@code slot.holder()} with the same expiry. */
  protected abstract boolean tryFreeSlot(ConcurrencySlot slot);

  /**
   * What reaching a terminal state sets besides the state.
   *
   * @param finishedAt the finish time
   * @param expiresAt when the job may be deleted: finish time plus retention
   */
  protected record Terminal(Instant finishedAt, Instant expiresAt) {}

  // ---- the protocol

  @Override
  public final JobRecord create(NewJob job, Instant now) {
    JobStoreLimits.check(job);
    return insertJob(job, now).orElseThrow(() -> new StateConflictException("Job " + job.jobId() + " exists already"));
  }

  @Override
  public final Optional<Lease> acquire(String jobId, String owner, Instant now, Duration leaseFor) {
    Objects.requireNonNull(owner, "owner");
    Optional<JobRecord> job = tryAcquire(jobId, owner, now, now.plus(leaseFor));
    if (job.isPresent()) {
      return Optional.of(new Lease(jobId, owner, job.get().leaseEpoch(), job.get().leaseExpiresAt()));
    }
    if (get(jobId).isEmpty()) {
      throw new NoSuchJobException(jobId);
    }
    return Optional.empty();
  }

  @Override
  public final Lease renew(Lease lease, Instant now, Duration leaseFor) {
    Instant expires = Instant.ofEpochMilli(now.plus(leaseFor).toEpochMilli());
    if (!tryRenew(lease, now, expires)) {
      throw WriteRefusals.leaseLost(lease, get(lease.jobId()));
    }
    return new Lease(lease.jobId(), lease.owner(), lease.epoch(), expires);
  }

  @Override
  public final void release(Lease lease, Instant now) {
    if (!tryRelease(lease, now)) {
      LOG.debug("Lease of job {} (epoch {}) was lost before its release", lease.jobId(), lease.epoch());
    }
  }

  @Override
  public final JobRecord transition(Lease lease, JobState from, JobState to, JobUpdate update, Instant now) {
    if (!from.canMoveTo(to)) {
      throw new StateConflictException("Job " + lease.jobId() + " may not move from " + from + " to " + to);
    }
    JobUpdate checked = JobStoreLimits.check(lease.jobId(), update);
    Terminal terminal = to.isTerminal() ? new Terminal(now, now.plus(retention)) : null;
    return tryTransition(lease, from, to, checked, now, terminal)
        .orElseThrow(() -> WriteRefusals.ofTransition(lease, get(lease.jobId()), from, to));
  }

  @Override
  public final JobRecord update(Lease lease, JobUpdate update, Instant now) {
    JobUpdate checked = JobStoreLimits.check(lease.jobId(), update);
    return tryUpdate(lease, checked, now).orElseThrow(() -> WriteRefusals.ofUpdate(lease, get(lease.jobId())));
  }

  @Override
  public final JobRecord requestCancel(String jobId, Instant now) {
    return tryRequestCancel(jobId, now).or(() -> get(jobId)).orElseThrow(() -> new NoSuchJobException(jobId));
  }

  @Override
  public final List<JobRecord> unfinished(int limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("Invalid limit: " + limit);
    }
    return limit == 0 ? List.of() : listUnfinished(limit);
  }

  @Override
  public final void attemptStarted(String jobId, int stageId, int partition, int attempt, long leaseEpoch,
      Instant now) {
    JobStoreLimits.checkTask(stageId, partition, attempt);
    if (!insertAttempt(jobId, stageId, partition, attempt, leaseEpoch, now)) {
      throw new StateConflictException("Attempt " + attempt + " of task " + stageId + "/" + partition + " of job "
          + jobId + " was recorded before");
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>An attempt whose start was not recorded gets lease epoch 0 and a null start time. Finishing
   * an attempt again in the same state only overwrites the detail; finishing it in the other state
   * is refused with {@link StateConflictException}.
   */
  @Override
  public final void attemptFinished(String jobId, int stageId, int partition, int attempt, AttemptState state,
      byte[] detail, Instant now) {
    JobStoreLimits.checkTask(stageId, partition, attempt);
    JobStoreLimits.checkDetail(jobId, stageId, partition, attempt, detail);
    if (state == AttemptState.RUNNING) {
      throw new IllegalArgumentException("An attempt finishes as SUCCEEDED or FAILED, not RUNNING");
    }
    if (!endAttempt(jobId, stageId, partition, attempt, state, detail, now)) {
      throw new StateConflictException("Attempt " + attempt + " of task " + stageId + "/" + partition + " of job "
          + jobId + " finished before in another state than " + state);
    }
  }

  @Override
  public final TaskWinner recordWinner(String jobId, int stageId, int partition, int attempt, byte[] result) {
    JobStoreLimits.checkTask(stageId, partition, attempt);
    Objects.requireNonNull(result, "result");
    JobStoreLimits.checkResult(jobId, stageId, partition, attempt, result);
    return insertWinnerIfAbsent(jobId, stageId, partition, attempt, result);
  }

  @Override
  public final boolean discardWinner(String jobId, int stageId, int partition, int lostAttempt) {
    return deleteWinner(jobId, stageId, partition, lostAttempt);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Reads the pool, tries the free slots (absent or lapsed) in random order, each with one
   * conditional write, and reads again when racing callers took them all first; gives up after a
   * few rounds (answering empty, as if the pool were full). Costs one read and usually one write.
   */
  @Override
  public final Optional<ConcurrencySlot> acquireSlot(String pool, int capacity, String holder, Instant now,
      Duration leaseFor) {
    JobStoreLimits.checkPool(pool, capacity);
    Objects.requireNonNull(holder, "holder");
    Instant expires = Instant.ofEpochMilli(now.plus(leaseFor).toEpochMilli());
    for (int round = 0; round < SLOT_ROUNDS; round++) {
      List<Integer> free = freeSlots(readSlots(pool), capacity, now);
      if (free.isEmpty()) {
        return Optional.empty();
      }
      for (int index : free) {
        if (tryTakeSlot(pool, index, holder, now, expires)) {
          return Optional.of(new ConcurrencySlot(pool, index, holder, expires));
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Indices below {@code capacity} with no live holder, shuffled so that racing callers spread over
   * them; none when {@code capacity} slots are live (slots above a capacity that was lowered count).
   */
  private static List<Integer> freeSlots(List<ConcurrencySlot> slots, int capacity, Instant now) {
    Set<Integer> live = new HashSet<>();
    for (ConcurrencySlot s : slots) {
      if (s.isLiveAt(now)) {
        live.add(s.index());
      }
    }
    List<Integer> free = new ArrayList<>();
    if (live.size() >= capacity) {
      return free;
    }
    for (int i = 0; i < capacity; i++) {
      if (!live.contains(i)) {
        free.add(i);
      }
    }
    Collections.shuffle(free, ThreadLocalRandom.current());
    return free;
  }

  @Override
  public final boolean releaseSlot(ConcurrencySlot slot) {
    return tryFreeSlot(slot);
  }

  @Override
  public final List<ConcurrencySlot> heldSlots(String pool, Instant now) {
    return readSlots(pool).stream().filter(s -> s.isLiveAt(now))
        .sorted((a, b) -> Integer.compare(a.index(), b.index())).toList();
  }
}

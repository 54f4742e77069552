package dev.squall.jobstore;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Durable state of Squall jobs, shared by every coordinator invocation: one job item per job and
 * one item per task attempt and per task winner. Any invocation can pick a job up where it stood.
 *
 * <p>Every write that advances a job is conditional, so that two coordinators never both advance
 * it: {@link #acquire} grants a lease with a new fencing epoch only when no live lease is held;
 * {@link #transition} and {@link #update} succeed only while the stored epoch equals the lease's
 * (else {@link LeaseLostException}) and the job is in the expected state (else
 * {@link StateConflictException}). {@link #recordWinner} is first-writer-wins per task.
 *
 * <p>Times are passed in ({@code now}) so that callers and tests control the clock; stores compare
 * them with stored instants at millisecond precision. Implementations are thread-safe.
 */
public interface JobStore extends AutoCloseable {

  /**
   * Stores a new job in state QUEUED.
   *
   * @throws StateConflictException if the job id exists
   */
  JobRecord create(NewJob job, Instant now);

  /** The job, or empty if there is none with this id (never created, or expired). */
  Optional<JobRecord> get(String jobId);

  /**
   * Takes the lease of a non-terminal job when nobody holds a live one (no owner, or the lease
   * expired at {@code now}), incrementing the epoch. Also succeeds when {@code owner} already holds
   * the live lease (a renewal that keeps its epoch is {@link #renew}; this call always takes a new
   * epoch).
   *
   * @return the lease, or empty when another owner holds a live lease or the job is terminal
   * @throws NoSuchJobException if there is no such job
   */
  Optional<Lease> acquire(String jobId, String owner, Instant now, Duration leaseFor);

  /**
   * Extends a held lease to {@code now + leaseFor}.
   *
   * @throws LeaseLostException if the stored epoch or owner differs, or the job is terminal
   */
  Lease renew(Lease lease, Instant now, Duration leaseFor);

  /**
   * Gives up a lease so that another invocation may acquire the job at once (hand-over). Does
   * nothing if the lease is already lost.
   */
  void release(Lease lease, Instant now);

  /**
   * Moves the job from {@code from} to {@code to} under a lease, applying {@code update}. On reaching
   * a terminal state the store sets {@code finishedAt}, clears the lease and sets {@code expiresAt}
   * to now plus the store's retention.
   *
   * @return the job after the write
   * @throws LeaseLostException if the lease is not the job's current one
   * @throws StateConflictException if the job is not in {@code from}, or {@code from → to} is not
   *     allowed ({@link JobState#canMoveTo})
   */
  JobRecord transition(Lease lease, JobState from, JobState to, JobUpdate update, Instant now);

  /**
   * Applies {@code update} (progress, summary, ...) without a state change, under a lease.
   *
   * @throws LeaseLostException if the lease is not the job's current one
   * @throws StateConflictException if the job is terminal
   */
  JobRecord update(Lease lease, JobUpdate update, Instant now);

  /**
   * Marks a non-terminal job as cancel-requested (no lease needed; the owner notices). A terminal
   * job is returned unchanged.
   *
   * @return the job after the write
   * @throws NoSuchJobException if there is no such job
   */
  JobRecord requestCancel(String jobId, Instant now);

  /** Non-terminal jobs, oldest first, at most {@code limit}: for the sweep that resumes abandoned jobs. */
  List<JobRecord> unfinished(int limit);

  /**
   * Records that an attempt started (state RUNNING).
   *
   * @throws StateConflictException if this attempt of this task was recorded before
   */
  void attemptStarted(String jobId, int stageId, int partition, int attempt, long leaseEpoch, Instant now);

  /**
   * Records how an attempt ended ({@link AttemptState#SUCCEEDED} or {@link AttemptState#FAILED}),
   * with opaque detail bytes (at most 64 KiB). Creates the attempt item if its start was not
   * recorded.
   */
  void attemptFinished(String jobId, int stageId, int partition, int attempt, AttemptState state, byte[] detail,
      Instant now);

  /** Every recorded attempt of the job, ordered by stage, partition, attempt. */
  List<TaskAttempt> attempts(String jobId);

  /**
   * Records a successful attempt as its task's winner unless the task has one already
   * (first writer wins, atomically).
   *
   * @param result the attempt's serialized TaskResult, at most 256 KiB
   * @return the task's winner: this attempt, or the one recorded before
   */
  TaskWinner recordWinner(String jobId, int stageId, int partition, int attempt, byte[] result);

  /**
   * Removes a task's winner whose output was lost (a consumer found its shuffle object missing), so
   * that the task's next successful attempt can be recorded as the winner. Removes nothing when the
   * winner is no longer {@code lostAttempt} (another invocation replaced it already).
   *
   * @return true if the winner was removed by this call
   */
  boolean discardWinner(String jobId, int stageId, int partition, int lostAttempt);

  /** Every winner of the job, ordered by stage and partition. */
  List<TaskWinner> winners(String jobId);

  /**
   * Takes a free slot of the pool {@code pool}, which has {@code capacity} slots, for
   * {@code holder} until {@code now + leaseFor}: a counter of concurrent work shared by every
   * coordinator on the store (task invocations of one job, or of the whole account). A slot whose
   * holder never released it is free again once its lease lapses, so a crashed coordinator's slots
   * come back. Of racing callers, no more than {@code capacity} hold a slot at once.
   *
   * @param pool the pool's name, 1 to {@link JobStoreLimits#MAX_POOL_CHARS} characters
   * @param capacity slots in the pool, 1 to {@link JobStoreLimits#MAX_SLOTS}
   * @return the slot taken, or empty when {@code capacity} slots are held
   * @throws JobStoreException if the pool name or capacity is out of range
   */
  Optional<ConcurrencySlot> acquireSlot(String pool, int capacity, String holder, Instant now, Duration leaseFor);

  /**
   * Frees a slot while its holder still has it; does nothing when it lapsed and was taken by
   * another holder since.
   *
   * @return true if this call freed the slot
   */
  boolean releaseSlot(ConcurrencySlot slot);

  /** The slots of {@code pool} held at {@code now}, by index. */
  List<ConcurrencySlot> heldSlots(String pool, Instant now);

  /**
   * Deletes jobs (with their attempts and winners) whose {@code expiresAt} passed. Stores with
   * native expiry (DynamoDB TTL) may do nothing here.
   *
   * @return the number of jobs deleted
   */
  int purgeExpired(Instant now);

  /** Releases connections; the store is unusable afterwards. */
  @Override
  void close();
}

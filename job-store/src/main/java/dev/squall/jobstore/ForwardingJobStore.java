package dev.squall.jobstore;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A {@link JobStore} that passes every call to another; subclasses override the calls they watch
 * or change (counting them, failing them in tests).
 */
public abstract class ForwardingJobStore implements JobStore {
  protected final JobStore delegate;

  protected ForwardingJobStore(JobStore delegate) {
    this.delegate = delegate;
  }

  @Override
  public JobRecord create(NewJob job, Instant now) {
    return delegate.create(job, now);
  }

  @Override
  public Optional<JobRecord> get(String jobId) {
    return delegate.get(jobId);
  }

  @Override
  public Optional<Lease> acquire(String jobId, String owner, Instant now, Duration leaseFor) {
    return delegate.acquire(jobId, owner, now, leaseFor);
  }

  @Override
  public Lease renew(Lease lease, Instant now, Duration leaseFor) {
    return delegate.renew(lease, now, leaseFor);
  }

  @Override
  public void release(Lease lease, Instant now) {
    delegate.release(lease, now);
  }

  @Override
  public JobRecord transition(Lease lease, JobState from, JobState to, JobUpdate update, Instant now) {
    return delegate.transition(lease, from, to, update, now);
  }

  @Override
  public JobRecord update(Lease lease, JobUpdate update, Instant now) {
    return delegate.update(lease, update, now);
  }

  @Override
  public JobRecord requestCancel(String jobId, Instant now) {
    return delegate.requestCancel(jobId, now);
  }

  @Override
  public List<JobRecord> unfinished(int limit) {
    return delegate.unfinished(limit);
  }

  @Override
  public void attemptStarted(String jobId, int stageId, int partition, int attempt, long leaseEpoch, Instant now) {
    delegate.attemptStarted(jobId, stageId, partition, attempt, leaseEpoch, now);
  }

  @Override
  public void attemptFinished(String jobId, int stageId, int partition, int attempt, AttemptState state, byte[] detail,
      Instant now) {
    delegate.attemptFinished(jobId, stageId, partition, attempt, state, detail, now);
  }

  @Override
  public List<TaskAttempt> attempts(String jobId) {
    return delegate.attempts(jobId);
  }

  @Override
  public TaskWinner recordWinner(String jobId, int stageId, int partition, int attempt, byte[] result) {
    return delegate.recordWinner(jobId, stageId, partition, attempt, result);
  }

  @Override
  public boolean discardWinner(String jobId, int stageId, int partition, int lostAttempt) {
    return delegate.discardWinner(jobId, stageId, partition, lostAttempt);
  }

  @Override
  public List<TaskWinner> winners(String jobId) {
    return delegate.winners(jobId);
  }

  @Override
  public Optional<ConcurrencySlot> acquireSlot(String pool, int capacity, String holder, Instant now,
      Duration leaseFor) {
    return delegate.acquireSlot(pool, capacity, holder, now, leaseFor);
  }

  @Override
  public boolean releaseSlot(ConcurrencySlot slot) {
    return delegate.releaseSlot(slot);
  }

  @Override
  public List<ConcurrencySlot> heldSlots(String pool, Instant now) {
    return delegate.heldSlots(pool, now);
  }

  @Override
  public int purgeExpired(Instant now) {
    return delegate.purgeExpired(now);
  }

  @Override
  public void close() {
    delegate.close();
  }
}

package dev.squall.coordinator.cost;

import dev.squall.jobstore.AttemptState;
import dev.squall.jobstore.ConcurrencySlot;
import dev.squall.jobstore.ForwardingJobStore;
import dev.squall.jobstore.JobRecord;
import dev.squall.jobstore.JobState;
import dev.squall.jobstore.JobStore;
import dev.squall.jobstore.JobUpdate;
import dev.squall.jobstore.Lease;
import dev.squall.jobstore.TaskAttempt;
import dev.squall.jobstore.TaskWinner;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A {@link JobStore} that counts each call as one read or one write of the metered job it names
 * ({@link JobMeters}): reads are get, attempts, winners and heldSlots; leases, transitions, updates,
 * cancel requests, attempt and winner records and slots are writes (create, unfinished and
 * purgeExpired name no job being driven). One call counts as one request unit (a DynamoDB query
 * reading many items uses more).
 */
final class CountingJobStore extends ForwardingJobStore {
  private final JobMeters meters;

  CountingJobStore(JobStore delegate, JobMeters meters) {
    super(delegate);
    this.meters = meters;
  }

  private void read(String name) {
    JobMeter m = meters.meterOf(name);
    if (m != null) {
      m.countRead();
    }
  }

  private void write(String name) {
    JobMeter m = meters.meterOf(name);
    if (m != null) {
      m.countWrite();
    }
  }

  @Override
  public Optional<JobRecord> get(String jobId) {
    read(jobId);
    return delegate.get(jobId);
  }

  @Override
  public Optional<Lease> acquire(String jobId, String owner, Instant now, Duration leaseFor) {
    write(jobId);
    return delegate.acquire(jobId, owner, now, leaseFor);
  }

  @Override
  public Lease renew(Lease lease, Instant now, Duration leaseFor) {
    write(lease.jobId());
    return delegate.renew(lease, now, leaseFor);
  }

  @Override
  public void release(Lease lease, Instant now) {
    write(lease.jobId());
    delegate.release(lease, now);
  }

  @Override
  public JobRecord transition(Lease lease, JobState from, JobState to, JobUpdate update, Instant now) {
    write(lease.jobId());
    return delegate.transition(lease, from, to, update, now);
  }

  @Override
  public JobRecord update(Lease lease, JobUpdate update, Instant now) {
    write(lease.jobId());
    return delegate.update(lease, update, now);
  }

  @Override
  public JobRecord requestCancel(String jobId, Instant now) {
    write(jobId);
    return delegate.requestCancel(jobId, now);
  }

  @Override
  public void attemptStarted(String jobId, int stageId, int partition, int attempt, long leaseEpoch, Instant now) {
    write(jobId);
    delegate.attemptStarted(jobId, stageId, partition, attempt, leaseEpoch, now);
  }

  @Override
  public void attemptFinished(String jobId, int stageId, int partition, int attempt, AttemptState state, byte[] detail,
      Instant now) {
    write(jobId);
    delegate.attemptFinished(jobId, stageId, partition, attempt, state, detail, now);
  }

  @Override
  public List<TaskAttempt> attempts(String jobId) {
    read(jobId);
    return delegate.attempts(jobId);
  }

  @Override
  public TaskWinner recordWinner(String jobId, int stageId, int partition, int attempt, byte[] result) {
    write(jobId);
    return delegate.recordWinner(jobId, stageId, partition, attempt, result);
  }

  @Override
  public boolean discardWinner(String jobId, int stageId, int partition, int lostAttempt) {
    write(jobId);
    return delegate.discardWinner(jobId, stageId, partition, lostAttempt);
  }

  @Override
  public List<TaskWinner> winners(String jobId) {
    read(jobId);
    return delegate.winners(jobId);
  }

  @Override
  public Optional<ConcurrencySlot> acquireSlot(String pool, int capacity, String holder, Instant now,
      Duration leaseFor) {
    write(holder);
    return delegate.acquireSlot(pool, capacity, holder, now, leaseFor);
  }

  @Override
  public boolean releaseSlot(ConcurrencySlot slot) {
    write(slot.holder());
    return delegate.releaseSlot(slot);
  }

  @Override
  public List<ConcurrencySlot> heldSlots(String pool, Instant now) {
    read(pool);
    return delegate.heldSlots(pool, now);
  }
}

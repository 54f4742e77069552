package dev.squall.cli.local;

import dev.squall.jobstore.ForwardingJobStore;
import dev.squall.jobstore.JobRecord;
import dev.squall.jobstore.JobState;
import dev.squall.jobstore.JobStore;
import dev.squall.jobstore.JobUpdate;
import dev.squall.jobstore.Lease;
import dev.squall.jobstore.LeaseLostException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The real job store, with a switch that makes the next lease-fenced write of a job answer as if
 * another invocation had taken the job over (its epoch moved on): what a coordinator whose lease
 * lapsed sees. Only renewals and terminal transitions are fenced, which are the writes a driver
 * makes right before a side effect.
 */
final class FencingJobStore extends ForwardingJobStore {
  private final AtomicBoolean fenceRenewal = new AtomicBoolean();
  private final AtomicBoolean fenceTerminal = new AtomicBoolean();

  FencingJobStore(JobStore delegate) {
    super(delegate);
  }

  /** The next lease renewal fails with {@link LeaseLostException}. */
  void fenceNextRenewal() {
    fenceRenewal.set(true);
  }

  /** The next transition to a terminal state fails with {@link LeaseLostException}. */
  void fenceNextTerminalTransition() {
    fenceTerminal.set(true);
  }

  @Override
  public Lease renew(Lease lease, Instant now, Duration leaseFor) {
    if (fenceRenewal.compareAndSet(true, false)) {
      throw new LeaseLostException(lease, "injected: another invocation took the job over");
    }
    return delegate.renew(lease, now, leaseFor);
  }

  @Override
  public JobRecord transition(Lease lease, JobState from, JobState to, JobUpdate update, Instant now) {
    if (to.isTerminal() && fenceTerminal.compareAndSet(true, false)) {
      throw new LeaseLostException(lease, "injected: another invocation took the job over");
    }
    return delegate.transition(lease, from, to, update, now);
  }
}

package dev.squall.jobstore;

import java.util.Optional;

/**
 * Why a conditional write under a lease was refused, told from the job as it is now: the same
 * diagnosis for every store, whose conditions differ only in syntax.
 */
public final class WriteRefusals {
  private WriteRefusals() {}

  /**
   * The refusal of a {@link JobStore#transition}: the job is in another state (the lease still
   * holds), or the lease is lost.
   *
   * @param current the job as read after the refused write
   */
  public static JobStoreException ofTransition(Lease lease, Optional<JobRecord> current, JobState from, JobState to) {
    if (current.isPresent() && current.get().leaseEpoch() == lease.epoch() && current.get().state() != from) {
      return new StateConflictException("Job " + lease.jobId() + " is " + current.get().state() + ", not " + from
          + "; cannot move it to " + to);
    }
    return leaseLost(lease, current);
  }

  /**
   * The refusal of a {@link JobStore#update}: the job is terminal (the lease still holds), or the
   * lease is lost.
   */
  public static JobStoreException ofUpdate(Lease lease, Optional<JobRecord> current) {
    if (current.isPresent() && current.get().leaseEpoch() == lease.epoch() && current.get().state().isTerminal()) {
      return new StateConflictException("Job " + lease.jobId() + " is " + current.get().state()
          + " and can no longer be updated");
    }
    return leaseLost(lease, current);
  }

  /** A lost lease, saying who or what has the job now. */
  public static LeaseLostException leaseLost(Lease lease, Optional<JobRecord> current) {
    return new LeaseLostException(lease, whyLost(current, lease));
  }

  private static String whyLost(Optional<JobRecord> current, Lease lease) {
    if (current.isEmpty()) {
      return "the job no longer exists";
    }
    JobRecord job = current.get();
    if (job.leaseEpoch() != lease.epoch()) {
      return "the job was acquired again (epoch " + job.leaseEpoch() + ")";
    }
    if (job.state().isTerminal()) {
      return "the job is " + job.state();
    }
    return job.owner() == null ? "the lease was released" : "the job is held by " + job.owner();
  }
}

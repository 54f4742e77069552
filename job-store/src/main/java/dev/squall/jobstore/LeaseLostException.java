package dev.squall.jobstore;

/**
 * A write under a lease was refused because the lease is no longer the job's current one: another
 * invocation acquired the job (higher epoch), or the lease was released. The holder must stop
 * advancing the job.
 */
public class LeaseLostException extends JobStoreException {
  public LeaseLostException(Lease lease, String detail) {
    super("lease of job " + lease.jobId() + " (owner " + lease.owner() + ", epoch " + lease.epoch() + ") is lost: " + detail);
  }
}

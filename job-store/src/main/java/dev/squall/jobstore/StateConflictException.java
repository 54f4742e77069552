package dev.squall.jobstore;

/**
 * A conditional write found the job in another state than required: a transition from a state the
 * job is not in, a transition the state machine forbids, or creating a job id that exists.
 */
public class StateConflictException extends JobStoreException {
  public StateConflictException(String message) {
    super(message);
  }
}

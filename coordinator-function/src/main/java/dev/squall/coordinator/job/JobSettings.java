package dev.squall.coordinator.job;

import java.time.Duration;

/**
 * How the coordinator keeps jobs moving across invocations.
 *
 * @param syncWait how long a synchronous request runs its job before answering 202 and handing the
 *     job to an asynchronous invocation (API Gateway gives a request 30 s)
 * @param lease how long a lease lasts unless renewed; a dead coordinator's job is taken over once
 *     it lapses. Renewed every third of it.
 * @param handOffMargin an invocation hands its job over when this little time is left before the
 *     function's time limit (Lambda gives at most 15 minutes)
 * @param suspendGrace how long a handing-over invocation waits for running attempts before
 *     abandoning them (the next invocation runs them again)
 * @param cancelPoll how often a running job reads the store for a cancel request
 * @param planningTimeout longest the planning of one query may take (it runs in its own thread,
 *     stopped past this or on a cancel); well under an invocation's time, so that a query whose
 *     planning cannot finish fails instead of being planned again by every invocation
 * @param maxInvocations most coordinator invocations that may take a job up (counted by the
 *     store's lease epoch, so across invocations); a job taken up more often fails
 */
public record JobSettings(Duration syncWait, Duration lease, Duration handOffMargin, Duration suspendGrace,
    Duration cancelPoll, Duration planningTimeout, int maxInvocations) {

  /**
   * 25 s sync wait, 30 s lease, hand over 90 s before the limit, 5 s grace, 250 ms cancel poll,
   * 2 minutes of planning, 50 invocations.
   */
  public static JobSettings defaults() {
    return new JobSettings(Duration.ofSeconds(25), Duration.ofSeconds(30), Duration.ofSeconds(90),
        Duration.ofSeconds(5), Duration.ofMillis(250), Duration.ofMinutes(2), 50);
  }

  public JobSettings withPlanningTimeout(Duration d) {
    return new JobSettings(syncWait, lease, handOffMargin, suspendGrace, cancelPoll, d, maxInvocations);
  }

  public JobSettings withMaxInvocations(int n) {
    return new JobSettings(syncWait, lease, handOffMargin, suspendGrace, cancelPoll, planningTimeout, n);
  }

  public JobSettings withSyncWait(Duration d) {
    return new JobSettings(d, lease, handOffMargin, suspendGrace, cancelPoll, planningTimeout, maxInvocations);
  }

  public JobSettings withLease(Duration d) {
    return new JobSettings(syncWait, d, handOffMargin, suspendGrace, cancelPoll, planningTimeout, maxInvocations);
  }

  public JobSettings withSuspendGrace(Duration d) {
    return new JobSettings(syncWait, lease, handOffMargin, d, cancelPoll, planningTimeout, maxInvocations);
  }

  public JobSettings withHandOffMargin(Duration d) {
    return new JobSettings(syncWait, lease, d, suspendGrace, cancelPoll, planningTimeout, maxInvocations);
  }
}

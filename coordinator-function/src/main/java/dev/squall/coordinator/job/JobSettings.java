package dev.squall.coordinator.job;

import dev.squall.coordinator.scheduler.Pipelining;
import dev.squall.jobstore.JobStoreLimits;
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
 * @param accountConcurrentTasks cap on the task invocations running at once for all jobs of every
 *     coordinator sharing the job store (slots of the store's account pool); keep it under the
 *     account's Lambda concurrency minus what coordinators use
 * @param taskSlotLease how long an attempt's concurrency slot is held unless given back: above
 *     the longest a task invocation may wait for its answer, so that only a dead coordinator's slots
 *     lapse
 * @param priorityAging how long a waiting task attempt waits before it ranks one priority level
 *     higher for account slots ({@link SlotPriority}); zero for never
 * @param pipelineMaxTasks largest stage graph (tasks of all stages) that query property
 *     {@code scheduling=auto} runs pipelined ({@code SQUALL_PIPELINE_MAX_TASKS}; {@link Pipelining})
 * @param runningQueries most queries running at once for every coordinator sharing the job store
 *     ({@code SQUALL_MAX_RUNNING_QUERIES}, {@link QueryAdmission}); a submission beyond it is
 *     answered 429 before a job exists. 0: no cap
 */
public record JobSettings(Duration syncWait, Duration lease, Duration handOffMargin, Duration suspendGrace,
    Duration cancelPoll, Duration planningTimeout, int maxInvocations, int accountConcurrentTasks,
    Duration taskSlotLease, Duration priorityAging, int pipelineMaxTasks, int runningQueries) {
  /** The account cap unless configured: well under Lambda's default account concurrency of 1,000. */
  public static final int DEFAULT_ACCOUNT_CONCURRENT_TASKS = 800;
  /** Upper end of the account cap's range (the job store's largest slot pool). */
  public static final int MAX_ACCOUNT_CONCURRENT_TASKS = 10_000;


  /**
   * 25 s sync wait, 30 s lease, hand over 90 s before the limit, 5 s grace, 250 ms cancel poll,
   * 2 minutes of planning, 50 invocations, 800 concurrent tasks per account, slots leased for 16
   * minutes (Lambda's longest task, 15 minutes, plus a margin), a priority level gained per minute
   * of waiting, no graph pipelined under {@code scheduling=auto}, no cap on running queries.
   */
  public static JobSettings defaults() {
    return new JobSettings(Duration.ofSeconds(25), Duration.ofSeconds(30), Duration.ofSeconds(90),
        Duration.ofSeconds(5), Duration.ofMillis(250), Duration.ofMinutes(2), 50, DEFAULT_ACCOUNT_CONCURRENT_TASKS,
        Duration.ofMinutes(16), SlotPriority.DEFAULT_AGING, Pipelining.DEFAULT_MAX_TASKS, 0);
  }

  /** These settings with another account-wide task cap and slot lease. */
  public JobSettings withAccountConcurrency(int tasks, Duration slotLease) {
    if (tasks < 1 || tasks > MAX_ACCOUNT_CONCURRENT_TASKS) {
      throw new IllegalArgumentException("Invalid account concurrent tasks: " + tasks + " (must be 1.."
          + MAX_ACCOUNT_CONCURRENT_TASKS + ")");
    }
    return new JobSettings(syncWait, lease, handOffMargin, suspendGrace, cancelPoll, planningTimeout, maxInvocations,
        tasks, slotLease, priorityAging, pipelineMaxTasks, runningQueries);
  }

  public JobSettings withPlanningTimeout(Duration d) {
    return new JobSettings(syncWait, lease, handOffMargin, suspendGrace, cancelPoll, d, maxInvocations,
        accountConcurrentTasks, taskSlotLease, priorityAging, pipelineMaxTasks, runningQueries);
  }

  public JobSettings withMaxInvocations(int n) {
    return new JobSettings(syncWait, lease, handOffMargin, suspendGrace, cancelPoll, planningTimeout, n,
        accountConcurrentTasks, taskSlotLease, priorityAging, pipelineMaxTasks, runningQueries);
  }

  public JobSettings withSyncWait(Duration d) {
    return new JobSettings(d, lease, handOffMargin, suspendGrace, cancelPoll, planningTimeout, maxInvocations,
        accountConcurrentTasks, taskSlotLease, priorityAging, pipelineMaxTasks, runningQueries);
  }

  public JobSettings withLease(Duration d) {
    return new JobSettings(syncWait, d, handOffMargin, suspendGrace, cancelPoll, planningTimeout, maxInvocations,
        accountConcurrentTasks, taskSlotLease, priorityAging, pipelineMaxTasks, runningQueries);
  }

  public JobSettings withSuspendGrace(Duration d) {
    return new JobSettings(syncWait, lease, handOffMargin, d, cancelPoll, planningTimeout, maxInvocations,
        accountConcurrentTasks, taskSlotLease, priorityAging, pipelineMaxTasks, runningQueries);
  }

  public JobSettings withHandOffMargin(Duration d) {
    return new JobSettings(syncWait, lease, d, suspendGrace, cancelPoll, planningTimeout, maxInvocations,
        accountConcurrentTasks, taskSlotLease, priorityAging, pipelineMaxTasks, runningQueries);
  }

  /** These settings with another priority aging ({@link SlotPriority#aging()}). */
  public JobSettings withPriorityAging(Duration d) {
    if (d.isNegative()) {
      throw new IllegalArgumentException("Invalid priority aging: " + d);
    }
    return new JobSettings(syncWait, lease, handOffMargin, suspendGrace, cancelPoll, planningTimeout, maxInvocations,
        accountConcurrentTasks, taskSlotLease, d, pipelineMaxTasks, runningQueries);
  }

  /** These settings with another largest graph {@code scheduling=auto} pipelines (0: none). */
  public JobSettings withPipelineMaxTasks(int tasks) {
    if (tasks < 0) {
      throw new IllegalArgumentException("Invalid pipeline max tasks: " + tasks);
    }
    return new JobSettings(syncWait, lease, handOffMargin, suspendGrace, cancelPoll, planningTimeout, maxInvocations,
        accountConcurrentTasks, taskSlotLease, priorityAging, tasks, runningQueries);
  }

  /**
   * These settings with another cap on the queries running at once (0: none).
   *
   * @throws IllegalArgumentException when {@code queries} is outside 0 to {@link JobStoreLimits#MAX_SLOTS}
   */
  public JobSettings withRunningQueries(int queries) {
    if (queries < 0 || queries > JobStoreLimits.MAX_SLOTS) {
      throw new IllegalArgumentException("Invalid running queries: " + queries + " (must be 0.." + JobStoreLimits.MAX_SLOTS + ")");
    }
    return new JobSettings(syncWait, lease, handOffMargin, suspendGrace, cancelPoll, planningTimeout, maxInvocations,
        accountConcurrentTasks, taskSlotLease, priorityAging, pipelineMaxTasks, queries);
  }

  /**
   * The running queries a coordinator with {@code reservedConcurrency} reserved invocations admits:
   * all but a quarter of them (at least one), which stay free for status, result and cancel requests
   * and the sweep, so that running queries never starve those.
   *
   * @throws IllegalArgumentException when {@code reservedConcurrency} is below 2
   */
  public static int runningQueriesFor(int reservedConcurrency) {
    if (reservedConcurrency < 2) {
      throw new IllegalArgumentException("the coordinator's reserved concurrency must be at least 2 (one running query "
          + "and one request beside it), not " + reservedConcurrency);
    }
    return reservedConcurrency - Math.max(1, reservedConcurrency / 4);
  }
}

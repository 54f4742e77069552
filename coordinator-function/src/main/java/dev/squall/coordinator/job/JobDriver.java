package dev.squall.coordinator.job;

import dev.squall.coordinator.QueryProperties;
import dev.squall.coordinator.api.PublicErrors;
import dev.squall.coordinator.api.SquallException;
import dev.squall.coordinator.commit.DdlCommitter;
import dev.squall.coordinator.commit.StatisticsCommitter;
import dev.squall.coordinator.commit.WriteCommitException;
import dev.squall.coordinator.commit.WriteFinalizer;
import dev.squall.coordinator.commit.WriteTargets;
import dev.squall.coordinator.cost.CostSettings;
import dev.squall.coordinator.cost.JobMeters;
import dev.squall.coordinator.cost.QueryCosts;
import dev.squall.coordinator.finalize.ResultCollector;
import dev.squall.coordinator.scheduler.JobFailedException;
import dev.squall.coordinator.scheduler.JobPlan;
import dev.squall.coordinator.scheduler.JobSuspendedException;
import dev.squall.coordinator.scheduler.Pipelining;
import dev.squall.coordinator.scheduler.StageScheduler;
import dev.squall.jobstore.JobError;
import dev.squall.jobstore.JobRecord;
import dev.squall.jobstore.JobState;
import dev.squall.jobstore.JobStore;
import dev.squall.jobstore.JobUpdate;
import dev.squall.jobstore.Lease;
import dev.squall.jobstore.LeaseLostException;
import dev.squall.jobstore.NoSuchJobException;
import dev.squall.jobstore.StageProgress;
import dev.squall.jobstore.StateConflictException;
import dev.squall.jobstore.TaskWinner;
import dev.squall.planner.explain.ExplainRenderer;
import dev.squall.planner.write.WriteTarget;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.QuerySummary;
import dev.squall.proto.v1.TaskError;
import dev.squall.proto.v1.TaskResult;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Advances one job as far as one invocation can, under the job's lease: QUEUED (plan it, store the
 * plan) → RUNNING (run the stages not yet finished, recording attempts and winners) → FINALIZING
 * (store the answer; for INSERT and CREATE TABLE AS, commit the winners' data files to the table once)
 * → SUCCEEDED; or FAILED / CANCELLED, deleting the job's shuffle data.
 *
 * <p>Whatever state the store holds, the driver continues from there, so an invocation that died
 * is replaced by any later one once its lease lapses, and finished stages are not run again. When
 * this invocation's time is nearly up, the driver releases the lease and asks for an asynchronous
 * invocation of the coordinator to carry on ({@link SelfInvoker}).
 */
public final class JobDriver implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(JobDriver.class);
  /** How often the steps after a landed commit (answer, SUCCEEDED) are tried before leaving them to the next run. */
  private static final int POST_COMMIT_ATTEMPTS = 3;
  /** Stack of the planning thread. */
  private static final long PLANNING_STACK_BYTES = 64L << 20;

  private final JobStore store;
  private final JobPlanner planner;
  private final PlanStore plans;
  private final ResultStore results;
  private final StageScheduler scheduler;
  private final S3Client s3;
  private final BufferAllocator allocator;
  private final String bucket;
  private final SelfInvoker self;
  private final JobSettings settings;
  private final Duration jobTimeout;
  private final Clock clock;
  private final DriverHooks hooks;
  private final WriteFinalizer writes;
  private final WinnerRecords winnerRecords;
  private final CancelMarkers cancelMarkers;
  private final PublicErrors publicErrors;
  private final JobMeters meters;
  private final JobSummaries summaries;
  private final JobDataDeleter deleter;

  public JobDriver(JobStore store, JobPlanner planner, PlanStore plans, ResultStore results, StageScheduler scheduler,
      S3Client s3, BufferAllocator allocator, String bucket, SelfInvoker self, JobSettings settings,
      Duration jobTimeout, Clock clock, DriverHooks hooks, WriteFinalizer writes) {
    this(store, planner, plans, results, scheduler, s3, allocator, bucket, self, settings, jobTimeout, clock, hooks,
        writes, new JobMeters(), new QueryCosts(CostSettings.DEFAULT));
  }

  /**
   * @param meters the meters of the jobs this coordinator drives, fed by the counting S3 client and
   *     job store it was given ({@link JobMeters#counting})
   * @param costs how a job's cost is computed for its summary
   */
  public JobDriver(JobStore store, JobPlanner planner, PlanStore plans, ResultStore results, StageScheduler scheduler,
      S3Client s3, BufferAllocator allocator, String bucket, SelfInvoker self, JobSettings settings,
      Duration jobTimeout, Clock clock, DriverHooks hooks, WriteFinalizer writes, JobMeters meters, QueryCosts costs) {
    this(store, planner, plans, results, scheduler, s3, allocator, bucket, self, settings, jobTimeout, clock, hooks,
        writes, meters, costs, JobDataDeleter.inline(s3, bucket));
  }

  /**
   * As above, with what deletes a job's data once it has ended; a query's data is handed to {@link
   * JobDataDeleter#deleteAfterAnswer} after SUCCEEDED is recorded, every other job's deleted inline.
   */
  public JobDriver(JobStore store, JobPlanner planner, PlanStore plans, ResultStore results, StageScheduler scheduler,
      S3Client s3, BufferAllocator allocator, String bucket, SelfInvoker self, JobSettings settings,
      Duration jobTimeout, Clock clock, DriverHooks hooks, WriteFinalizer writes, JobMeters meters, QueryCosts costs,
      JobDataDeleter deleter) {
    this.deleter = deleter;
    this.meters = meters;
    this.summaries = new JobSummaries(costs);
    this.writes = writes;
    this.winnerRecords = new WinnerRecords(s3, bucket);
    this.cancelMarkers = new CancelMarkers(s3, bucket);
    this.publicErrors = new PublicErrors(List.of(bucket));
    this.store = store;
    this.planner = planner;
    this.plans = plans;
    this.results = results;
    this.scheduler = scheduler;
    this.s3 = s3;
    this.allocator = allocator;
    this.bucket = bucket;
    this.self = self;
    this.settings = settings;
    this.jobTimeout = jobTimeout;
    this.clock = clock;
    this.hooks = hooks;
  }

  /** How a {@link #drive} call ended. */
  public enum Outcome {
    /** The job reached a terminal state in this call. */
    FINISHED,
    /** This invocation's time was up; another invocation was asked to carry on. */
    HANDED_OFF,
    /** Another invocation holds the job (or took it over meanwhile), or it was already finished. */
    NOT_OWNER
  }

  /**
   * What a drive did.
   *
   * @param outcome how it ended
   * @param job the job as last read or written
   * @param answer for a job that SUCCEEDED in this call, its answer as Arrow IPC (null otherwise)
   */
  public record Drive(Outcome outcome, JobRecord job, byte[] answer) {}

  /**
   * Takes the job's lease and advances the job until it ends, the hand-off time comes, or the lease
   * is lost.
   *
   * @param handOffAt when to stop and hand the job over
   * @param grace how long a hand-over waits for running attempts
   * @throws NoSuchJobException if there is no such job
   */
  public Drive drive(String jobId, Instant handOffAt, Duration grace) {
    String owner = UUID.randomUUID().toString();
    Optional<Lease> acquired = store.acquire(jobId, owner, clock.instant(), settings.lease());
    if (acquired.isEmpty()) {
      return new Drive(Outcome.NOT_OWNER, store.get(jobId).orElseThrow(() -> new NoSuchJobException(jobId)), null);
    }
    meters.open(jobId);
    try (LeaseKeeper keeper = new LeaseKeeper(store, clock, acquired.get(), settings.lease())) {
      return advance(jobId, keeper, handOffAt, grace);
    } finally {
      meters.close(jobId);
    }
  }

  private Drive advance(String jobId, LeaseKeeper keeper, Instant handOffAt, Duration grace) {
    JobRecord job = store.get(jobId).orElseThrow(() -> new NoSuchJobException(jobId));
    JobPlan plan = null;
    StoreJobControl control = null;
    Map<Integer, TaskResult[]> winners = null;
    try {
      // Once FINALIZING, a cancel is too late: the answer or commit may be made already, and a
      // re-run must finish the job the same way (a committed write stays committed).
      if (job.cancelRequested() && job.state() != JobState.FINALIZING) {
        return finishFailed(keeper, job, new JobError(ErrorCode.CANCELLED.name(), "query was cancelled", 0, 0), true, null);
      }
      if (job.state() != JobState.FINALIZING && !clock.instant().isBefore(deadlineOf(job))) {
        return finishFailed(keeper, job, new JobError(ErrorCode.TIMEOUT.name(), "query exceeded its time limit of "
            + jobTimeout.toSeconds() + " s", 0, 0), false, null);
      }
      if (job.state() != JobState.FINALIZING && job.leaseEpoch() > settings.maxInvocations()) {
        return finishFailed(keeper, job, new JobError(ErrorCode.INSUFFICIENT_RESOURCES.name(), "query was taken up by "
            + job.leaseEpoch() + " coordinator invocations, more than the limit of " + settings.maxInvocations(), 0, 0),
            false, null);
      }
      if (job.state() == JobState.QUEUED) {
        JobPlanner.Planned planned = planBounded(keeper, job);
        if (planned == null) {
          return new Drive(Outcome.NOT_OWNER, current(jobId, job), null);
        }
        if (planned.isExplain()) {
          return finishExplain(keeper, job, planned.explain());
        }
        plan = planned.plan();
        plans.save(plan);
        List<StageProgress> zero = new ArrayList<>();
        plan.taskCounts().forEach((stage, n) -> zero.add(new StageProgress(stage, 0, n)));
        job = store.transition(keeper.lease(), JobState.QUEUED, JobState.RUNNING, JobUpdate.progress(zero), clock.instant());
      }
      if (job.state() == JobState.RUNNING) {
        plan = plan != null ? plan : plans.load(jobId);
        if (plan.ddl() != null) {
          // DDL runs no task: its change is made once, in FINALIZING.
          job = store.transition(keeper.lease(), JobState.RUNNING, JobState.FINALIZING, JobUpdate.NONE, clock.instant());
          return finishDdl(keeper, job, plan);
        }
        Map<Integer, TaskResult[]> prior = priorWinners(plan);
        AtomicReference<JobPlan> ran = new AtomicReference<>(plan);
        control = new StoreJobControl(store, clock, keeper, settings.withSuspendGrace(grace), handOffAt, hooks,
            progressOf(plan, prior), () -> putCancelMarker(jobId), winnerRecords, publicErrors, slotsFor(job),
            changed -> {
              plans.save(changed);
              ran.set(changed);
            }, pipeliningFor(job, plan)).withTierRequest(QueryProperties.taskTiers(job.properties()));
        winners = scheduler.run(plan, prior, control, Duration.between(clock.instant(), deadlineOf(job)));
        plan = ran.get(); // with the tasks coalesced stages ran
        job = store.transition(keeper.lease(), JobState.RUNNING, JobState.FINALIZING,
            JobUpdate.progress(control.progress()), clock.instant());
      }
      if (job.state() == JobState.FINALIZING) {
        plan = plan != null ? plan : plans.load(jobId);
        if (plan.ddl() != null) {
          return finishDdl(keeper, job, plan);
        }
        hooks.finalizing(jobId);
        // A resumed FINALIZING job reads the winners its RUNNING invocation recorded.
        Map<Integer, TaskResult[]> all = winners != null ? winners : priorWinners(plan);
        if (plan.analyze() != null) {
          return finishAnalyze(keeper, job, plan, all);
        }
        return plan.write() != null ? finishWrite(keeper, job, plan, all) : finishQuery(keeper, job, plan, all);
      }
      return new Drive(Outcome.NOT_OWNER, job, null);
    } catch (JobSuspendedException e) {
      if (control != null && control.handOffDue() && !keeper.isLost()) {
        store.release(keeper.lease(), clock.instant());
        LOG.info("job {}: handing over ({} attempts abandoned)", jobId, e.abandoned().size());
        self.resume(jobId);
        return new Drive(Outcome.HANDED_OFF, store.get(jobId).orElse(job), null);
      }
      return new Drive(Outcome.NOT_OWNER, store.get(jobId).orElse(job), null);
    } catch (LeaseLostException e) {
      LOG.warn("job {}: {}", jobId, e.getMessage());
      return new Drive(Outcome.NOT_OWNER, store.get(jobId).orElse(job), null);
    } catch (JobFailedException e) {
      boolean cancelled = e.code() == ErrorCode.CANCELLED;
      // However the cancel reached the job (its own check, or a task that saw the marker first).
      String message = cancelled ? "query was cancelled" : e.userMessage();
      if (!cancelled && !message.equals(e.getMessage())) {
        LOG.info("{}", e.getMessage()); // the task and attempt, which the user's message leaves out
      }
      return finishFailed(keeper, current(jobId, job), new JobError(e.code().name(), message, 0, 0), cancelled, plan);
    } catch (SquallException e) {
      return finishFailed(keeper, current(jobId, job), new JobError(e.code().name(), e.getMessage(), e.line(), e.column()), false, plan);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Drive(Outcome.NOT_OWNER, job, null);
    } catch (RuntimeException e) {
      return finishFailed(keeper, current(jobId, job), new JobError(ErrorCode.INTERNAL_ERROR.name(),
          PublicErrors.internal("job " + jobId, e), 0, 0), false, plan);
    }
  }

  /**
   * Plans the job's SQL on its own thread, watching the lease, the job's cancel request and the
   * planning time limit meanwhile; planning that runs past the limit or is cancelled is interrupted
   * and abandoned (Calcite may not stop at once, but nothing waits for it).
   *
   * @return the plan, or null when the lease was lost
   * @throws JobFailedException CANCELLED, or TIMEOUT past {@link JobSettings#planningTimeout()}
   */
  private JobPlanner.Planned planBounded(LeaseKeeper keeper, JobRecord job) throws InterruptedException {
    String jobId = job.jobId();
    ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
      // Calcite's rules and visitors recurse once per expression level: a deep stack lets deep
      // expressions reach the nesting check instead of overflowing.
      Thread t = new Thread(null, r, "squall-plan-" + jobId, PLANNING_STACK_BYTES);
      t.setDaemon(true);
      return t;
    });
    try {
      Future<JobPlanner.Planned> planning = thread.submit(() -> {
        hooks.planning(jobId);
        return planner.plan(jobId, job.sql(), job.properties(), job.caller());
      });
      Instant limit = clock.instant().plus(settings.planningTimeout());
      while (true) {
        try {
          return planning.get(settings.cancelPoll().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
          if (e.getCause() instanceof RuntimeException r) {
            throw r;
          }
          if (e.getCause() instanceof StackOverflowError) {
            throw SquallException.userError("the query nests too deeply to be planned");
          }
          if (e.getCause() instanceof Error err) {
            throw err;
          }
          throw new IllegalStateException(e.getCause());
        } catch (TimeoutException e) {
          if (keeper.isLost()) {
            planning.cancel(true);
            return null;
          }
          if (store.get(jobId).map(JobRecord::cancelRequested).orElse(false)) {
            planning.cancel(true);
            throw new JobFailedException(jobId, TaskError.newBuilder().setCode(ErrorCode.CANCELLED)
                .setMessage("query was cancelled").build());
          }
          if (!clock.instant().isBefore(limit)) {
            planning.cancel(true);
            throw new JobFailedException(jobId, TaskError.newBuilder().setCode(ErrorCode.TIMEOUT)
                .setMessage("planning the query took longer than its limit of " + settings.planningTimeout().toSeconds()
                    + " s").build());
          }
        }
      }
    } finally {
      thread.shutdownNow();
    }
  }

  /** The concurrency slots the job's attempts hold: its own cap (a query property) and the account's, ranked by its priority. */
  private StoreTaskSlots slotsFor(JobRecord job) {
    return new StoreTaskSlots(store, clock, job.jobId(), QueryProperties.maxConcurrentTasks(job.properties()),
        settings.accountConcurrentTasks(), settings.taskSlotLease(),
        new SlotPriority(QueryProperties.priority(job.properties()), settings.priorityAging()));
  }

  /**
   * Whether the job's stages may run pipelined: its {@code scheduling} property, the deployment's
   * largest pipelined graph, the slots it may hold at once (its own cap and the account's), and
   * the S3 board where recorded winners are published for consumers started early.
   */
  private Pipelining pipeliningFor(JobRecord job, JobPlan plan) {
    int own = QueryProperties.maxConcurrentTasks(job.properties());
    int capacity = own > 0 ? Math.min(own, settings.accountConcurrentTasks()) : settings.accountConcurrentTasks();
    return new Pipelining(QueryProperties.scheduling(job.properties()), settings.pipelineMaxTasks(), capacity,
        new S3WinnerBoard(s3, plan.shuffleBucket(), plan.jobPrefix(), () -> putCancelMarker(job.jobId())));
  }

  private JobRecord current(String jobId, JobRecord fallback) {
    return store.get(jobId).orElse(fallback);
  }

  /** Winners recorded so far, by stage, as arrays indexed by partition. */
  private Map<Integer, TaskResult[]> priorWinners(JobPlan plan) {
    Map<Integer, Integer> counts = plan.taskCounts();
    Map<Integer, TaskResult[]> prior = new HashMap<>();
    for (TaskWinner w : store.winners(plan.jobId())) {
      TaskResult[] stage = prior.computeIfAbsent(w.stageId(), s -> new TaskResult[counts.getOrDefault(s, 0)]);
      if (w.partition() < stage.length) {
        stage[w.partition()] = winnerRecords.decode(w.result());
      }
    }
    return prior;
  }

  private static List<StageProgress> progressOf(JobPlan plan, Map<Integer, TaskResult[]> prior) {
    List<StageProgress> progress = new ArrayList<>();
    plan.taskCounts().forEach((stage, n) -> {
      int done = 0;
      TaskResult[] w = prior.get(stage);
      if (w != null) {
        for (TaskResult r : w) {
          done += r == null ? 0 : 1;
        }
      }
      progress.add(new StageProgress(stage, done, n));
    });
    return progress;
  }

  private Drive finishQuery(LeaseKeeper keeper, JobRecord job, JobPlan plan, Map<Integer, TaskResult[]> winners) {
    TaskResult[] rootWinners = winners.get(plan.graph().getRootStageId());
    ResultCollector.Collected collected = new ResultCollector(s3, allocator).collect(bucket, rootWinners,
        plan.outputSchema());
    byte[] answer = collected.arrowIpc();
    QuerySummary summary;
    String location;
    if (plan.explainAnalyze()) {
      // The summary is what ran; the answer is the plan annotated with it (its own PUT not included).
      summary = summaries.of(plan, store.attempts(job.jobId()), winners, collected.rows(), millisSince(job),
          job.leaseEpoch(), meters.meterOf(job.jobId()));
      answer = OneRowAnswer.text("plan", ExplainRenderer.analyzed(plan.graph(), summary), allocator);
      location = results.put(job.jobId(), answer);
    } else {
      location = results.put(job.jobId(), answer);
      summary = summaries.of(plan, store.attempts(job.jobId()), winners, collected.rows(), millisSince(job),
          job.leaseEpoch(), meters.meterOf(job.jobId()));
    }
    JobRecord done = store.transition(keeper.lease(), JobState.FINALIZING, JobState.SUCCEEDED,
        JobUpdate.NONE.withResultLocation(location).withSummary(JobSummaries.fitting(summary).toByteArray()),
        clock.instant());
    // The answer is stored and the end recorded under the lease: the deletion need not delay the answer.
    deleter.deleteAfterAnswer(job.jobId());
    return new Drive(Outcome.FINISHED, done, answer);
  }

  /**
   * The final step of a write, idempotent: commits the winners' data files once (or finds the
   * commit an earlier run made), then records SUCCEEDED. The commit comes right after a fenced
   * renewal of the lease, so an invocation whose lease lapsed never commits. Once the commit is
   * known to have landed, the job ends SUCCEEDED whatever fails after it: a failure to store the
   * answer or to record the end leaves the job FINALIZING for the next run, which finds the
   * snapshot and finishes. An unknown commit state also leaves the job FINALIZING, with its data
   * files kept, to be settled by the next run's re-read.
   */
  private Drive finishWrite(LeaseKeeper keeper, JobRecord job, JobPlan plan, Map<Integer, TaskResult[]> winners) {
    WriteTarget target = WriteTargets.fromRecord(plan.write());
    keeper.confirm();
    WriteFinalizer.Committed committed;
    try {
      committed = writes.commit(job.jobId(), target, winners.get(plan.graph().getRootStageId()));
    } catch (WriteCommitException e) {
      if (e.outcomeUnknown()) {
        return awaitSettling(keeper, job, "commit outcome unknown: " + e.getMessage());
      }
      if (e.targetConflict()) {
        throw new SquallException(ErrorCode.USER_ERROR, e.getMessage(), 0, 0, e);
      }
      throw new SquallException(ErrorCode.EXTERNAL, "commit to " + target.table() + " failed: " + e.getMessage(), 0, 0, e);
    }
    // The commit landed: from here on the job can only end SUCCEEDED.
    return endCommitted(keeper, job, plan, winners, "commit", () -> target.isRewrite()
        // An optimize answers what it did in words, as the other table procedures do.
        ? OneRowAnswer.text(plan.outputSchema().getFields().get(0).getName(),
            target.rewrite().getDescription() + ": " + writes.describeRewrite(job.jobId(), target), allocator)
        : OneRowAnswer.rowCount(plan.outputSchema(), committed.outcome().rowCount(), allocator), () -> {
          int deleted = writes.deleteUncommitted(job.jobId(), target, committed);
          LOG.info("job {}: committed; deleted {} data files of losing or failed attempts", job.jobId(), deleted);
        });
  }

  /**
   * Ends a job whose commit has landed (a write's snapshot, ANALYZE's statistics file): stores the
   * answer, records SUCCEEDED with its summary under the lease, then runs {@code afterEnd} (deleting
   * what the commit left unreferenced) and deletes the job's data, so an invocation that lost the
   * job never deletes. A failure before the end is recorded is tried again, up to {@code
   * POST_COMMIT_ATTEMPTS} times; past that the job stays FINALIZING for the next run, which finds
   * the commit made and finishes. Losing the lease hands the end to the job's new owner.
   *
   * @param what the commit's name in log lines
   * @param answer builds the job's one-row answer (called once per try)
   */
  private Drive endCommitted(LeaseKeeper keeper, JobRecord job, JobPlan plan, Map<Integer, TaskResult[]> winners,
      String what, Supplier<byte[]> answer, Runnable afterEnd) {
    for (int attempt = 1; attempt <= POST_COMMIT_ATTEMPTS; attempt++) {
      try {
        hooks.committed(job.jobId());
        byte[] bytes = answer.get();
        String location = results.put(job.jobId(), bytes);
        QuerySummary summary = summaries.of(plan, store.attempts(job.jobId()), winners, 1, millisSince(job),
            job.leaseEpoch(), meters.meterOf(job.jobId()));
        JobRecord done = store.transition(keeper.lease(), JobState.FINALIZING, JobState.SUCCEEDED,
            JobUpdate.NONE.withResultLocation(location).withSummary(JobSummaries.fitting(summary).toByteArray()),
            clock.instant());
        afterEnd.run();
        deleteJobData(job.jobId());
        return new Drive(Outcome.FINISHED, done, bytes);
      } catch (LeaseLostException | StateConflictException e) {
        LOG.warn("job {}: lost the job after its {}; its new owner finishes it: {}", job.jobId(), what, e.getMessage());
        return new Drive(Outcome.NOT_OWNER, current(job.jobId(), job), null);
      } catch (RuntimeException e) {
        LOG.warn("job {}: recording the end of the job after its {} failed (attempt {} of {})", job.jobId(), what,
            attempt, POST_COMMIT_ATTEMPTS, e);
        sleepQuietly(Duration.ofMillis(200L * attempt));
      }
    }
    return awaitSettling(keeper, job, "the " + what + " landed but the job's end could not be recorded");
  }

  /**
   * The final step of ANALYZE, idempotent: reads the root's row (row count and sketches) and, after
   * a fenced renewal of the lease, commits the statistics file of the scanned snapshot once
   * ({@link StatisticsCommitter}; a re-run finds the job's file committed), then ends SUCCEEDED
   * answering the rows analyzed ({@link #endCommitted}). A commit of unknown outcome leaves the job
   * FINALIZING for the next run.
   */
  private Drive finishAnalyze(LeaseKeeper keeper, JobRecord job, JobPlan plan, Map<Integer, TaskResult[]> winners) {
    ResultCollector.Collected collected = new ResultCollector(s3, allocator).collect(bucket,
        winners.get(plan.graph().getRootStageId()), plan.outputSchema());
    StatisticsCommitter.AnalyzedRow row = StatisticsCommitter.AnalyzedRow.fromArrowIpc(collected.arrowIpc(), allocator);
    keeper.confirm();
    try {
      new StatisticsCommitter(planner.catalogFor(job.caller())).commit(job.jobId(), plan.analyze(), row);
    } catch (WriteCommitException e) {
      if (e.outcomeUnknown()) {
        return awaitSettling(keeper, job, e.getMessage());
      }
      throw new SquallException(e.targetConflict() ? ErrorCode.USER_ERROR : ErrorCode.EXTERNAL, e.getMessage(), 0, 0, e);
    }
    return endCommitted(keeper, job, plan, winners, "statistics commit",
        () -> OneRowAnswer.rowCount(plan.outputSchema(), row.rows(), allocator), () -> {});
  }

  /**
   * The final step of DDL, idempotent: after a fenced renewal of the lease (an invocation whose
   * lease lapsed never changes the catalog) the change is applied, or found made by an earlier
   * run, and the job ends SUCCEEDED answering what was done. A change whose outcome the catalog
   * could not tell leaves the job FINALIZING for the next run to apply again.
   */
  private Drive finishDdl(LeaseKeeper keeper, JobRecord job, JobPlan plan) {
    hooks.finalizing(job.jobId());
    keeper.confirm();
    String did;
    try {
      did = new DdlCommitter(planner.catalogFor(job.caller())).apply(job.jobId(), plan.ddl());
    } catch (WriteCommitException e) {
      if (e.outcomeUnknown()) {
        return awaitSettling(keeper, job, e.getMessage());
      }
      throw new SquallException(e.targetConflict() ? ErrorCode.USER_ERROR : ErrorCode.EXTERNAL, e.getMessage(), 0, 0, e);
    }
    hooks.committed(job.jobId());
    String description = plan.ddl().getDescription() + (did.isEmpty() ? "" : ": " + did);
    byte[] answer = OneRowAnswer.text(plan.outputSchema().getFields().get(0).getName(), description, allocator);
    String location = results.put(job.jobId(), answer);
    QuerySummary summary = summaries.withoutTasks(1, millisSince(job), job.leaseEpoch(), meters.meterOf(job.jobId()));
    JobRecord done = store.transition(keeper.lease(), JobState.FINALIZING, JobState.SUCCEEDED,
        JobUpdate.NONE.withResultLocation(location).withSummary(summary.toByteArray()), clock.instant());
    // The stored plan is the job's only data; it goes once the end is recorded under the lease.
    deleteJobData(job.jobId());
    return new Drive(Outcome.FINISHED, done, answer);
  }

  /**
   * Leaves a FINALIZING write job for a later invocation (the next status read or sweep takes it
   * over once the lease is released): its commit may have landed, so it must not end FAILED and
   * its files must stay. Past the job's deadline it ends FAILED instead, still keeping every data
   * file, with a message that says the table must be checked.
   */
  private Drive awaitSettling(LeaseKeeper keeper, JobRecord job, String why) {
    LOG.warn("job {}: left FINALIZING for a later run: {}", job.jobId(), why);
    if (!clock.instant().isBefore(deadlineOf(job))) {
      try {
        JobRecord done = store.transition(keeper.lease(), JobState.FINALIZING, JobState.FAILED,
            JobUpdate.error(new JobError(ErrorCode.EXTERNAL.name(), "whether the write was committed could not be"
                + " confirmed before the job's time limit; check the table before running it again", 0, 0)),
            clock.instant());
        deleteJobData(job.jobId());
        return new Drive(Outcome.FINISHED, done, null);
      } catch (RuntimeException e) {
        LOG.warn("job {}: recording FAILED failed: {}", job.jobId(), e.toString());
      }
    }
    try {
      store.release(keeper.lease(), clock.instant());
    } catch (RuntimeException e) {
      LOG.warn("job {}: releasing its lease failed (it lapses): {}", job.jobId(), e.toString());
    }
    return new Drive(Outcome.NOT_OWNER, current(job.jobId(), job), null);
  }

  private Drive finishExplain(LeaseKeeper keeper, JobRecord job, String explain) {
    byte[] answer = OneRowAnswer.text("plan", explain, allocator);
    String location = results.put(job.jobId(), answer);
    QuerySummary summary = summaries.withoutTasks(1, millisSince(job), job.leaseEpoch(), meters.meterOf(job.jobId()));
    JobRecord j = store.transition(keeper.lease(), JobState.QUEUED, JobState.RUNNING, JobUpdate.NONE, clock.instant());
    j = store.transition(keeper.lease(), j.state(), JobState.FINALIZING, JobUpdate.NONE, clock.instant());
    j = store.transition(keeper.lease(), j.state(), JobState.SUCCEEDED,
        JobUpdate.NONE.withResultLocation(location).withSummary(summary.toByteArray()), clock.instant());
    return new Drive(Outcome.FINISHED, j, answer);
  }

  /**
   * Ends the job as FAILED or CANCELLED, then deletes its shuffle data and, for a write, every data
   * file it wrote (running attempts have ended). The end is recorded first, under the lease: an
   * invocation that lost the job deletes nothing. A write in FINALIZING whose commit landed, or
   * may have landed, is not failed at all: it is left for the next run to settle.
   */
  private Drive finishFailed(LeaseKeeper keeper, JobRecord job, JobError error, boolean cancelled, JobPlan plan) {
    if (plan == null && job.state() != JobState.QUEUED) {
      try {
        plan = plans.load(job.jobId());
      } catch (RuntimeException e) {
        LOG.warn("job {}: its plan cannot be read to clean up: {}", job.jobId(), e.toString());
      }
    }
    WriteTarget target = plan != null && plan.write() != null ? WriteTargets.fromRecord(plan.write()) : null;
    if (target != null && job.state() == JobState.FINALIZING) {
      Optional<Boolean> landed = writes.isCommitted(job.jobId(), target);
      if (landed.isEmpty() || landed.get()) {
        return awaitSettling(keeper, job, landed.isEmpty() ? "the table could not be read after: " + error.message()
            : "the commit landed before: " + error.message());
      }
    }
    JobState to = cancelled ? JobState.CANCELLED : JobState.FAILED;
    // The job record and the error body show the code, a scrubbed message and a reference id;
    // the full detail is in the log under that reference.
    JobError shown = cancelled ? error : new JobError(error.code(),
        publicErrors.publicMessage("job " + job.jobId(), error.code(), error.message()), error.line(), error.column());
    JobRecord done;
    try {
      done = store.transition(keeper.lease(), job.state(), to, JobUpdate.error(shown), clock.instant());
    } catch (LeaseLostException | StateConflictException e) {
      LOG.warn("job {}: could not record {}: {}", job.jobId(), to, e.getMessage());
      return new Drive(Outcome.NOT_OWNER, current(job.jobId(), job), null);
    }
    if (plan != null && plan.analyze() != null) {
      new StatisticsCommitter(planner.catalogFor(job.caller())).discard(job.jobId(), plan.analyze());
    }
    if (target != null) {
      int deleted = writes.discard(job.jobId(), target);
      LOG.info("job {}: deleted {} data files its attempts left (failed attempts delete their own)", job.jobId(), deleted);
    }
    deleteJobData(job.jobId());
    return new Drive(Outcome.FINISHED, done, null);
  }

  /** When the job must have ended: its creation plus the job time limit, whatever invocations ran it. */
  private Instant deadlineOf(JobRecord job) {
    return (job.createdAt() == null ? clock.instant() : job.createdAt()).plus(jobTimeout);
  }

  private static void sleepQuietly(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Tells running tasks to stop (the client's cancel request normally put it there already). */
  private void putCancelMarker(String jobId) {
    try {
      cancelMarkers.put(jobId);
    } catch (RuntimeException e) {
      LOG.warn("job {}: writing the cancel marker failed: {}", jobId, e.toString());
    }
  }

  /** Stops taking job data deletions and waits (up to 10 s) for those queued ({@link JobDataDeleter#close}). */
  @Override
  public void close() {
    deleter.close();
  }

  private void deleteJobData(String jobId) {
    deleter.deleteNow(jobId);
  }

  private long millisSince(JobRecord job) {
    return job.createdAt() == null ? 0 : Duration.between(job.createdAt(), clock.instant()).toMillis();
  }
}

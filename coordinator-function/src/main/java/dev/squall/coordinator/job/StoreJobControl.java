package dev.squall.coordinator.job;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.squall.coordinator.api.PublicErrors;
import dev.squall.coordinator.scheduler.JobControl;
import dev.squall.coordinator.scheduler.JobPlan;
import dev.squall.coordinator.scheduler.Pipelining;
import dev.squall.coordinator.scheduler.TaskSlots;
import dev.squall.coordinator.scheduler.TaskTiers;
import dev.squall.jobstore.AttemptState;
import dev.squall.jobstore.JobRecord;
import dev.squall.jobstore.JobStore;
import dev.squall.jobstore.JobStoreException;
import dev.squall.jobstore.JobUpdate;
import dev.squall.jobstore.LeaseLostException;
import dev.squall.jobstore.StageProgress;
import dev.squall.jobstore.StateConflictException;
import dev.squall.jobstore.TaskAttempt;
import dev.squall.jobstore.TaskWinner;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduler's {@link JobControl} backed by the job store: attempts and winners are recorded
 * there as they happen, progress at most every 300 ms (and whenever a stage completes), a cancel
 * request is read every {@link JobSettings#cancelPoll()}, and the run is suspended when the lease is
 * lost or the invocation's hand-off time has come.
 */
final class StoreJobControl implements JobControl {
  private static final Logger LOG = LoggerFactory.getLogger(StoreJobControl.class);
  private static final Duration PROGRESS_EVERY = Duration.ofMillis(300);

  private final JobStore store;
  private final Clock clock;
  private final LeaseKeeper keeper;
  private final JobSettings settings;
  private final Instant handOffAt;
  private final DriverHooks hooks;
  private final Map<Integer, StageProgress> progress = new TreeMap<>();
  private Instant lastCancelCheck = Instant.EPOCH;
  private Instant lastProgressWrite = Instant.EPOCH;
  private boolean progressDirty;
  private boolean handOffDue;
  private final Runnable onCancel;
  private final int attemptBase;
  private final WinnerRecords winners;
  private boolean cancelSeen;
  private final Map<String, Integer> priorFailures = new HashMap<>();
  private final PublicErrors publicErrors;
  private final TaskSlots slots;
  private final Consumer<JobPlan> planStore;
  private final Pipelining pipelining;
  private final Map<String, Integer> memoryFailureTiers = new HashMap<>();
  private TaskTiers.Request tierRequest =
      TaskTiers.Request.AUTO;

  StoreJobControl(JobStore store, Clock clock, LeaseKeeper keeper, JobSettings settings, Instant handOffAt,
      DriverHooks hooks, List<StageProgress> initial, Runnable onCancel, WinnerRecords winners,
      PublicErrors publicErrors, TaskSlots slots, Consumer<JobPlan> planStore, Pipelining pipelining) {
    this.planStore = planStore;
    this.pipelining = pipelining;
    this.slots = slots;
    this.publicErrors = publicErrors;
    this.winners = winners;
    this.onCancel = onCancel;
    this.store = store;
    this.clock = clock;
    this.keeper = keeper;
    this.settings = settings;
    this.handOffAt = handOffAt;
    this.hooks = hooks;
    initial.forEach(p -> progress.put(p.stageId(), p));
    int max = -1;
    for (TaskAttempt a : store.attempts(keeper.lease().jobId())) {
      max = Math.max(max, a.attempt());
      if (a.state() == AttemptState.FAILED && !lostOutput(a)) {
        priorFailures.merge(a.stageId() + "." + a.partition(), 1, Integer::sum);
        int tier = memoryFailureTier(a);
        if (tier > 0) {
          memoryFailureTiers.merge(a.stageId() + "." + a.partition(), tier, Math::max);
        }
      }
    }
    this.attemptBase = max + 1;
  }

  /** Whether a failed attempt failed because a producer's output was missing (not the task's own fault). */
  private static boolean lostOutput(TaskAttempt a) {
    if (a.detail() == null) {
      return false;
    }
    try {
      return TaskResult.parseFrom(a.detail()).getError().getCode() == ErrorCode.MISSING_SHUFFLE_OUTPUT;
    } catch (InvalidProtocolBufferException e) {
      return false;
    }
  }

  /** The tier (MB) a failed attempt ran on when it failed for memory, else 0. */
  private static int memoryFailureTier(TaskAttempt a) {
    if (a.detail() == null) {
      return 0;
    }
    try {
      TaskResult r = TaskResult.parseFrom(a.detail());
      return r.getError().getCode() == ErrorCode.INSUFFICIENT_RESOURCES ? r.getMetrics().getTierMemoryMb() : 0;
    } catch (InvalidProtocolBufferException e) {
      return 0;
    }
  }

  /** What the query asks of the task-size tiers (its properties). */
  StoreJobControl withTierRequest(TaskTiers.Request request) {
    this.tierRequest = request;
    return this;
  }

  @Override
  public TaskTiers.Request tierRequest() {
    return tierRequest;
  }

  @Override
  public int priorMemoryFailureTierMb(int stageId, int partition) {
    return memoryFailureTiers.getOrDefault(stageId + "." + partition, 0);
  }

  @Override
  public int priorFailures(int stageId, int partition) {
    return priorFailures.getOrDefault(stageId + "." + partition, 0);
  }

  @Override
  public void discardWinner(int stageId, int partition, int lostAttempt) {
    store.discardWinner(jobId(), stageId, partition, lostAttempt);
  }

  private String jobId() {
    return keeper.lease().jobId();
  }

  @Override
  public int attemptBase() {
    return attemptBase;
  }

  /** True when the run stopped because this invocation's time was up (not because the lease was lost). */
  boolean handOffDue() {
    return handOffDue || !clock.instant().isBefore(handOffAt);
  }

  @Override
  public Duration timeLeft() {
    Duration left = Duration.between(clock.instant(), handOffAt);
    return left.isNegative() ? Duration.ZERO : left;
  }

  @Override
  public Directive check() {
    Instant now = clock.instant();
    if (keeper.isLost()) {
      return Directive.SUSPEND;
    }
    if (!now.isBefore(handOffAt)) {
      handOffDue = true;
      return Directive.SUSPEND;
    }
    if (progressDirty && Duration.between(lastProgressWrite, now).compareTo(PROGRESS_EVERY) >= 0) {
      writeProgress(now);
    }
    if (Duration.between(lastCancelCheck, now).compareTo(settings.cancelPoll()) >= 0) {
      lastCancelCheck = now;
      try {
        Optional<JobRecord> job = store.get(jobId());
        if (job.isEmpty() || job.get().leaseEpoch() != keeper.lease().epoch()) {
          keeper.markLost();
          return Directive.SUSPEND;
        }
        if (job.get().cancelRequested()) {
          if (!cancelSeen) {
            cancelSeen = true;
            onCancel.run();
          }
          return Directive.CANCEL;
        }
      } catch (JobStoreException e) {
        LOG.warn("job {}: reading the store for a cancel request failed: {}", jobId(), e.getMessage());
      }
    }
    return Directive.CONTINUE;
  }

  @Override
  public Duration suspendGrace() {
    return settings.suspendGrace();
  }

  @Override
  public boolean attemptStarted(TaskSpec spec) {
    try {
      store.attemptStarted(spec.getJobId(), spec.getStageId(), spec.getPartition(), spec.getAttempt(),
          keeper.lease().epoch(), clock.instant());
      return true;
    } catch (StateConflictException e) {
      LOG.warn("job {}: attempt {}.{}.{} was recorded before; not sending it", spec.getJobId(), spec.getStageId(),
          spec.getPartition(), spec.getAttempt());
      return false;
    }
  }

  @Override
  public void attemptFinished(TaskSpec spec, TaskResult result) {
    TaskResult.Builder detail = TaskResult.newBuilder().setMetrics(result.getMetrics());
    if (result.hasError()) {
      // Attempt records are readable job records: the task's message without internal detail.
      detail.setError(result.getError().toBuilder().clearMissing()
          .setMessage(publicErrors.scrub(result.getError().getMessage())));
    }
    store.attemptFinished(spec.getJobId(), spec.getStageId(), spec.getPartition(), spec.getAttempt(),
        result.hasError() ? AttemptState.FAILED : AttemptState.SUCCEEDED, detail.build().toByteArray(), clock.instant());
  }

  @Override
  public TaskResult recordWinner(TaskResult result) {
    TaskWinner w = store.recordWinner(result.getJobId(), result.getStageId(), result.getPartition(), result.getAttempt(),
        winners.encode(result));
    return w.attempt() == result.getAttempt() ? result : winners.decode(w.result());
  }

  /**
   * Stores the changed plan right after a fenced renewal of the lease, so that an invocation that
   * lost the job never overwrites the plan its new owner runs.
   *
   * @throws dev.squall.jobstore.LeaseLostException if another invocation took the job over
   */
  @Override
  public void planChanged(JobPlan plan) {
    keeper.confirm();
    planStore.accept(plan);
  }

  @Override
  public Pipelining pipelining() {
    return pipelining;
  }

  @Override
  public void progress(int stageId, int tasksDone, int tasksTotal) {
    progress.put(stageId, new StageProgress(stageId, tasksDone, tasksTotal));
    progressDirty = true;
    if (tasksDone == tasksTotal) {
      writeProgress(clock.instant());
      hooks.stageFinished(jobId(), stageId);
    }
  }

  /** The progress as last reported, ordered by stage id. */
  List<StageProgress> progress() {
    return new ArrayList<>(progress.values());
  }

  private void writeProgress(Instant now) {
    try {
      store.update(keeper.lease(), JobUpdate.progress(progress()), now);
      lastProgressWrite = now;
      progressDirty = false;
    } catch (LeaseLostException e) {
      keeper.markLost();
    } catch (JobStoreException e) {
      LOG.warn("job {}: writing progress failed: {}", jobId(), e.getMessage());
    }
  }

  @Override
  public TaskSlots slots() {
    return slots;
  }
}

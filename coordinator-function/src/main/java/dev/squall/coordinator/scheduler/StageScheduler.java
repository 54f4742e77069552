package dev.squall.coordinator.scheduler;

import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.ShuffleSegment;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import dev.squall.proto.v1.TaskError;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a job's stage graph: a stage starts when every stage it reads has finished, all its tasks
 * at once (the invoker caps concurrency per coordinator; each attempt also holds the job's
 * {@link JobControl#slots() concurrency slots} while it runs, job-wide and account-wide); a failed
 * attempt runs again as a new attempt after a backoff while the {@link RetryPolicy} allows; the
 * first successful attempt of a partition wins (recorded through {@link JobControl#recordWinner},
 * first writer wins across invocations) and consumers read only winners' outputs.
 *
 * <p>A consumer that finds a producer's shuffle output missing (MISSING_SHUFFLE_OUTPUT) is not
 * retried as it is: the producer task runs again as a new attempt, and the consumer runs after it
 * (as Ballista resubmits the map stage on a fetch failure). A task's retry budget counts its failed
 * attempts over every invocation that ran the job.
 *
 * <p>A task running far past its stage's median once most of the stage is done gets one
 * speculative attempt ({@link SpeculationPolicy}); whichever attempt succeeds first wins.
 *
 * <p>A stage reading hash edges may run fewer tasks than planned: once its producers have finished,
 * adjacent hash partitions are coalesced into tasks of about the plan's target bytes
 * ({@link PartitionCoalescer}), and the changed plan is handed to {@link JobControl#planChanged}
 * before any of those tasks runs.
 *
 * <p>A join planned as a partitioned join in a stage of its own may become a broadcast join in its
 * probe side's stage ({@link AdaptiveBroadcastJoin}): in staged runs that probe stage waits for the
 * build stage when the switch is likely, and once the build stage has finished small, the changed
 * plan (the join stage gone, its fragment in the probe stage) is handed to
 * {@link JobControl#planChanged} before any probe task runs.
 *
 * <p><b>Pipelined</b> runs ({@link Pipelining}, chosen once when the run starts): a stage whose
 * inputs are all hash, broadcast or single edges without a combiner starts as soon as every task
 * of the stages it reads has been sent (holds its slots), instead of when they have finished. Its
 * tasks' specs name no winners; each recorded winner is published
 * ({@link Pipelining.WinnerBoard#publish}) and the consumers' readers learn them as they come, so
 * that every consumer reads exactly the recorded winner of each map task. Such a stage is not
 * coalesced (its task count is fixed before any map output is measured). A pipelined consumer
 * that stops at its time limit (TIMEOUT) while its producers still run is not charged a failure:
 * it runs again once the producer stage has finished. A lost map output
 * (MISSING_SHUFFLE_OUTPUT) retracts the published winner and turns pipelining off for the rest of
 * the run (stages not yet started wait for their producers). When the job fails, the board stops
 * running tasks (consumers waiting for winners that will never come) before the run drains.
 *
 * <p>A scan stage feeding a LIMIT without ORDER BY through a single edge starts its tasks in waves
 * and stops starting them once its winners' rows suffice ({@link LimitEarlyStop}); its task list
 * then shrinks to the tasks that ran, through {@link JobControl#planChanged}, before its consumer
 * is planned. Pipelined runs do not stop early.
 *
 * <p>A run may start from winners an earlier invocation recorded: tasks that have one are not run
 * again, and stages whose tasks all have one are not started.
 *
 * <p>When a task fails for good or the job is cancelled, nothing more is started, the scheduler
 * waits for attempts still running (so that none writes after the job's data is deleted) and
 * throws {@link JobFailedException}. When the control says SUSPEND, it waits for running attempts
 * up to a grace period and throws {@link JobSuspendedException}.
 */
public final class StageScheduler {
  private static final Logger LOG = LoggerFactory.getLogger(StageScheduler.class);
  private static final long POLL_MILLIS = 100;
  private static final long PIPELINE_POLL_MILLIS = 10;

  private final TaskInvoker invoker;
  private final RetryPolicy retry;
  private final SpeculationPolicy speculation;

  /** A scheduler with {@link SpeculationPolicy#defaults()}. */
  public StageScheduler(TaskInvoker invoker, RetryPolicy retry) {
    this(invoker, retry, SpeculationPolicy.defaults());
  }

  public StageScheduler(TaskInvoker invoker, RetryPolicy retry, SpeculationPolicy speculation) {
    this.invoker = invoker;
    this.retry = retry;
    this.speculation = speculation;
  }

  /** One ended (or never started) attempt. */
  private record Completion(TaskSpec spec, TaskResult result, boolean started) {}

  /** Mutable state of one run, touched only on the scheduler's thread (except the stop flag). */
  private final class Run {
    /** The plan as run: a stage coalesced at run time replaces it ({@link #coalesce}). */
    JobPlan plan;
    final JobControl control;
    StageTopology topology;
    TaskSpecFactory specs;
    Map<Integer, Integer> taskCounts;
    final BlockingQueue<Completion> done = new LinkedBlockingQueue<>();
    final Map<Integer, TaskResult[]> winners = new HashMap<>();
    final Map<Integer, Integer> remaining = new HashMap<>();
    final Set<Integer> started = new HashSet<>();
    final Map<String, TaskSpec> inFlight = new LinkedHashMap<>();
    final AtomicBoolean stopped = new AtomicBoolean();
    /** Failed attempts per task ("stage.partition"), including earlier invocations', lost outputs aside. */
    final Map<String, Integer> failures = new HashMap<>();
    /** The highest attempt number launched or seen per task, so that a re-run takes a fresh one. */
    final Map<String, Integer> highestAttempt = new HashMap<>();
    /** Times a task's output was lost and the task ran again. */
    final Map<String, Integer> regenerated = new HashMap<>();
    /** Consumer tasks waiting for a producer stage to finish again, by producer stage id. */
    final Map<Integer, List<TaskSpec>> waitingFor = new HashMap<>();
    /** When each running attempt was sent (nanoTime), by attempt key; written from invoker threads. */
    final Map<String, Long> sentAt = new ConcurrentHashMap<>();
    /** How long each stage's successful attempts took, in nanoseconds. */
    final Map<Integer, List<Long>> finishedNanos = new HashMap<>();
    /** Tasks that got a speculative attempt (one each). */
    final Set<String> speculated = new HashSet<>();
    /** Concurrency slots of running attempts, by attempt key; written from invoker threads. */
    final Map<String, TaskSlots.Held> slotsHeld = new ConcurrentHashMap<>();
    final TaskSlots slots;
    final ScheduledExecutorService timer;
    /** The winner board when this run was chosen to pipeline, else null. */
    final Pipelining.WinnerBoard board;
    /** Whether stages may still start before their producers finish (off after a lost output). */
    boolean pipelining;
    /** Tasks ("stage.partition") one of whose attempts has been admitted (holds its slots); from invoker threads. */
    final Set<String> admitted = ConcurrentHashMap.newKeySet();
    /** The invoker's task-size tiers when it has several, else null ({@link TaskTiers}). */
    final TaskTiers tiers;
    /** The tier each stage started on, chosen from its estimate when its first attempt launched. */
    final Map<Integer, TaskTiers.Tier> stageTiers = new HashMap<>();
    /** The tier each task's attempts go to once one failed for memory ("stage.partition"). */
    final Map<String, TaskTiers.Tier> taskTiers = new HashMap<>();
    /** Scan stages feeding a LIMIT that start their tasks in waves ({@link LimitEarlyStop}): rows wanted by stage. */
    final Map<Integer, Long> limited = new HashMap<>();
    /** Of each limited stage, the tasks started so far: {@code [0, end)}. */
    final Map<Integer, Integer> waveEnd = new HashMap<>();
    /** When each probe stage of runtime filters began waiting for their build stages (nanoTime). */
    final Map<Integer, Long> runtimeFilterWaitStart = new HashMap<>();
    /** Runtime filters whose probe stage stopped waiting for them. */
    final Set<Integer> runtimeFilterGaveUp = new HashSet<>();
    /**
     * Probe stages that wait for a build stage so that their join may become a broadcast join
     * ({@link AdaptiveBroadcastJoin}), by probe stage id; none in pipelined runs.
     */
    Map<Integer, AdaptiveBroadcastJoin.Candidate> broadcastCandidates = new HashMap<>();

    Run(JobPlan plan, Map<Integer, TaskResult[]> prior, JobControl control) {
      this.plan = plan;
      this.control = control;
      this.taskCounts = plan.taskCounts();
      this.topology = new StageTopology(plan.graph(), taskCounts);
      this.specs = new TaskSpecFactory(plan, topology);
      this.slots = control.slots();
      TaskTiers deployed = invoker.tiers();
      this.tiers = deployed != null && deployed.tiered() ? deployed : null;
      for (var e : taskCounts.entrySet()) {
        if (e.getValue() == 0) {
          throw new IllegalArgumentException("invalid stage graph: stage " + e.getKey() + " has no tasks");
        }
        TaskResult[] w = new TaskResult[e.getValue()];
        TaskResult[] p = prior.get(e.getKey());
        if (p != null) {
          System.arraycopy(p, 0, w, 0, Math.min(p.length, w.length));
        }
        winners.put(e.getKey(), w);
      }
      this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "squall-retry-timer");
        t.setDaemon(true);
        return t;
      });
      Pipelining pipelined = control.pipelining();
      int totalTasks = taskCounts.values().stream().mapToInt(Integer::intValue).sum();
      boolean fresh = prior.values().stream().allMatch(w -> java.util.Arrays.stream(w).allMatch(r -> r == null));
      int capacity = Math.min(pipelined.slotCapacity(), invoker.maxConcurrent());
      boolean chosen = new Pipelining(pipelined.mode(), pipelined.maxTasks(), capacity, pipelined.board())
          .chosen(totalTasks, fresh);
      this.board = chosen ? pipelined.board() : null;
      this.pipelining = chosen;
      if (chosen) {
        this.plan = plan.withPipelined();
        control.planChanged(this.plan);
        LOG.info("job {}: {} tasks run pipelined", plan.jobId(), totalTasks);
      } else {
        findBroadcastCandidates();
        // Pipelined consumers read every task's published winner: only staged runs stop early.
        for (Stage s : plan.graph().getStagesList()) {
          long wanted = LimitEarlyStop.rowsWanted(s.getFragment(), topology.outputOf(s.getStageId()));
          if (wanted >= 0 && plan.scanInputs().containsKey(s.getStageId()) && taskCounts.get(s.getStageId()) > 1) {
            limited.put(s.getStageId(), wanted);
          }
        }
      }
    }

    /**
     * Whether a stage may start now although its producers have not all finished: the run
     * pipelines, every input edge may be read early, and every task of each producer stage has
     * been admitted (holds its slots), so that the stage's waiting tasks never hold slots its
     * producers still need.
     */
    boolean mayStartEarly(int stageId) {
      if (!pipelining) {
        return false;
      }
      for (Edge e : topology.inputsOf(stageId)) {
        int producer = e.getProducerStageId();
        if (!TaskSpecFactory.pipelinable(e) || !started.contains(producer)) {
          return false;
        }
        TaskResult[] w = winners.get(producer);
        for (int q = 0; q < w.length; q++) {
          if (w[q] == null && !admitted.contains(task(producer, q))) {
            return false;
          }
        }
      }
      return true;
    }

    /**
     * Starts every stage whose producers have all finished, launching its tasks without a winner;
     * stages on the critical path first, so that their tasks queue ahead for threads and slots.
     */
    void startReadyStages() {
      List<Integer> ids = new ArrayList<>(); // coalescing replaces the topology while this runs
      topology.criticalPathFirst().forEach(s -> ids.add(s.getStageId()));
      for (int id : ids) {
        if (started.contains(id) || topology.stage(id) == null) { // null: a join taken over by its probe stage
          continue;
        }
        if (!runtimeFilterBuildsDone(id) || !broadcastBuildDone(id)) {
          continue;
        }
        if (producersDone(id)) {
          switchToBroadcast(id);
          coalesce(id);
        } else if (!mayStartEarly(id)) {
          continue;
        }
        Stage stage = topology.stage(id);
        started.add(id);
        TaskResult[] w = winners.get(id);
        int missing = (int) java.util.Arrays.stream(w).filter(r -> r == null).count();
        if (limited.containsKey(id) && missing > 0) {
          remaining.put(id, missing);
          nextWave(id);
          continue;
        }
        invoker.stageStarting(plan.jobId(), id, missing); // the launches below belong together (two-level invocation)
        for (int p = 0; p < w.length; p++) {
          if (w[p] == null) {
            launch(specs.build(stage, p, control.attemptBase(), winners), 0L);
          }
        }
        remaining.put(id, missing);
      }
    }

    /**
     * Adaptive coalescing ({@link PartitionCoalescer}): fixes a ready stage's tasks from its
     * producers' measured output. The changed plan is stored through the control before any task
     * of the stage runs, so an invocation resuming the job runs the same tasks.
     */
    void coalesce(int id) {
      Stage stage = topology.stage(id);
      if (java.util.Arrays.stream(winners.get(id)).anyMatch(w -> w != null)) {
        return; // tasks already won under the stored plan's tasks
      }
      Optional<Stage> split = SkewJoinSplitter.split(stage, topology.inputsOf(id), topology.outputOf(id),
          plan.scanInputs().containsKey(id), winners, plan.adaptiveTargetPartitionBytes(), plan.skewFactor(),
          plan.skewMinPartitionBytes());
      Stage.Builder coalesced = stage.toBuilder();
      if (split.isPresent()) {
        coalesced = split.get().toBuilder();
        LOG.info("job {}: stage {} splits {} skewed partitions", plan.jobId(), id, split.get().getSkewSplitsCount());
      } else {
        Optional<int[]> starts = PartitionCoalescer.groupStarts(stage, topology.inputsOf(id), topology.outputOf(id),
            plan.scanInputs().containsKey(id), winners, plan.adaptiveTargetPartitionBytes());
        if (starts.isEmpty()) {
          return;
        }
        for (int start : starts.get()) {
          coalesced.addPartitionGroupStarts(start);
        }
      }
      int tasks = SkewJoinSplitter.taskCount(coalesced.build());
      // A combiner stage after this one groups its map tasks: its task count follows theirs.
      Edge out = topology.outputOf(id);
      int combiner = out != null && out.getCombineGroup() > 0 ? out.getConsumerStageId() : -1;
      int combinerTasks = combiner < 0 ? 0 : (tasks + out.getCombineGroup() - 1) / out.getCombineGroup();
      StageGraph.Builder graph = plan.graph().toBuilder();
      for (int i = 0; i < graph.getStagesCount(); i++) {
        if (graph.getStages(i).getStageId() == id) {
          graph.setStages(i, coalesced);
        } else if (graph.getStages(i).getStageId() == combiner) {
          graph.setStages(i, graph.getStages(i).toBuilder().setTaskCount(combinerTasks));
        }
      }
      replacePlan(plan.withGraph(graph.build()));
      winners.put(id, new TaskResult[tasks]);
      control.progress(id, 0, tasks);
      if (combiner >= 0) {
        winners.put(combiner, new TaskResult[combinerTasks]);
        control.progress(combiner, 0, combinerTasks);
      }
      LOG.info("job {}: stage {} runs {} tasks for its {} hash partitions", plan.jobId(), id, tasks,
          stage.getTaskCount());
    }

    /**
     * Runs from now on under a changed plan, stored through the control first (after a fenced
     * renewal of the lease), so that an invocation resuming the job runs the same tasks.
     *
     * @throws IllegalArgumentException when the changed graph is inconsistent ({@link StageTopology})
     */
    void replacePlan(JobPlan next) {
      StageTopology nextTopology = new StageTopology(next.graph(), next.taskCounts());
      control.planChanged(next);
      plan = next;
      taskCounts = next.taskCounts();
      topology = nextTopology;
      specs = new TaskSpecFactory(next, nextTopology);
    }

    /**
     * The joins whose probe stage waits for the build stage ({@link AdaptiveBroadcastJoin#waiting}),
     * of those whose probe and join stages have neither started nor won a task (a resumed job's).
     */
    void findBroadcastCandidates() {
      Map<Integer, AdaptiveBroadcastJoin.Candidate> found = AdaptiveBroadcastJoin.waiting(topology,
          plan.graph().getRuntimeFiltersList(), plan.adaptiveBroadcastJoinBytes(), taskCounts);
      found.values().removeIf(c -> !untouched(c.probeStageId()) || !untouched(c.joinStageId()));
      broadcastCandidates = found;
    }

    /** Whether a stage has not started in this run and has no winner from an earlier one. */
    boolean untouched(int stageId) {
      return !started.contains(stageId) && java.util.Arrays.stream(winners.get(stageId)).allMatch(w -> w == null);
    }

    /** Whether a probe stage of an adaptive broadcast join may start: its build stage has finished. */
    boolean broadcastBuildDone(int stageId) {
      AdaptiveBroadcastJoin.Candidate c = broadcastCandidates.get(stageId);
      return c == null || remaining.getOrDefault(c.buildStageId(), -1) == 0;
    }

    /**
     * Adaptive broadcast join ({@link AdaptiveBroadcastJoin}): once a waiting probe stage is ready
     * (its build stage finished), switches its join to a broadcast join when the build stage's
     * measured output is small enough; the changed plan is stored before any probe task runs.
     */
    void switchToBroadcast(int id) {
      AdaptiveBroadcastJoin.Candidate c = broadcastCandidates.remove(id);
      if (c == null || topology.stage(c.joinStageId()) == null || !untouched(id) || !untouched(c.joinStageId())) {
        return;
      }
      long bytes = AdaptiveBroadcastJoin.outputBytes(winners.get(c.buildStageId()));
      int probeTasks = taskCounts.get(id);
      if (!AdaptiveBroadcastJoin.worthIt(bytes, plan.adaptiveBroadcastJoinBytes(), probeTasks,
          topology.stage(id).getEstimates().getBytes())) {
        LOG.info("job {}: stage {} stays a partitioned join: build stage {} wrote {} bytes", plan.jobId(),
            c.joinStageId(), c.buildStageId(), bytes);
        return;
      }
      replacePlan(plan.withGraph(AdaptiveBroadcastJoin.rewrite(plan.graph(), c, bytes)));
      winners.remove(c.joinStageId());
      control.progress(c.joinStageId(), 0, 0); // it runs no task
      findBroadcastCandidates();
      LOG.info("job {}: the join of stage {} runs in stage {}'s {} tasks as a broadcast join of stage {}'s {} bytes",
          plan.jobId(), c.joinStageId(), id, probeTasks, c.buildStageId(), bytes);
    }

    /**
     * Starts the next wave of a limited stage's tasks ({@link LimitEarlyStop}) once every task
     * started so far has a winner; when their rows suffice (or every task ran), the stage's task
     * list shrinks to the tasks that ran, stored before any consumer is planned, and it is done.
     */
    void nextWave(int id) {
      TaskResult[] w = winners.get(id);
      int end = waveEnd.getOrDefault(id, 0);
      for (int p = 0; p < end; p++) {
        if (w[p] == null) {
          return; // the wave is still running
        }
      }
      long rows = LimitEarlyStop.rowsOf(w);
      int next = LimitEarlyStop.nextWaveEnd(end, rows, limited.get(id), w.length);
      int ran = end;
      for (int p = w.length - 1; p >= end; p--) {
        if (w[p] != null) { // won in an earlier invocation's wave: the tasks before it run too
          ran = p + 1;
          break;
        }
      }
      if (next == end && ran > end) {
        next = ran;
      }
      if (next > end) {
        int launched = 0;
        for (int p = end; p < next; p++) {
          launched += w[p] == null ? 1 : 0;
        }
        waveEnd.put(id, next);
        invoker.stageStarting(plan.jobId(), id, launched);
        for (int p = end; p < next; p++) {
          if (w[p] == null) {
            launch(specs.build(topology.stage(id), p, control.attemptBase(), winners), 0L);
          }
        }
        if (launched > 0) {
          return;
        }
        nextWave(id); // every task of the wave had won before
        return;
      }
      long wanted = limited.remove(id);
      if (end < w.length) {
        List<Map<Integer, dev.squall.proto.v1.ScanInput>> scans = plan.scanInputs().get(id);
        replacePlan(plan.withScanInputs(id, scans.subList(0, end)));
        winners.put(id, java.util.Arrays.copyOf(w, end));
        LOG.info("job {}: stage {} stops after {} of its {} tasks ({} rows for a LIMIT of {})", plan.jobId(), id, end,
            w.length, rows, wanted);
      }
      remaining.put(id, 0);
      control.progress(id, end, end);
      relaunchWaiting(id);
    }

    /**
     * Whether a probe stage of runtime filters may start: every build stage of its filters has
     * finished, or it has waited the filter's {@code wait_millis} since it was first asked (then it
     * runs without that filter). Pipelined runs keep this order too.
     */
    boolean runtimeFilterBuildsDone(int stageId) {
      boolean done = true;
      for (dev.squall.proto.v1.RuntimeFilter f : plan.graph().getRuntimeFiltersList()) {
        if (f.getProbeStageId() != stageId || remaining.getOrDefault(f.getBuildStageId(), -1) == 0) {
          continue;
        }
        long since = runtimeFilterWaitStart.computeIfAbsent(stageId, s -> System.nanoTime());
        if (System.nanoTime() - since < TimeUnit.MILLISECONDS.toNanos(f.getWaitMillis())) {
          done = false;
        } else if (runtimeFilterGaveUp.add(f.getFilterId())) {
          LOG.info("job {}: stage {} starts without runtime filter {}: stage {} has not finished after {} ms",
              plan.jobId(), stageId, f.getFilterId(), f.getBuildStageId(), f.getWaitMillis());
        }
      }
      return done;
    }

    boolean producersDone(int stageId) {
      for (Edge e : topology.inputsOf(stageId)) {
        if (remaining.getOrDefault(e.getProducerStageId(), -1) != 0) {
          return false;
        }
      }
      return true;
    }

    void launch(TaskSpec planned, long delayMillis) {
      TaskSpec spec = onTier(planned);
      inFlight.put(key(spec), spec);
      highestAttempt.merge(task(spec.getStageId(), spec.getPartition()), spec.getAttempt(), Math::max);
      if (delayMillis <= 0) {
        send(spec);
      } else {
        timer.schedule(() -> send(spec), delayMillis, TimeUnit.MILLISECONDS);
      }
    }

    /**
     * The spec on its task's tier: the tier it moved to after failing for memory, else its stage's,
     * the smallest whose budget holds the stage's estimated peak ({@link StageMemoryEstimate},
     * decided when the stage's first attempt launches, after coalescing); its budget is the tier's.
     */
    TaskSpec onTier(TaskSpec spec) {
      if (tiers == null) {
        return spec;
      }
      String task = task(spec.getStageId(), spec.getPartition());
      TaskTiers.Tier tier = taskTiers.get(task);
      if (tier == null) {
        tier = stageTiers.computeIfAbsent(spec.getStageId(), id -> {
          long estimate = new StageMemoryEstimate(plan.graph(), taskCounts).of(id);
          TaskTiers.Tier chosen = tiers.forEstimate(estimate, control.tierRequest());
          LOG.info("job {}: stage {} runs on the {} MB tier (estimated peak task memory {} bytes)", plan.jobId(), id,
              chosen.memoryMb(), estimate);
          return chosen;
        });
        int failedOn = control.priorMemoryFailureTierMb(spec.getStageId(), spec.getPartition());
        if (failedOn >= tier.memoryMb()) {
          TaskTiers.Tier next = tiers.next(tiers.byMemory(failedOn), control.tierRequest());
          tier = next != null ? next : tiers.byMemory(failedOn);
        }
        taskTiers.put(task, tier);
      }
      return spec.toBuilder().setFunctionMemoryMb(tier.memoryMb()).setMemoryBudgetBytes(tier.budgetBytes()).build();
    }

    /**
     * After an attempt failed for memory: its task's next attempts go to the next larger tier the
     * query allows; false when there is none (the task fails as without tiers).
     */
    boolean moveUp(TaskSpec failed) {
      if (tiers == null || failed.getFunctionMemoryMb() == 0) {
        return false;
      }
      TaskTiers.Tier next = tiers.next(tiers.byMemory(failed.getFunctionMemoryMb()), control.tierRequest());
      if (next == null) {
        return false;
      }
      taskTiers.put(task(failed.getStageId(), failed.getPartition()), next);
      LOG.info("job {} task {}.{} attempt {} ran out of memory on the {} MB tier; retrying on the {} MB tier",
          plan.jobId(), failed.getStageId(), failed.getPartition(), failed.getAttempt(), failed.getFunctionMemoryMb(),
          next.memoryMb());
      return true;
    }

    void send(TaskSpec spec) {
      TaskInvoker.StartGate gate = s -> {
        TaskSlots.Held held = stopped.get() ? null : takeSlots(s);
        if (held == null) {
          return false;
        }
        boolean started = false;
        try {
          started = !stopped.get() && control.attemptStarted(s);
        } finally {
          if (!started) {
            held.close(); // never sent: its slots go back at once
          }
        }
        if (!started) {
          return false;
        }
        slotsHeld.put(key(s), held);
        sentAt.put(key(s), System.nanoTime());
        admitted.add(task(s.getStageId(), s.getPartition()));
        return true;
      };
      invoker.invoke(spec, gate).whenComplete((result, error) -> {
        TaskSlots.Held held = slotsHeld.remove(key(spec));
        if (held != null) {
          held.close();
        }
        if (result == null && error == null) {
          done.add(new Completion(spec, null, false));
          return;
        }
        TaskResult r = result != null ? result
            : LambdaTaskInvoker.failed(spec, ErrorCode.INTERNAL_ERROR, "task invocation failed: " + error);
        if (spec.getFunctionMemoryMb() > 0) {
          // The tier it ran on, kept with the attempt for the summary and EXPLAIN ANALYZE.
          r = r.toBuilder().setMetrics(r.getMetrics().toBuilder().setTierMemoryMb(spec.getFunctionMemoryMb())).build();
        }
        done.add(new Completion(spec, r, true));
      });
    }

    /** Waits for the attempt's concurrency slots on the invoker's thread; null when the run stopped first. */
    TaskSlots.Held takeSlots(TaskSpec s) {
      try {
        return slots.acquire(s, stopped::get);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }

    /** Applies one completion; returns a failure to throw, or null. */
    JobFailedException accept(Completion c) {
      inFlight.remove(key(c.spec()));
      Long sent = sentAt.remove(key(c.spec()));
      if (!c.started()) {
        if (!stopped.get()) {
          // Its attempt number was taken by another invocation: run it under the next one.
          TaskSpec spec = c.spec();
          launch(specs.build(topology.stage(spec.getStageId()), spec.getPartition(),
              nextAttempt(spec.getStageId(), spec.getPartition()), winners), 0L);
        }
        return null;
      }
      TaskSpec spec = c.spec();
      TaskResult result = c.result();
      control.attemptFinished(spec, result);
      if (stopped.get()) {
        return null;
      }
      TaskResult[] stageWinners = winners.get(spec.getStageId());
      int p = spec.getPartition();
      if (!result.hasError()) {
        if (sent != null) {
          finishedNanos.computeIfAbsent(spec.getStageId(), s -> new ArrayList<>()).add(System.nanoTime() - sent);
        }
        if (stageWinners[p] == null) {
          stageWinners[p] = control.recordWinner(result);
          if (board != null && topology.outputOf(spec.getStageId()) != null) {
            board.publish(stageWinners[p]);
          }
          int left = remaining.merge(spec.getStageId(), -1, Integer::sum);
          control.progress(spec.getStageId(), stageWinners.length - left, stageWinners.length);
          if (limited.containsKey(spec.getStageId())) {
            nextWave(spec.getStageId());
          } else if (left == 0) {
            relaunchWaiting(spec.getStageId());
          }
        }
        return null;
      }
      if (stageWinners[p] != null) {
        return null; // another attempt of this partition already won
      }
      TaskError error = result.getError();
      if (error.getCode() == ErrorCode.MISSING_SHUFFLE_OUTPUT && error.hasMissing()) {
        if (pipelining) {
          LOG.info("job {}: a map output was lost; the remaining stages run stage by stage", plan.jobId());
          pipelining = false;
        }
        return regenerate(spec, error);
      }
      Integer waitOn = error.getCode() == ErrorCode.TIMEOUT && TaskSpecFactory.readsPipelined(spec)
          ? unfinishedProducer(spec.getStageId()) : null;
      if (waitOn != null && !otherAttemptRunning(spec)) {
        // It waited for its producers until its time limit: not its fault, so not charged; it
        // runs again once that producer stage has finished.
        waitingFor.computeIfAbsent(waitOn, s -> new ArrayList<>()).add(spec);
        return null;
      }
      int failed = failures.merge(task(spec.getStageId(), p),
          1 + control.priorFailures(spec.getStageId(), p), (a, b) -> a + 1);
      if (otherAttemptRunning(spec)) {
        return null; // a speculative copy (or the original) of this task may still succeed
      }
      if (error.getCode() == ErrorCode.INSUFFICIENT_RESOURCES && retry.hasAttemptAfter(failed - 1) && moveUp(spec)) {
        launch(specs.build(topology.stage(spec.getStageId()), p, nextAttempt(spec.getStageId(), p), winners), 0L);
        return null;
      }
      if (retry.isRetriable(error.getCode()) && retry.hasAttemptAfter(failed - 1)) {
        LOG.info("job {} task {}.{} attempt {} failed ({}), retrying", plan.jobId(), spec.getStageId(), p,
            spec.getAttempt(), error.getMessage());
        launch(specs.build(topology.stage(spec.getStageId()), p, nextAttempt(spec.getStageId(), p), winners),
            retry.delayBefore(failed).toMillis());
        return null;
      }
      return new JobFailedException(plan.jobId(), spec.getStageId(), p, spec.getAttempt(), tierAdvice(spec, error));
    }

    /**
     * A memory failure under task-size tiers names the tier settings: the task's own message names
     * the single-function setting, which does not apply to a tier.
     */
    TaskError tierAdvice(TaskSpec spec, TaskError error) {
      if (error.getCode() != ErrorCode.INSUFFICIENT_RESOURCES || tiers == null || spec.getFunctionMemoryMb() == 0) {
        return error;
      }
      boolean largest = tiers.next(tiers.byMemory(spec.getFunctionMemoryMb()), control.tierRequest()) == null;
      String advice = largest
          ? "; it ran on the " + spec.getFunctionMemoryMb() + " MB task-size tier, the largest this query may use:"
              + " raise the query property max_task_memory_tier_mb if a larger tier is deployed, or deploy one"
              + " (task_memory_tiers_mb, squall local --task-memory-tiers)"
          : "; it ran on the " + spec.getFunctionMemoryMb() + " MB task-size tier and its retries ran out before a"
              + " larger tier; start on a larger one with the query property task_memory_tier_mb";
      return error.toBuilder().setMessage(error.getMessage() + advice).build();
    }

    /**
     * A consumer found a producer's output missing: the producer runs again as a new attempt (its
     * lost winner forgotten), and the consumer waits for the producer stage to finish again, then
     * runs as a new attempt reading the new output. Partitioning is a function of the rows alone
     * (Murmur3 hashes, planned range bounds), so the re-run routes every row as before. A task
     * whose output is lost more often than the retry policy allows attempts fails the job.
     */
    JobFailedException regenerate(TaskSpec consumer, TaskError error) {
      ShuffleSegment lost = error.getMissing();
      int producerStage = lost.getProducerStageId();
      int q = lost.getProducerPartition();
      TaskResult[] producerWinners = winners.get(producerStage);
      if (producerWinners == null || q < 0 || q >= producerWinners.length) {
        return new JobFailedException(plan.jobId(), consumer.getStageId(), consumer.getPartition(), consumer.getAttempt(),
            error);
      }
      TaskResult current = producerWinners[q];
      if (current != null && current.getAttempt() == lost.getProducerAttempt()) {
        int times = regenerated.merge(task(producerStage, q), 1, Integer::sum);
        if (!retry.hasAttemptAfter(times - 1)) {
          return new JobFailedException(plan.jobId(), consumer.getStageId(), consumer.getPartition(),
              consumer.getAttempt(), error);
        }
        LOG.info("job {}: output of task {}.{} attempt {} is lost; running the task again", plan.jobId(), producerStage,
            q, lost.getProducerAttempt());
        control.discardWinner(producerStage, q, lost.getProducerAttempt());
        if (board != null) {
          board.retract(producerStage, q);
        }
        producerWinners[q] = null;
        int left = remaining.merge(producerStage, 1, Integer::sum);
        control.progress(producerStage, producerWinners.length - left, producerWinners.length);
        launch(specs.build(topology.stage(producerStage), q, nextAttempt(producerStage, q), winners), 0L);
      }
      if (remaining.getOrDefault(producerStage, 0) == 0) {
        // Already run again (another consumer reported the loss first): read the new output now.
        launch(specs.build(topology.stage(consumer.getStageId()), consumer.getPartition(),
            nextAttempt(consumer.getStageId(), consumer.getPartition()), winners), 0L);
      } else {
        waitingFor.computeIfAbsent(producerStage, s -> new ArrayList<>()).add(consumer);
      }
      return null;
    }

    /** A producer stage of {@code stageId} that has not finished, or null. */
    Integer unfinishedProducer(int stageId) {
      for (Edge e : topology.inputsOf(stageId)) {
        if (remaining.getOrDefault(e.getProducerStageId(), -1) != 0) {
          return e.getProducerStageId();
        }
      }
      return null;
    }

    /** Runs the consumers that waited for {@code producerStage} again, as new attempts. */
    void relaunchWaiting(int producerStage) {
      List<TaskSpec> waiting = waitingFor.remove(producerStage);
      if (waiting == null || stopped.get()) {
        return;
      }
      for (TaskSpec c : waiting) {
        if (winners.get(c.getStageId())[c.getPartition()] == null) {
          launch(specs.build(topology.stage(c.getStageId()), c.getPartition(), nextAttempt(c.getStageId(),
              c.getPartition()), winners), 0L);
        }
      }
    }

    /** Whether another attempt of the same task is running. */
    boolean otherAttemptRunning(TaskSpec spec) {
      for (TaskSpec s : inFlight.values()) {
        if (s.getStageId() == spec.getStageId() && s.getPartition() == spec.getPartition()) {
          return true;
        }
      }
      return false;
    }

    /**
     * Starts one speculative attempt of each straggler ({@link SpeculationPolicy}): a task running
     * far longer than its stage's median once most of the stage has finished.
     */
    void speculate() {
      if (stopped.get()) {
        return;
      }
      long now = System.nanoTime();
      for (TaskSpec s : new ArrayList<>(inFlight.values())) {
        int stageId = s.getStageId();
        String task = task(stageId, s.getPartition());
        Long sent = sentAt.get(key(s));
        if (sent == null || speculated.contains(task) || winners.get(stageId)[s.getPartition()] != null
            || TaskSpecFactory.readsPipelined(s) // its time includes waiting for its producers
            || !speculation.isStraggler(now - sent, taskCounts.get(stageId),
                finishedNanos.getOrDefault(stageId, List.of()))) {
          continue;
        }
        speculated.add(task);
        LOG.info("job {}: task {} attempt {} runs long; starting a speculative attempt", plan.jobId(), task,
            s.getAttempt());
        launch(specs.build(topology.stage(stageId), s.getPartition(), nextAttempt(stageId, s.getPartition()), winners),
            0L);
      }
    }

    /** A fresh attempt number for a task: above every one this run launched or saw, and above the run's base. */
    int nextAttempt(int stageId, int partition) {
      int seen = highestAttempt.getOrDefault(task(stageId, partition), control.attemptBase() - 1);
      TaskResult w = winners.get(stageId)[partition];
      if (w != null) {
        seen = Math.max(seen, w.getAttempt());
      }
      return Math.max(seen + 1, control.attemptBase());
    }

    /** Stops starting attempts and waits for running ones, at most {@code wait}. */
    void drain(Duration wait) throws InterruptedException {
      stopped.set(true);
      long until = System.nanoTime() + wait.toNanos();
      while (!inFlight.isEmpty() && System.nanoTime() < until) {
        Completion c = done.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
        if (c != null) {
          accept(c);
        }
      }
    }

    /**
     * Waits for running attempts before the failure is reported, so that none writes after the
     * job's data is deleted; if this invocation's time runs out first, suspends instead (the next
     * invocation ends the job).
     */
    JobFailedException failAfterDrain(JobFailedException failure) throws InterruptedException, JobSuspendedException {
      stopped.set(true);
      if (board != null) {
        board.stopTasks(); // consumers waiting for winners of a failed producer would wait to their time limit
      }
      Duration left = control.timeLeft();
      drain(left.compareTo(Duration.ofMinutes(15)) < 0 ? left : Duration.ofMinutes(15));
      if (!inFlight.isEmpty()) {
        throw new JobSuspendedException(plan.jobId(), new ArrayList<>(inFlight.values()));
      }
      return failure;
    }
  }

  private static String task(int stageId, int partition) {
    return stageId + "." + partition;
  }

  private static String key(TaskSpec spec) {
    return spec.getStageId() + "." + spec.getPartition() + "." + spec.getAttempt();
  }

  /**
   * Runs the job until its root stage has a winner for every task. Attempts and their metrics are
   * recorded through the control, not returned.
   *
   * @param prior winners recorded by earlier invocations, by stage id (arrays indexed by partition,
   *     null where a task has none); empty for a new job
   * @param control where attempts and winners are recorded, and whether to go on
   * @param timeout time left before the job's deadline (kept across invocations by the caller)
   * @return every stage's winning results, arrays indexed by partition (task); a coalesced stage's
   *     array has one entry per task of the plan last given to {@link JobControl#planChanged}
   * @throws JobFailedException when a task fails for good, the job is cancelled (code CANCELLED)
   *     or times out
   * @throws JobSuspendedException when the control asks to hand the job over
   * @throws IllegalArgumentException when the stage graph is inconsistent
   */
  public Map<Integer, TaskResult[]> run(JobPlan plan, Map<Integer, TaskResult[]> prior, JobControl control, Duration timeout)
      throws InterruptedException, JobSuspendedException {
    Run run = new Run(plan, prior, control);
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      while (true) {
        run.startReadyStages();
        if (run.remaining.getOrDefault(run.topology.rootStageId(), -1) == 0) {
          return run.winners;
        }
        // A pipelined stage starts once its producers' tasks are admitted, which invoker threads
        // record without waking this loop: look again sooner while stages wait to start.
        long wait = run.pipelining && run.started.size() < run.taskCounts.size() ? PIPELINE_POLL_MILLIS : POLL_MILLIS;
        Completion c = run.done.poll(wait, TimeUnit.MILLISECONDS);
        if (c != null) {
          JobFailedException failure = run.accept(c);
          if (failure != null) {
            throw run.failAfterDrain(failure);
          }
        }
        run.speculate();
        switch (control.check()) {
          case CANCEL -> throw run.failAfterDrain(new JobFailedException(plan.jobId(),
              TaskError.newBuilder().setCode(ErrorCode.CANCELLED).setMessage("query was cancelled").build()));
          case SUSPEND -> {
            run.drain(control.suspendGrace());
            throw new JobSuspendedException(plan.jobId(), new ArrayList<>(run.inFlight.values()));
          }
          case CONTINUE -> { }
        }
        if (System.nanoTime() > deadline) {
          throw run.failAfterDrain(new JobFailedException(plan.jobId(), TaskError.newBuilder()
              .setCode(ErrorCode.TIMEOUT).setMessage("query exceeded its time limit").build()));
        }
      }
    } finally {
      run.stopped.set(true);
      run.timer.shutdownNow();
    }
  }
}

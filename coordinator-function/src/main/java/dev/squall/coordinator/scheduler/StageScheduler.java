package dev.squall.coordinator.scheduler;

import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.TaskError;
import dev.squall.proto.v1.TaskMetrics;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a job's stage graph: a stage starts when every stage it reads has finished, all its tasks
 * at once (the invoker caps concurrency); a failed attempt runs again as a new attempt after a
 * backoff while the {@link RetryPolicy} allows; the first successful attempt of a partition wins
 * and consumers read only winners' outputs.
 *
 * <p>When a task fails for good, nothing more is scheduled, the scheduler waits for attempts still
 * running (so that none writes after the job's data is deleted) and throws
 * {@link JobFailedException} carrying the task's error.
 */
public final class StageScheduler {
  private static final Logger LOG = LoggerFactory.getLogger(StageScheduler.class);

  private final TaskInvoker invoker;
  private final RetryPolicy retry;

  public StageScheduler(TaskInvoker invoker, RetryPolicy retry) {
    this.invoker = invoker;
    this.retry = retry;
  }

  private record Completion(int stageId, int partition, TaskSpec spec, TaskResult result) {}

  /**
   * Runs the job to completion.
   *
   * @param cancelled polled between events; when it turns true the job stops as CANCELLED
   * @param timeout overall limit for the job
   * @throws JobFailedException when a task fails for good, the job is cancelled or times out
   * @throws IllegalArgumentException when the stage graph is inconsistent
   */
  public JobRun run(JobPlan plan, BooleanSupplier cancelled, Duration timeout) throws InterruptedException {
    Map<Integer, Integer> taskCounts = new HashMap<>();
    for (Stage s : plan.graph().getStagesList()) {
      var scans = plan.scanInputs().get(s.getStageId());
      taskCounts.put(s.getStageId(), scans != null ? scans.size() : s.getTaskCount());
    }
    StageTopology topology = new StageTopology(plan.graph(), taskCounts);
    TaskSpecFactory specs = new TaskSpecFactory(plan, topology);
    BlockingQueue<Completion> done = new LinkedBlockingQueue<>();
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "squall-retry-timer");
      t.setDaemon(true);
      return t;
    });
    Map<Integer, TaskResult[]> winners = new HashMap<>();
    Map<Integer, Integer> remaining = new HashMap<>();
    Set<Integer> started = new HashSet<>();
    List<TaskMetrics> metrics = new ArrayList<>();
    int[] attempts = {0};
    Map<Integer, Integer> attemptsByStage = new HashMap<>();
    int[] inFlight = {0};
    long deadline = System.nanoTime() + timeout.toNanos();
    int tasks = 0;
    try {
      while (true) {
        // Start every stage whose producers have all finished.
        for (Stage stage : topology.stages()) {
          int id = stage.getStageId();
          if (started.contains(id) || !producersDone(topology, id, remaining)) {
            continue;
          }
          started.add(id);
          int n = taskCounts.get(id);
          tasks += n;
          winners.put(id, new TaskResult[n]);
          remaining.put(id, n);
          for (int p = 0; p < n; p++) {
            launch(specs.build(stage, p, 0, winners), done, attempts, inFlight);
            attemptsByStage.merge(id, 1, Integer::sum);
          }
          if (n == 0) {
            throw new IllegalArgumentException("invalid stage graph: stage " + id + " has no tasks");
          }
        }
        if (remaining.getOrDefault(topology.rootStageId(), -1) == 0) {
          return new JobRun(winners, tasks, attempts[0], attemptsByStage, metrics);
        }
        Completion c = done.poll(200, TimeUnit.MILLISECONDS);
        if (cancelled.getAsBoolean()) {
          throw fail(plan, -1, -1, -1, ErrorCode.CANCELLED, "job was cancelled", done, inFlight, metrics);
        }
        if (System.nanoTime() > deadline) {
          throw fail(plan, -1, -1, -1, ErrorCode.EXTERNAL, "job timed out after " + timeout, done, inFlight, metrics);
        }
        if (c == null) {
          continue;
        }
        inFlight[0]--;
        metrics.add(c.result().getMetrics());
        TaskResult[] stageWinners = winners.get(c.stageId());
        if (!c.result().hasError()) {
          if (stageWinners[c.partition()] == null) {
            stageWinners[c.partition()] = c.result();
            remaining.merge(c.stageId(), -1, Integer::sum);
          }
          continue;
        }
        TaskError error = c.result().getError();
        int attempt = c.spec().getAttempt();
        if (stageWinners[c.partition()] != null) {
          continue; // another attempt of this partition already won
        }
        if (retry.isRetriable(error.getCode()) && retry.hasAttemptAfter(attempt)) {
          LOG.info("job {} task {}.{} attempt {} failed ({}), retrying", plan.jobId(), c.stageId(), c.partition(), attempt, error.getMessage());
          TaskSpec next = specs.build(topology.stage(c.stageId()), c.partition(), attempt + 1, winners);
          attempts[0]++;
          attemptsByStage.merge(c.stageId(), 1, Integer::sum);
          inFlight[0]++;
          timer.schedule(() -> invoke(next, done), retry.delayBefore(attempt + 1).toMillis(), TimeUnit.MILLISECONDS);
          continue;
        }
        throw fail(plan, c.stageId(), c.partition(), attempt, error.getCode(), error.getMessage(), done, inFlight, metrics);
      }
    } finally {
      timer.shutdownNow();
    }
  }

  private static boolean producersDone(StageTopology topology, int stageId, Map<Integer, Integer> remaining) {
    for (Edge e : topology.inputsOf(stageId)) {
      if (remaining.getOrDefault(e.getProducerStageId(), -1) != 0) {
        return false;
      }
    }
    return true;
  }

  /** Counts and starts an attempt now; counters are only touched on the scheduler's thread. */
  private void launch(TaskSpec spec, BlockingQueue<Completion> done, int[] attempts, int[] inFlight) {
    attempts[0]++;
    inFlight[0]++;
    invoke(spec, done);
  }

  private void invoke(TaskSpec spec, BlockingQueue<Completion> done) {
    invoker.invoke(spec).whenComplete((result, error) -> {
      TaskResult r = result != null ? result
          : LambdaTaskInvoker.failed(spec, ErrorCode.INTERNAL_ERROR, "task invocation failed: " + error);
      done.add(new Completion(spec.getStageId(), spec.getPartition(), spec, r));
    });
  }

  /** Stops the job: waits for running attempts to end, then builds the failure. */
  private JobFailedException fail(JobPlan plan, int stageId, int partition, int attempt, ErrorCode code, String message,
      BlockingQueue<Completion> done, int[] inFlight, List<TaskMetrics> metrics) throws InterruptedException {
    long waitUntil = System.nanoTime() + TimeUnit.MINUTES.toNanos(15);
    while (inFlight[0] > 0 && System.nanoTime() < waitUntil) {
      Completion c = done.poll(200, TimeUnit.MILLISECONDS);
      if (c != null) {
        inFlight[0]--;
        metrics.add(c.result().getMetrics());
      }
    }
    TaskError error = TaskError.newBuilder().setCode(code).setMessage(message).build();
    return stageId < 0 ? new JobFailedException(plan.jobId(), error) : new JobFailedException(plan.jobId(), stageId, partition, attempt, error);
  }
}

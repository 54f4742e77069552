package dev.squall.coordinator.scheduler;

import dev.squall.proto.v1.Compression;
import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.PartitionRange;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.ShuffleSegment;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import dev.squall.proto.v1.TaskError;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Fakes for unit tests of the scheduler and the driver: a map-reduce plan, an invoker whose tasks
 * answer through a function of their spec, an in-memory {@link JobControl}, and made-up task
 * results (shuffle outputs that name object keys but are never read).
 */
public final class FakeTasks {
  private FakeTasks() {}

  /** A map stage of {@code mapTasks} tasks feeding one reduce task (the root) over a single edge. */
  public static JobPlan mapReducePlan(String jobId, int mapTasks) {
    Partitioning single = Partitioning.newBuilder().setSingle(Partitioning.Single.getDefaultInstance()).build();
    StageGraph graph = StageGraph.newBuilder()
        .addStages(Stage.newBuilder().setStageId(0).setTaskCount(mapTasks))
        .addStages(Stage.newBuilder().setStageId(1).setTaskCount(1))
        .addEdges(Edge.newBuilder().setProducerStageId(0).setConsumerStageId(1).setConsumerInputIndex(0)
            .setPartitioning(single))
        .setRootStageId(1).build();
    return new JobPlan(jobId, graph, Map.of(), "bucket", "jobs/" + jobId, Compression.LZ4_FRAME, 1 << 20,
        new Schema(List.of()), null);
  }

  /** Answers every spec through {@code behaviour}, on its own threads; keeps every spec sent. */
  public static final class Invoker implements TaskInvoker {
    public final ConcurrentLinkedQueue<TaskSpec> sent = new ConcurrentLinkedQueue<>();
    private final Function<TaskSpec, TaskResult> behaviour;
    /** Its own threads: a task that blocks must not hold up the others. */
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "fake-task");
      t.setDaemon(true);
      return t;
    });

    public Invoker(Function<TaskSpec, TaskResult> behaviour) {
      this.behaviour = behaviour;
    }

    @Override
    public CompletableFuture<TaskResult> invoke(TaskSpec spec, StartGate gate) {
      return CompletableFuture.supplyAsync(() -> {
        if (!gate.admit(spec)) {
          return null;
        }
        sent.add(spec);
        return behaviour.apply(spec);
      }, threads);
    }

    /** The attempt numbers sent for one task, in order. */
    public List<Integer> attemptsOf(int stage, int partition) {
      return sent.stream().filter(s -> s.getStageId() == stage && s.getPartition() == partition)
          .map(TaskSpec::getAttempt).toList();
    }
  }

  /** The job store's part, in memory: first-writer-wins winners, prior failures and slots given by the test. */
  public static class Control implements JobControl {
    public final Map<String, TaskResult> winners = new ConcurrentHashMap<>();
    public final Set<String> started = ConcurrentHashMap.newKeySet();
    public final List<String> discarded = new ArrayList<>();
    public final Map<String, Integer> priorFailures = new HashMap<>();
    /** Attempts whose end was recorded, as "stage.partition.attempt". */
    public final List<String> ended = new CopyOnWriteArrayList<>();
    public volatile TaskSlots slots = TaskSlots.UNLIMITED;

    @Override
    public int attemptBase() {
      return 0;
    }

    @Override
    public Directive check() {
      return Directive.CONTINUE;
    }

    @Override
    public Duration suspendGrace() {
      return Duration.ofSeconds(1);
    }

    @Override
    public Duration timeLeft() {
      return Duration.ofMinutes(1);
    }

    @Override
    public boolean attemptStarted(TaskSpec spec) {
      return started.add(spec.getStageId() + "." + spec.getPartition() + "." + spec.getAttempt());
    }

    @Override
    public void attemptFinished(TaskSpec spec, TaskResult result) {
      ended.add(spec.getStageId() + "." + spec.getPartition() + "." + spec.getAttempt());
    }

    @Override
    public TaskResult recordWinner(TaskResult result) {
      return winners.computeIfAbsent(result.getStageId() + "." + result.getPartition(), k -> result);
    }

    @Override
    public int priorFailures(int stageId, int partition) {
      return priorFailures.getOrDefault(stageId + "." + partition, 0);
    }

    @Override
    public void discardWinner(int stageId, int partition, int lostAttempt) {
      String key = stageId + "." + partition;
      if (winners.get(key).getAttempt() == lostAttempt) {
        winners.remove(key);
        discarded.add(key + "." + lostAttempt);
      }
    }

    @Override
    public TaskSlots slots() {
      return slots;
    }

    @Override
    public void progress(int stageId, int tasksDone, int tasksTotal) {}
  }

  /** A result naming the attempt. */
  public static TaskResult.Builder resultOf(TaskSpec spec) {
    return TaskResult.newBuilder().setJobId(spec.getJobId()).setStageId(spec.getStageId())
        .setPartition(spec.getPartition()).setAttempt(spec.getAttempt());
  }

  /** A map task's made-up shuffle output: one partition of 10 bytes. */
  public static TaskResult mapOutput(TaskSpec spec) {
    return resultOf(spec).setOutputObjectKey("jobs/" + spec.getJobId() + "/s0/m" + spec.getPartition() + "/a"
        + spec.getAttempt()).addPartitions(PartitionRange.newBuilder().setPartition(0).setOffset(0).setLength(10)
            .setRows(1)).build();
  }

  /** A failed attempt with {@code code}. */
  public static TaskResult failure(TaskSpec spec, ErrorCode code) {
    return resultOf(spec).setError(TaskError.newBuilder().setCode(code).setMessage("injected " + code)).build();
  }

  /** The reducer: fails with MISSING_SHUFFLE_OUTPUT naming the first segment whose map output is in {@code lost}. */
  public static TaskResult reduce(TaskSpec spec, Set<String> lost) {
    for (ShuffleSegment s : spec.getInputs(0).getShuffle().getSegmentsList()) {
      String id = s.getProducerStageId() + "." + s.getProducerPartition() + "." + s.getProducerAttempt();
      if (lost.contains(id)) {
        return resultOf(spec).setError(TaskError.newBuilder().setCode(ErrorCode.MISSING_SHUFFLE_OUTPUT)
            .setMessage("missing map output " + id).setMissing(s)).build();
      }
    }
    return resultOf(spec).setOutputObjectKey("jobs/" + spec.getJobId() + "/s1/m0/a" + spec.getAttempt()).build();
  }

  /** Map tasks answer with outputs, the reducer with an empty result. */
  public static TaskResult succeed(TaskSpec spec) {
    return spec.getStageId() == 0 ? mapOutput(spec) : reduce(spec, Set.of());
  }

  /** The map outputs a reducer's spec names, as "partition.attempt". */
  public static List<String> producersRead(TaskSpec reducer) {
    return reducer.getInputs(0).getShuffle().getSegmentsList().stream()
        .map(s -> s.getProducerPartition() + "." + s.getProducerAttempt()).toList();
  }

  /** Waits for {@code latch}, at most 30 s. */
  public static void await(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Sleeps, keeping an interrupt. */
  public static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Tasks that count themselves down on {@code running} and then wait for {@code release} before
   * they succeed: a stage whose attempts are all in flight while the test acts.
   */
  public static Invoker heldUntil(CountDownLatch running, CountDownLatch release) {
    return new Invoker(spec -> {
      running.countDown();
      await(release);
      return succeed(spec);
    });
  }
}

package dev.squall.coordinator.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * The scheduler's state machine with a fake invoker (tasks answer at once with made-up shuffle
 * outputs) and an in-memory control: a map stage of three tasks feeding one reduce task.
 */
class StageSchedulerTest {
  private static final RetryPolicy FAST = new RetryPolicy(4, Duration.ofMillis(1), Duration.ofMillis(5));

  private static JobPlan mapReducePlan() {
    Partitioning single = Partitioning.newBuilder().setSingle(Partitioning.Single.getDefaultInstance()).build();
    StageGraph graph = StageGraph.newBuilder()
        .addStages(Stage.newBuilder().setStageId(0).setTaskCount(3))
        .addStages(Stage.newBuilder().setStageId(1).setTaskCount(1))
        .addEdges(Edge.newBuilder().setProducerStageId(0).setConsumerStageId(1).setConsumerInputIndex(0)
            .setPartitioning(single))
        .setRootStageId(1).build();
    return new JobPlan("job-s", graph, Map.of(), "bucket", "jobs/job-s", Compression.LZ4_FRAME, 1 << 20, new Schema(List.of()), null);
  }

  /** Answers every spec through {@code behaviour}, on another thread; keeps every spec sent. */
  private static final class FakeInvoker implements TaskInvoker {
    final ConcurrentLinkedQueue<TaskSpec> sent = new ConcurrentLinkedQueue<>();
    final Function<TaskSpec, TaskResult> behaviour;

    FakeInvoker(Function<TaskSpec, TaskResult> behaviour) {
      this.behaviour = behaviour;
    }

    /** Its own threads: a task that blocks must not hold up the others. */
    final ExecutorService threads = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "fake-task");
      t.setDaemon(true);
      return t;
    });

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

    List<Integer> attemptsOf(int stage, int partition) {
      return sent.stream().filter(s -> s.getStageId() == stage && s.getPartition() == partition)
          .map(TaskSpec::getAttempt).toList();
    }
  }

  /** The job store's part, in memory: first-writer-wins winners, prior failures given by the test. */
  private static final class FakeControl implements JobControl {
    final Map<String, TaskResult> winners = new ConcurrentHashMap<>();
    final Set<String> started = ConcurrentHashMap.newKeySet();
    final List<String> discarded = new ArrayList<>();
    final Map<String, Integer> priorFailures = new HashMap<>();

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
    public void attemptFinished(TaskSpec spec, TaskResult result) {}

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
    public void progress(int stageId, int tasksDone, int tasksTotal) {}
  }

  private static TaskResult.Builder resultOf(TaskSpec spec) {
    return TaskResult.newBuilder().setJobId(spec.getJobId()).setStageId(spec.getStageId())
        .setPartition(spec.getPartition()).setAttempt(spec.getAttempt());
  }

  private static TaskResult mapOutput(TaskSpec spec) {
    return resultOf(spec).setOutputObjectKey("jobs/job-s/s0/m" + spec.getPartition() + "/a" + spec.getAttempt())
        .addPartitions(PartitionRange.newBuilder().setPartition(0).setOffset(0).setLength(10).setRows(1)).build();
  }

  private static TaskResult failure(TaskSpec spec, ErrorCode code) {
    return resultOf(spec).setError(TaskError.newBuilder().setCode(code).setMessage("injected " + code)).build();
  }

  /** The reducer: fails with MISSING_SHUFFLE_OUTPUT naming the first segment whose map output is in {@code lost}. */
  private static TaskResult reduce(TaskSpec spec, Set<String> lost) {
    for (ShuffleSegment s : spec.getInputs(0).getShuffle().getSegmentsList()) {
      String id = s.getProducerStageId() + "." + s.getProducerPartition() + "." + s.getProducerAttempt();
      if (lost.contains(id)) {
        return resultOf(spec).setError(TaskError.newBuilder().setCode(ErrorCode.MISSING_SHUFFLE_OUTPUT)
            .setMessage("missing map output " + id).setMissing(s)).build();
      }
    }
    return resultOf(spec).setOutputObjectKey("jobs/job-s/s1/m0/a" + spec.getAttempt()).build();
  }

  private static List<String> producersRead(TaskSpec reducer) {
    return reducer.getInputs(0).getShuffle().getSegmentsList().stream()
        .map(s -> s.getProducerPartition() + "." + s.getProducerAttempt()).toList();
  }

  @Test
  void aLostMapOutputRunsItsProducerAgainAndThenTheConsumerReadingTheNewOutput() throws Exception {
    Set<String> lost = ConcurrentHashMap.newKeySet();
    lost.add("0.1.0"); // the first attempt of map task 1 wins, then its object disappears
    FakeInvoker invoker = new FakeInvoker(spec -> spec.getStageId() == 0 ? mapOutput(spec) : reduce(spec, lost));
    FakeControl control = new FakeControl();

    Map<Integer, TaskResult[]> winners = new StageScheduler(invoker, FAST)
        .run(mapReducePlan(), Map.of(), control, Duration.ofMinutes(1));

    assertThat(control.discarded).containsExactly("0.1.0");
    assertThat(invoker.attemptsOf(0, 1)).containsExactly(0, 1);
    assertThat(invoker.attemptsOf(0, 0)).containsExactly(0);
    assertThat(winners.get(0)[1].getAttempt()).isEqualTo(1);
    List<Integer> reducerAttempts = invoker.attemptsOf(1, 0);
    assertThat(reducerAttempts).containsExactly(0, 1);
    TaskSpec last = invoker.sent.stream().filter(s -> s.getStageId() == 1 && s.getAttempt() == 1).findFirst().orElseThrow();
    assertThat(producersRead(last)).containsExactly("0.0", "1.1", "2.0");
    assertThat(winners.get(1)[0].hasError()).isFalse();
  }

  @Test
  void outputLostMoreOftenThanTheRetryPolicyAllowsFailsTheJob() {
    // Every output of map task 2 is lost: the job must end, not loop.
    FakeInvoker invoker = new FakeInvoker(spec -> spec.getStageId() == 0 ? mapOutput(spec)
        : reduce(spec, Set.of("0.2.0", "0.2.1", "0.2.2", "0.2.3", "0.2.4", "0.2.5")));
    JobFailedException failed = catchThrowableOfType(JobFailedException.class, () -> new StageScheduler(invoker, FAST)
        .run(mapReducePlan(), Map.of(), new FakeControl(), Duration.ofMinutes(1)));
    assertThat(failed).isNotNull();
    assertThat(failed.code()).isEqualTo(ErrorCode.MISSING_SHUFFLE_OUTPUT);
    assertThat(invoker.attemptsOf(0, 2)).hasSize(FAST.maxAttempts());
  }

  @Test
  void aTasksRetryBudgetCountsTheFailuresOfEarlierInvocations() {
    FakeInvoker invoker = new FakeInvoker(spec -> spec.getStageId() == 0 && spec.getPartition() == 2
        ? failure(spec, ErrorCode.EXTERNAL) : spec.getStageId() == 0 ? mapOutput(spec) : reduce(spec, Set.of()));
    FakeControl control = new FakeControl();
    control.priorFailures.put("0.2", FAST.maxAttempts() - 1);
    JobFailedException failed = catchThrowableOfType(JobFailedException.class, () -> new StageScheduler(invoker, FAST)
        .run(mapReducePlan(), Map.of(), control, Duration.ofMinutes(1)));
    assertThat(failed).isNotNull();
    assertThat(invoker.attemptsOf(0, 2)).as("one attempt was left of the budget").hasSize(1);
  }

  @Test
  void aTaskStoppedAtItsDeadlineIsRetriedAsANewAttempt() throws Exception {
    FakeInvoker invoker = new FakeInvoker(spec -> spec.getStageId() == 0 && spec.getPartition() == 0
        && spec.getAttempt() == 0 ? failure(spec, ErrorCode.TIMEOUT)
        : spec.getStageId() == 0 ? mapOutput(spec) : reduce(spec, Set.of()));
    Map<Integer, TaskResult[]> winners = new StageScheduler(invoker, FAST)
        .run(mapReducePlan(), Map.of(), new FakeControl(), Duration.ofMinutes(1));
    assertThat(invoker.attemptsOf(0, 0)).containsExactly(0, 1);
    assertThat(winners.get(0)[0].getAttempt()).isEqualTo(1);
  }

  @Test
  void aStragglerIsOvertakenByItsSpeculativeCopyAndTheFirstSuccessWins() throws Exception {
    CountDownLatch straggler = new CountDownLatch(1);
    FakeInvoker invoker = new FakeInvoker(spec -> {
      if (spec.getStageId() == 0 && spec.getPartition() == 2 && spec.getAttempt() == 0) {
        try {
          straggler.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return spec.getStageId() == 0 ? mapOutput(spec) : reduce(spec, Set.of());
    });
    SpeculationPolicy quick = new SpeculationPolicy(0.5, 2.0, Duration.ofMillis(200));
    Map<Integer, TaskResult[]> winners;
    try {
      winners = new StageScheduler(invoker, FAST, quick).run(mapReducePlan(), Map.of(), new FakeControl(),
          Duration.ofMinutes(1));
    } finally {
      straggler.countDown();
    }
    assertThat(invoker.attemptsOf(0, 2)).containsExactly(0, 1);
    assertThat(winners.get(0)[2].getAttempt()).as("the speculative copy won").isEqualTo(1);
    TaskSpec reducer = invoker.sent.stream().filter(s -> s.getStageId() == 1).findFirst().orElseThrow();
    assertThat(producersRead(reducer)).containsExactly("0.0", "1.0", "2.1");
  }

  @Test
  void noSpeculativeCopyStartsBeforeMostOfTheStageHasFinished() throws Exception {
    FakeInvoker invoker = new FakeInvoker(spec -> spec.getStageId() == 0 ? mapOutput(spec) : reduce(spec, Set.of()));
    new StageScheduler(invoker, FAST, new SpeculationPolicy(0.75, 2.0, Duration.ofSeconds(30)))
        .run(mapReducePlan(), Map.of(), new FakeControl(), Duration.ofMinutes(1));
    assertThat(invoker.sent).hasSize(4); // three map tasks and the reducer, once each
  }
}

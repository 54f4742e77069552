package dev.squall.coordinator.scheduler;

import static dev.squall.coordinator.scheduler.FakeTasks.failure;
import static dev.squall.coordinator.scheduler.FakeTasks.mapOutput;
import static dev.squall.coordinator.scheduler.FakeTasks.reduce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.squall.proto.v1.Aggregate;
import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.Estimates;
import dev.squall.proto.v1.HashJoin;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.Scan;
import dev.squall.proto.v1.ShuffleRead;
import dev.squall.proto.v1.Sort;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Task-size tiers: which tier a stage's estimate picks, what a stage's estimate is, and how the
 * scheduler sends stages to tiers and moves a task that ran out of memory to the next larger one.
 */
class TaskTiersTest {
  private static final long MB = 1 << 20;
  private static final RetryPolicy FAST = new RetryPolicy(4, Duration.ofMillis(1), Duration.ofMillis(5));
  private static final TaskTiers THREE = new TaskTiers(List.of(new TaskTiers.Tier("t-10240", 10240),
      new TaskTiers.Tier("t-1024", 1024), new TaskTiers.Tier("t-3072", 3072)));

  // ---- The choice

  @Test
  void aStageGoesToTheSmallestTierWhoseBudgetHoldsItsEstimate() {
    assertThat(THREE.tiers()).extracting(TaskTiers.Tier::memoryMb).containsExactly(1024, 3072, 10240);
    assertThat(THREE.smallest().budgetBytes()).isEqualTo(1024 * MB * 6 / 10);
    assertThat(THREE.forEstimate(2 * MB, TaskTiers.Request.AUTO).memoryMb()).isEqualTo(1024);
    assertThat(THREE.forEstimate(1024 * MB * 6 / 10, TaskTiers.Request.AUTO).memoryMb()).isEqualTo(1024);
    assertThat(THREE.forEstimate(1024 * MB * 6 / 10 + 1, TaskTiers.Request.AUTO).memoryMb()).isEqualTo(3072);
    assertThat(THREE.forEstimate(2000 * MB, TaskTiers.Request.AUTO).memoryMb()).isEqualTo(10240);
    // Nothing holds it: the largest, where it may still fit once it spills.
    assertThat(THREE.forEstimate(100_000 * MB, TaskTiers.Request.AUTO).memoryMb()).isEqualTo(10240);
  }

  @Test
  void aQueryMayPinTheStartingTierAndCapTheLargest() {
    TaskTiers.Request pinned = new TaskTiers.Request(2000, 0);
    assertThat(THREE.forEstimate(1, pinned).memoryMb()).as("at least 2000 MB").isEqualTo(3072);
    assertThat(THREE.forEstimate(100_000 * MB, pinned).memoryMb()).as("pinned whatever the estimate").isEqualTo(3072);
    TaskTiers.Request capped = new TaskTiers.Request(0, 5000);
    assertThat(THREE.forEstimate(100_000 * MB, capped).memoryMb()).isEqualTo(3072);
    assertThat(THREE.next(THREE.byMemory(1024), capped).memoryMb()).isEqualTo(3072);
    assertThat(THREE.next(THREE.byMemory(3072), capped)).as("nothing above the cap").isNull();
    assertThat(THREE.next(THREE.byMemory(3072), TaskTiers.Request.AUTO).memoryMb()).isEqualTo(10240);
    assertThat(THREE.next(THREE.largest(), TaskTiers.Request.AUTO)).isNull();
    // A cap below every tier leaves the smallest; a pin above the cap stops at the cap.
    assertThat(THREE.forEstimate(100_000 * MB, new TaskTiers.Request(0, 100)).memoryMb()).isEqualTo(1024);
    assertThat(THREE.forEstimate(1, new TaskTiers.Request(10240, 3072)).memoryMb()).isEqualTo(3072);
  }

  @Test
  void tiersAreReadFromTheirSettingAndRefusedWhenMalformed() {
    TaskTiers tiers = TaskTiers.parse("[{\"function\":\"f-3072\",\"memoryMb\":3072},{\"function\":\"f-1024\",\"memoryMb\":1024}]");
    assertThat(tiers.smallest()).isEqualTo(new TaskTiers.Tier("f-1024", 1024));
    assertThat(tiers.tiered()).isTrue();
    assertThat(TaskTiers.single("f", 2048).tiered()).isFalse();
    assertThatThrownBy(() -> TaskTiers.parse("{}")).hasMessageContaining("SQUALL_TASK_TIERS");
    assertThatThrownBy(() -> TaskTiers.parse("[{\"memoryMb\":1024}]")).hasMessageContaining("SQUALL_TASK_TIERS");
    assertThatThrownBy(() -> TaskTiers.parse("[{\"function\":\"f\",\"memoryMb\":20000}]"))
        .hasMessageContaining("SQUALL_TASK_TIERS").hasMessageContaining("10240");
    assertThatThrownBy(() -> TaskTiers.parse("[]")).hasMessageContaining("1 to 4");
    assertThatThrownBy(() -> TaskTiers.parse("[{\"function\":\"a\",\"memoryMb\":128},{\"function\":\"b\",\"memoryMb\":128}]"))
        .hasMessageContaining("two task tiers of 128 MB");
    assertThatThrownBy(() -> TaskTiers.parse("not json")).hasMessageContaining("SQUALL_TASK_TIERS");
  }

  // ---- The estimate

  private static Operator read(int input) {
    return Operator.newBuilder().setShuffleRead(ShuffleRead.newBuilder().setInputIndex(input)).build();
  }

  private static Edge edge(int producer, int consumer, int input, Partitioning partitioning) {
    return Edge.newBuilder().setProducerStageId(producer).setConsumerStageId(consumer).setConsumerInputIndex(input)
        .setPartitioning(partitioning).build();
  }

  private static Partitioning hash(int partitions) {
    return Partitioning.newBuilder().setHash(Partitioning.Hash.newBuilder().setPartitions(partitions)).build();
  }

  private static Stage stage(int id, int tasks, long bytes, Operator fragment) {
    return Stage.newBuilder().setStageId(id).setTaskCount(tasks).setFragment(fragment)
        .setEstimates(Estimates.newBuilder().setRows(bytes / 10).setBytes(bytes)).build();
  }

  /**
   * Stage 2 joins stage 0 (800 MB, hashed into 8 tasks) with stage 1 (broadcast, 40 MB, the build
   * side) and sorts the result; stage 3 aggregates stage 2's 80 MB output.
   */
  private static StageGraph joinSortAggregate() {
    Operator scan = Operator.newBuilder().setScan(Scan.newBuilder().setInputIndex(0)).build();
    Operator join = Operator.newBuilder().setHashJoin(HashJoin.newBuilder().setLeft(read(0)).setRight(read(1))
        .setBuildSide(HashJoin.BuildSide.BUILD_RIGHT)).build();
    Operator sort = Operator.newBuilder().setSort(Sort.newBuilder().setInput(join)).build();
    Operator aggregate = Operator.newBuilder().setAggregate(Aggregate.newBuilder().setInput(read(0))
        .setMode(Aggregate.Mode.FINAL)).build();
    return StageGraph.newBuilder()
        .addStages(stage(0, 4, 800 * MB, scan))
        .addStages(stage(1, 1, 40 * MB, scan))
        .addStages(stage(2, 8, 80 * MB, sort))
        .addStages(stage(3, 2, 2 * MB, aggregate))
        .addEdges(edge(0, 2, 0, hash(8)))
        .addEdges(edge(1, 2, 1, Partitioning.newBuilder().setBroadcast(Partitioning.Broadcast.getDefaultInstance()).build()))
        .addEdges(edge(2, 3, 0, hash(2)))
        .setRootStageId(3).build();
  }

  @Test
  void aStagesEstimateIsWhatItsOperatorsHoldPerTaskTwiceOverPlusABaseline() {
    StageGraph graph = joinSortAggregate();
    StageMemoryEstimate estimate = new StageMemoryEstimate(graph, Map.of(0, 4, 1, 1, 2, 8, 3, 2));
    // A scan stage holds nothing.
    assertThat(estimate.of(0)).isEqualTo(StageMemoryEstimate.BASELINE_BYTES);
    // The whole broadcast build side (40 MB) and the sort of the probe side's share (800 MB / 8 tasks).
    assertThat(estimate.of(2)).isEqualTo(StageMemoryEstimate.BASELINE_BYTES + 2 * (40 * MB + 100 * MB));
    // A final aggregation holds its output's share (2 MB / 2 tasks), not its input's.
    assertThat(estimate.of(3)).isEqualTo(StageMemoryEstimate.BASELINE_BYTES + 2 * MB);
    // Coalesced into 2 tasks, each reads a quarter of the probe side.
    assertThat(new StageMemoryEstimate(graph, Map.of(0, 4, 1, 1, 2, 2, 3, 2)).of(2))
        .isEqualTo(StageMemoryEstimate.BASELINE_BYTES + 2 * (40 * MB + 400 * MB));
    // So the join and sort fit the 1 GB tier as planned, and need the 3 GB tier once coalesced.
    assertThat(THREE.forEstimate(estimate.of(2), TaskTiers.Request.AUTO).memoryMb()).isEqualTo(1024);
    assertThat(THREE.forEstimate(new StageMemoryEstimate(graph, Map.of(2, 2)).of(2), TaskTiers.Request.AUTO)
        .memoryMb()).isEqualTo(3072);
  }

  // ---- The scheduler

  /** A fake invoker that can send to the tiers. */
  private static final class TieredInvoker implements TaskInvoker {
    final FakeTasks.Invoker fake;
    final TaskTiers tiers;

    TieredInvoker(TaskTiers tiers, Function<TaskSpec, TaskResult> behaviour) {
      this.tiers = tiers;
      this.fake = new FakeTasks.Invoker(behaviour);
    }

    @Override
    public java.util.concurrent.CompletableFuture<TaskResult> invoke(TaskSpec spec, StartGate gate) {
      return fake.invoke(spec, gate);
    }

    @Override
    public TaskTiers tiers() {
      return tiers;
    }

    List<Integer> tiersOf(int stage, int partition) {
      return fake.sent.stream().filter(s -> s.getStageId() == stage && s.getPartition() == partition)
          .map(TaskSpec::getFunctionMemoryMb).toList();
    }
  }

  private static final TaskTiers TWO = new TaskTiers(List.of(new TaskTiers.Tier("small", 16),
      new TaskTiers.Tier("large", 1024)));

  /** A control recording finished attempts' results, asking for the given tiers. */
  private static class Control extends FakeTasks.Control {
    final TaskTiers.Request request;
    final List<TaskResult> results = new java.util.concurrent.CopyOnWriteArrayList<>();

    Control(TaskTiers.Request request) {
      this.request = request;
    }

    @Override
    public void attemptFinished(TaskSpec spec, TaskResult result) {
      super.attemptFinished(spec, result);
      results.add(result);
    }

    @Override
    public TaskTiers.Request tierRequest() {
      return request;
    }
  }

  /** Fails for memory whenever its budget is under {@code neededBytes}. */
  private static Function<TaskSpec, TaskResult> needing(long neededBytes) {
    return spec -> spec.getStageId() == 0 && spec.getMemoryBudgetBytes() < neededBytes
        ? failure(spec, ErrorCode.INSUFFICIENT_RESOURCES)
        : spec.getStageId() == 0 ? mapOutput(spec) : reduce(spec, Set.of());
  }

  @Test
  void stagesStartOnTheTierTheirEstimateFitsWithThatTiersBudget() throws Exception {
    TieredInvoker invoker = new TieredInvoker(TWO, needing(0));
    Control control = new Control(TaskTiers.Request.AUTO);
    new StageScheduler(invoker, FAST).run(FakeTasks.mapReducePlan("job-t", 3), Map.of(), control, Duration.ofMinutes(1));
    // Fragments holding nothing: the baseline (2 MiB) fits the 16 MB tier's 9.6 MB budget.
    assertThat(invoker.fake.sent).allSatisfy(s -> {
      assertThat(s.getFunctionMemoryMb()).isEqualTo(16);
      assertThat(s.getMemoryBudgetBytes()).isEqualTo(TWO.smallest().budgetBytes());
    });
    // Each result carries the tier it was sent to, for the summary.
    assertThat(control.results).allSatisfy(r -> assertThat(r.getMetrics().getTierMemoryMb()).isEqualTo(16));
  }

  @Test
  void aTaskThatRunsOutOfMemoryRunsAgainOnTheNextLargerTierAsANewAttempt() throws Exception {
    TieredInvoker invoker = new TieredInvoker(TWO, needing(100 * MB));
    Control control = new Control(TaskTiers.Request.AUTO);
    Map<Integer, TaskResult[]> winners = new StageScheduler(invoker, FAST)
        .run(FakeTasks.mapReducePlan("job-t", 3), Map.of(), control, Duration.ofMinutes(1));
    for (int p = 0; p < 3; p++) {
      assertThat(invoker.fake.attemptsOf(0, p)).containsExactly(0, 1);
      assertThat(invoker.tiersOf(0, p)).containsExactly(16, 1024);
      assertThat(winners.get(0)[p].getAttempt()).isEqualTo(1);
    }
    assertThat(invoker.tiersOf(1, 0)).as("the reducer had enough on the small tier").containsExactly(16);
  }

  @Test
  void aTaskOutOfMemoryOnTheLargestTierItMayUseFailsTheJobWithItsMessage() {
    TieredInvoker invoker = new TieredInvoker(TWO, needing(Long.MAX_VALUE));
    JobFailedException failed = catchThrowableOfType(JobFailedException.class, () -> new StageScheduler(invoker, FAST)
        .run(FakeTasks.mapReducePlan("job-t", 1), Map.of(), new Control(TaskTiers.Request.AUTO), Duration.ofMinutes(1)));
    assertThat(failed).isNotNull();
    assertThat(failed.code()).isEqualTo(ErrorCode.INSUFFICIENT_RESOURCES);
    assertThat(invoker.tiersOf(0, 0)).containsExactly(16, 1024);

    // Capped at the small tier: no second attempt.
    TieredInvoker capped = new TieredInvoker(TWO, needing(100 * MB));
    JobFailedException cappedFailure = catchThrowableOfType(JobFailedException.class, () -> new StageScheduler(capped, FAST)
        .run(FakeTasks.mapReducePlan("job-t", 1), Map.of(), new Control(new TaskTiers.Request(0, 16)), Duration.ofMinutes(1)));
    assertThat(cappedFailure.code()).isEqualTo(ErrorCode.INSUFFICIENT_RESOURCES);
    assertThat(capped.tiersOf(0, 0)).containsExactly(16);
  }

  @Test
  void aPinnedTierStartsEveryStageThereAndAResumedTaskGoesOnAboveTheTierItFailedOn() throws Exception {
    TieredInvoker pinned = new TieredInvoker(TWO, needing(0));
    new StageScheduler(pinned, FAST).run(FakeTasks.mapReducePlan("job-t", 2), Map.of(),
        new Control(new TaskTiers.Request(1024, 0)), Duration.ofMinutes(1));
    assertThat(pinned.fake.sent).allSatisfy(s -> assertThat(s.getFunctionMemoryMb()).isEqualTo(1024));

    TieredInvoker resumed = new TieredInvoker(TWO, needing(100 * MB));
    Control control = new Control(TaskTiers.Request.AUTO) {
      @Override
      public int priorMemoryFailureTierMb(int stageId, int partition) {
        return stageId == 0 && partition == 1 ? 16 : 0;
      }
    };
    new StageScheduler(resumed, FAST).run(FakeTasks.mapReducePlan("job-t", 2), Map.of(), control, Duration.ofMinutes(1));
    assertThat(resumed.tiersOf(0, 0)).containsExactly(16, 1024);
    assertThat(resumed.tiersOf(0, 1)).as("an earlier invocation saw it fail on 16 MB").containsExactly(1024);
  }

  @Test
  void withOneTaskFunctionSpecsNameNoTier() throws Exception {
    TieredInvoker single = new TieredInvoker(TaskTiers.single("only", 2048), needing(0));
    new StageScheduler(single, FAST).run(FakeTasks.mapReducePlan("job-t", 2), Map.of(),
        new Control(TaskTiers.Request.AUTO), Duration.ofMinutes(1));
    assertThat(single.fake.sent).allSatisfy(s -> {
      assertThat(s.getFunctionMemoryMb()).isZero();
      assertThat(s.getMemoryBudgetBytes()).isEqualTo(1 << 20); // the plan's
    });
  }
}

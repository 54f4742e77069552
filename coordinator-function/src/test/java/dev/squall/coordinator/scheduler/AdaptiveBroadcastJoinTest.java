package dev.squall.coordinator.scheduler;

import static dev.squall.coordinator.scheduler.FakeTasks.resultOf;
import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.proto.v1.Aggregate;
import dev.squall.proto.v1.BroadcastSwitch;
import dev.squall.proto.v1.Compression;
import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.Estimates;
import dev.squall.proto.v1.Filter;
import dev.squall.proto.v1.HashJoin;
import dev.squall.proto.v1.JoinType;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.PartitionRange;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.RuntimeFilter;
import dev.squall.proto.v1.Scan;
import dev.squall.proto.v1.ShuffleRead;
import dev.squall.proto.v1.ShuffleSegment;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * The adaptive broadcast join in the scheduler, with a fake invoker: a build stage 0 (two tasks)
 * and a probe stage 1 (three tasks, a filtered scan) feed join stage 2 over hash edges of four
 * partitions (probe at input 0, build at input 1). Every map task writes {@link #PART_BYTES} bytes
 * of each partition at offset {@code 1000 × partition}, so the build side measures 80 bytes.
 */
class AdaptiveBroadcastJoinTest {
  private static final RetryPolicy FAST = new RetryPolicy(4, Duration.ofMillis(1), Duration.ofMillis(5));
  private static final int PARTITIONS = 4;
  private static final long PART_BYTES = 10;
  private static final long BUILD_BYTES = 2 * PARTITIONS * PART_BYTES;

  static final class Control extends FakeTasks.Control {
    final List<JobPlan> changed = new CopyOnWriteArrayList<>();
    Pipelining pipelining = Pipelining.STAGED;

    @Override
    public void planChanged(JobPlan plan) {
      changed.add(plan);
    }

    @Override
    public Pipelining pipelining() {
      return pipelining;
    }
  }

  private static Operator read(int input) {
    return Operator.newBuilder().setShuffleRead(ShuffleRead.newBuilder().setInputIndex(input)).build();
  }

  private static final Operator PROBE_FRAGMENT = Operator.newBuilder().setFilter(Filter.newBuilder()
      .setInput(Operator.newBuilder().setScan(Scan.newBuilder().setInputIndex(0).setTable("facts")))).build();

  /** A hash join of the probe read (input 0) and the filtered build read (input 1); {@code buildLeft}: build on the left. */
  private static Operator join(JoinType type, boolean buildLeft) {
    Operator probe = read(0);
    Operator build = Operator.newBuilder().setFilter(Filter.newBuilder().setInput(read(1))).build();
    return Operator.newBuilder().setHashJoin(HashJoin.newBuilder().setJoinType(type)
        .setLeft(buildLeft ? build : probe).setRight(buildLeft ? probe : build).addLeftKeys(0).addRightKeys(0)).build();
  }

  private static Operator aggregate(Aggregate.Mode mode, Operator input) {
    return Operator.newBuilder().setAggregate(Aggregate.newBuilder().setMode(mode).setInput(input).addGroupKeys(0))
        .build();
  }

  private static StageGraph.Builder graph(Operator joinFragment, long buildEstimate) {
    Partitioning hash = Partitioning.newBuilder().setHash(Partitioning.Hash.newBuilder().setPartitions(PARTITIONS))
        .build();
    return StageGraph.newBuilder()
        .addStages(Stage.newBuilder().setStageId(0).setTaskCount(2).setEstimates(Estimates.newBuilder().setBytes(buildEstimate)))
        .addStages(Stage.newBuilder().setStageId(1).setTaskCount(3).setFragment(PROBE_FRAGMENT)
            .setEstimates(Estimates.newBuilder().setBytes(100_000)))
        .addStages(Stage.newBuilder().setStageId(2).setTaskCount(PARTITIONS).setFragment(joinFragment)
            .setEstimates(Estimates.newBuilder().setRows(7).setBytes(700)))
        .addEdges(Edge.newBuilder().setProducerStageId(0).setConsumerStageId(2).setConsumerInputIndex(1)
            .setPartitioning(hash))
        .addEdges(Edge.newBuilder().setProducerStageId(1).setConsumerStageId(2).setConsumerInputIndex(0)
            .setPartitioning(hash))
        .setRootStageId(2);
  }

  private static JobPlan plan(StageGraph graph, long threshold) {
    return new JobPlan("job-b", graph, Map.of(), "bucket", "jobs/job-b", Compression.LZ4_FRAME, 1 << 20,
        new Schema(List.of()), null).withAdaptiveBroadcastJoinBytes(threshold);
  }

  private static JobPlan plan(Operator joinFragment, long buildEstimate, long threshold) {
    return plan(graph(joinFragment, buildEstimate).build(), threshold);
  }

  /** Runs a plan; records, for every probe task, whether every build task had won before it ran. */
  private static final class Run {
    final FakeTasks.Invoker invoker;
    final Control control = new Control();
    final Map<Integer, Boolean> probeAfterBuild = new ConcurrentHashMap<>();

    Run(JobPlan plan) throws Exception {
      this(plan, new Control());
    }

    Run(JobPlan plan, Control c) throws Exception {
      invoker = new FakeTasks.Invoker(this::answer);
      control.pipelining = c.pipelining;
      new StageScheduler(invoker, FAST).run(plan, Map.of(), control, Duration.ofMinutes(1));
    }

    TaskResult answer(TaskSpec spec) {
      if (spec.getStageId() == 1) {
        probeAfterBuild.put(spec.getPartition(),
            control.winners.containsKey("0.0") && control.winners.containsKey("0.1"));
      }
      TaskResult.Builder r = resultOf(spec).setOutputObjectKey("jobs/job-b/s" + spec.getStageId() + "/m"
          + spec.getPartition() + "/a" + spec.getAttempt());
      if (spec.getStageId() < 2) {
        for (int p = 0; p < PARTITIONS; p++) {
          r.addPartitions(PartitionRange.newBuilder().setPartition(p).setOffset(1000L * p).setLength(PART_BYTES)
              .setRows(1));
        }
      }
      return r.build();
    }

    List<TaskSpec> sentTo(int stage) {
      return invoker.sent.stream().filter(s -> s.getStageId() == stage).toList();
    }

    JobPlan last() {
      return control.changed.isEmpty() ? null : control.changed.get(control.changed.size() - 1);
    }

    boolean switched() {
      return last() != null && last().graph().getStagesList().stream().anyMatch(Stage::hasBroadcastSwitch);
    }
  }

  @Test
  void aSmallBuildSideTurnsTheJoinIntoABroadcastJoinInTheProbeStage() throws Exception {
    Run run = new Run(plan(join(JoinType.INNER, false), 1_000, 500));

    assertThat(run.probeAfterBuild).as("the probe stage waited for the build stage").hasSize(3)
        .allSatisfy((p, after) -> assertThat(after).isTrue());
    assertThat(run.sentTo(2)).as("the join stage ran no task").isEmpty();
    StageGraph g = run.last().graph();
    assertThat(g.getStagesList()).extracting(Stage::getStageId).containsExactly(0, 1);
    assertThat(g.getRootStageId()).isEqualTo(1);
    Stage taken = g.getStages(1);
    assertThat(taken.getBroadcastSwitch()).isEqualTo(BroadcastSwitch.newBuilder().setJoinStageId(2)
        .setBuildStageId(0).setBuildBytes(BUILD_BYTES).build());
    assertThat(taken.getEstimates().getRows()).as("the join stage's estimates").isEqualTo(7);
    HashJoin j = taken.getFragment().getHashJoin();
    assertThat(j.getLeft()).as("the probe fragment in place of its read").isEqualTo(PROBE_FRAGMENT);
    assertThat(j.getRight().getFilter().getInput()).isEqualTo(read(1));
    assertThat(j.getBuildSide()).isEqualTo(HashJoin.BuildSide.BUILD_RIGHT);
    assertThat(g.getEdgesList()).singleElement().satisfies(e -> {
      assertThat(e.getProducerStageId()).isZero();
      assertThat(e.getConsumerStageId()).isEqualTo(1);
      assertThat(e.getConsumerInputIndex()).as("after the probe scan's input").isEqualTo(1);
      assertThat(e.getPartitioning().hasBroadcast()).isTrue();
    });
    new StageTopology(g, run.last().taskCounts()); // consistent
    assertThat(new StageMemoryEstimate(g, run.last().taskCounts()).of(1)).as("holds the measured build side")
        .isEqualTo(StageMemoryEstimate.BASELINE_BYTES + StageMemoryEstimate.HELD_FACTOR * BUILD_BYTES);
    for (TaskSpec probe : run.sentTo(1)) {
      TreeSet<String> read = new TreeSet<>();
      for (ShuffleSegment s : probe.getInputs(1).getShuffle().getSegmentsList()) {
        read.add(s.getProducerPartition() + "." + s.getOffset() / 1000);
      }
      assertThat(read).as("every partition of every build map output")
          .containsExactly("0.0", "0.1", "0.2", "0.3", "1.0", "1.1", "1.2", "1.3");
      assertThat(probe.getFragment().hasHashJoin()).isTrue();
      assertThat(probe.getOutput().hasResult()).as("the root's output").isTrue();
    }
  }

  @Test
  void theJoinStagesOutputEdgeAndRuntimeFiltersMoveToTheProbeStage() {
    StageGraph.Builder b = graph(aggregate(Aggregate.Mode.PARTIAL, join(JoinType.INNER, false)), 1_000);
    b.getStagesBuilder(2).setTaskCount(PARTITIONS);
    b.addStages(Stage.newBuilder().setStageId(3).setTaskCount(1)).setRootStageId(3)
        .addEdges(Edge.newBuilder().setProducerStageId(2).setConsumerStageId(3).setConsumerInputIndex(0)
            .setPartitioning(Partitioning.newBuilder().setSingle(Partitioning.Single.getDefaultInstance())))
        .addRuntimeFilters(RuntimeFilter.newBuilder().setFilterId(1).setBuildStageId(0).setProbeStageId(1))
        .addRuntimeFilters(RuntimeFilter.newBuilder().setFilterId(2).setBuildStageId(2).setProbeStageId(9));
    StageTopology topology = new StageTopology(b.build(), Map.of(0, 2, 1, 3, 2, PARTITIONS, 3, 1));
    AdaptiveBroadcastJoin.Candidate c = AdaptiveBroadcastJoin.candidate(topology, b.getRuntimeFiltersList(), 2)
        .orElseThrow();
    StageGraph g = AdaptiveBroadcastJoin.rewrite(b.build(), c, 80);

    assertThat(g.getStagesList()).extracting(Stage::getStageId).containsExactly(0, 1, 3);
    assertThat(g.getRootStageId()).isEqualTo(3);
    assertThat(g.getEdgesList()).anySatisfy(e -> {
      assertThat(e.getProducerStageId()).isEqualTo(1);
      assertThat(e.getConsumerStageId()).isEqualTo(3);
      assertThat(e.getPartitioning().hasSingle()).isTrue();
    });
    assertThat(g.getStages(1).getFragment().getAggregate().getInput().getHashJoin().getLeft()).isEqualTo(PROBE_FRAGMENT);
    assertThat(g.getRuntimeFiltersList()).extracting(RuntimeFilter::getBuildStageId).containsExactly(0, 1);
    new StageTopology(g, Map.of(0, 2, 1, 3, 3, 1));
  }

  @Test
  void theAdaptiveJoinOffRunsThePartitionedJoinWithoutWaiting() throws Exception {
    Run run = new Run(plan(join(JoinType.INNER, false), 1_000, 0));

    assertThat(run.sentTo(2)).hasSize(PARTITIONS);
    assertThat(run.switched()).isFalse();
  }

  @Test
  void aBuildSideMeasuredOverTheThresholdKeepsThePartitionedJoin() throws Exception {
    // Estimated within 4 x 50 bytes, so the probe stage waits; measured 80 > 50.
    Run run = new Run(plan(join(JoinType.INNER, false), 150, 50));

    assertThat(run.probeAfterBuild).hasSize(3).allSatisfy((p, after) -> assertThat(after).isTrue());
    assertThat(run.sentTo(2)).hasSize(PARTITIONS);
    assertThat(run.switched()).isFalse();
  }

  @Test
  void aBuildSideEstimatedFarOverTheThresholdIsNotWaitedFor() {
    StageGraph.Builder b = graph(join(JoinType.INNER, false), 1_000);
    Map<Integer, Integer> tasks = Map.of(0, 2, 1, 3, 2, PARTITIONS);
    StageTopology topology = new StageTopology(b.build(), tasks);
    // Waits when a quarter of the estimate (250 bytes) would switch.
    assertThat(AdaptiveBroadcastJoin.waiting(topology, List.of(), 200, tasks)).isEmpty();
    assertThat(AdaptiveBroadcastJoin.waiting(topology, List.of(), 250, tasks)).containsOnlyKeys(1);
    // A runtime filter already makes the probe stage wait: no estimate needed.
    RuntimeFilter filter = RuntimeFilter.newBuilder().setBuildStageId(0).setProbeStageId(1).build();
    assertThat(AdaptiveBroadcastJoin.waiting(topology, List.of(filter), 1, tasks)).containsOnlyKeys(1);
    assertThat(AdaptiveBroadcastJoin.waiting(topology, List.of(filter), 0, tasks)).as("off").isEmpty();
    // A small probe side: copies of even a quarter of the build side to its 3 tasks cost more than its
    // shuffle (a LEFT join, whose build side can only be the right one).
    StageGraph.Builder left = graph(join(JoinType.LEFT, false), 1_000);
    left.getStagesBuilder(1).setEstimates(Estimates.newBuilder().setBytes(100));
    assertThat(AdaptiveBroadcastJoin.waiting(new StageTopology(left.build(), tasks), List.of(), 250, tasks)).isEmpty();
    // An INNER join then builds on the smaller side, the other way round.
    b.getStagesBuilder(1).setEstimates(Estimates.newBuilder().setBytes(100));
    assertThat(AdaptiveBroadcastJoin.waiting(new StageTopology(b.build(), tasks), List.of(), 250, tasks))
        .containsOnlyKeys(0);
  }

  @Test
  void copiesToEveryProbeTaskMustMoveNoMoreThanTheShuffle() {
    assertThat(AdaptiveBroadcastJoin.worthIt(80, 100, 3, 1_000)).isTrue();
    assertThat(AdaptiveBroadcastJoin.worthIt(101, 100, 3, 1_000)).isFalse();
    assertThat(AdaptiveBroadcastJoin.worthIt(80, 100, 1_000, 1_000)).isFalse();
    assertThat(AdaptiveBroadcastJoin.worthIt(0, 0, 1, 0)).as("off").isFalse();
  }

  @Test
  void aLeftJoinBroadcastsOnlyItsRightSide() throws Exception {
    Run right = new Run(plan(join(JoinType.LEFT, false), 1_000, 500));
    assertThat(right.switched()).isTrue();
    assertThat(right.last().graph().getStages(1).getFragment().getHashJoin().getBuildSide())
        .isEqualTo(HashJoin.BuildSide.BUILD_RIGHT);

    Run left = new Run(plan(join(JoinType.LEFT, true), 1_000, 500));
    assertThat(left.switched()).as("the preserved side cannot be read whole by every task").isFalse();
    assertThat(left.sentTo(2)).hasSize(PARTITIONS);
  }

  @Test
  void aRightJoinBroadcastsOnlyItsLeftSide() throws Exception {
    Run left = new Run(plan(join(JoinType.RIGHT, true), 1_000, 500));
    assertThat(left.switched()).isTrue();
    HashJoin j = left.last().graph().getStages(1).getFragment().getHashJoin();
    assertThat(j.getBuildSide()).isEqualTo(HashJoin.BuildSide.BUILD_LEFT);
    assertThat(j.getRight()).isEqualTo(PROBE_FRAGMENT);

    assertThat(new Run(plan(join(JoinType.RIGHT, false), 1_000, 500)).switched()).isFalse();
  }

  @Test
  void fullJoinsAndAggregationsThatNeedEveryRowOfAKeyAreNotSwitched() throws Exception {
    for (Operator fragment : List.of(join(JoinType.FULL, false),
        aggregate(Aggregate.Mode.FINAL, join(JoinType.INNER, false)),
        aggregate(Aggregate.Mode.SINGLE, join(JoinType.INNER, false)))) {
      Run run = new Run(plan(fragment, 1_000, 500));
      assertThat(run.switched()).as("%s", fragment.getOpCase()).isFalse();
      assertThat(run.sentTo(2)).hasSize(PARTITIONS);
    }
    Run partial = new Run(plan(aggregate(Aggregate.Mode.PARTIAL, join(JoinType.INNER, false)), 1_000, 500));
    assertThat(partial.switched()).isTrue();
  }

  @Test
  void aJoinStageFeedingAForwardEdgeIsNotSwitched() {
    StageGraph.Builder b = graph(join(JoinType.INNER, false), 1_000);
    b.addStages(Stage.newBuilder().setStageId(3).setTaskCount(PARTITIONS)).setRootStageId(3)
        .addEdges(Edge.newBuilder().setProducerStageId(2).setConsumerStageId(3).setConsumerInputIndex(0)
            .setPartitioning(Partitioning.newBuilder().setForward(Partitioning.Forward.getDefaultInstance())));
    StageTopology topology = new StageTopology(b.build(), Map.of(0, 2, 1, 3, 2, PARTITIONS, 3, PARTITIONS));
    assertThat(AdaptiveBroadcastJoin.candidate(topology, List.of(), 2)).isEmpty();
  }

  @Test
  void pipelinedRunsDoNotSwitch() throws Exception {
    Pipelining.WinnerBoard board = new Pipelining.WinnerBoard() {
      @Override
      public void publish(TaskResult winner) {}

      @Override
      public void retract(int stageId, int partition) {}

      @Override
      public void stopTasks() {}
    };
    Control c = new Control();
    c.pipelining = new Pipelining(Pipelining.Mode.PIPELINED, 64, 64, board);
    Run run = new Run(plan(join(JoinType.INNER, false), 1_000, 500), c);

    assertThat(run.switched()).isFalse();
    assertThat(run.sentTo(2)).hasSize(PARTITIONS);
  }

  @Test
  void aResumedJobWhoseProbeStageWonTasksKeepsThePartitionedJoin() throws Exception {
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(spec -> resultOf(spec).setOutputObjectKey("k")
        .addPartitions(PartitionRange.newBuilder().setPartition(0).setLength(1)).build());
    Control control = new Control();
    TaskResult[] probe = new TaskResult[3];
    probe[0] = TaskResult.newBuilder().setStageId(1).setPartition(0).setOutputObjectKey("k")
        .addPartitions(PartitionRange.newBuilder().setPartition(0).setLength(1)).build();
    new StageScheduler(invoker, FAST).run(plan(join(JoinType.INNER, false), 1_000, 500), Map.of(1, probe), control,
        Duration.ofMinutes(1));
    assertThat(control.changed).isEmpty();
    assertThat(invoker.sent.stream().filter(s -> s.getStageId() == 2).map(TaskSpec::getPartition))
        .containsExactlyInAnyOrderElementsOf(Set.of(0, 1, 2, 3));
  }
}

package dev.squall.coordinator.scheduler;

import static dev.squall.coordinator.scheduler.FakeTasks.failure;
import static dev.squall.coordinator.scheduler.FakeTasks.resultOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.proto.v1.Aggregate;
import dev.squall.proto.v1.Compression;
import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.Filter;
import dev.squall.proto.v1.HashJoin;
import dev.squall.proto.v1.JoinType;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.PartitionRange;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.ShuffleRead;
import dev.squall.proto.v1.ShuffleSegment;
import dev.squall.proto.v1.SkewSplit;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * Skew splitting in the scheduler, with a fake invoker: a left map stage of four tasks and a right
 * map stage of two feed a join stage over hash edges of 8 partitions. Each left map task writes 10
 * bytes of each partition but {@link #SKEWED_BYTES} of partition 3 (400 bytes in all, ten times the
 * left median of 40); each right map task writes 10 bytes of each partition. Segment offsets are
 * {@code 1000 × partition}, so a consumer's segments tell which partitions and map tasks it reads.
 */
class SkewJoinSplittingTest {
  private static final RetryPolicy FAST = new RetryPolicy(4, Duration.ofMillis(1), Duration.ofMillis(5));
  private static final int PARTITIONS = 8;
  private static final int SKEWED = 3;
  private static final long SKEWED_BYTES = 100;

  static final class Control extends FakeTasks.Control {
    final List<JobPlan> changed = new CopyOnWriteArrayList<>();

    @Override
    public void planChanged(JobPlan plan) {
      changed.add(plan);
    }
  }

  private static Operator read(int input) {
    return Operator.newBuilder().setShuffleRead(ShuffleRead.newBuilder().setInputIndex(input)).build();
  }

  private static Operator join(JoinType type) {
    return Operator.newBuilder().setHashJoin(HashJoin.newBuilder().setJoinType(type).setLeft(read(0))
        .setRight(Operator.newBuilder().setFilter(Filter.newBuilder().setInput(read(1)))).addLeftKeys(0)
        .addRightKeys(0)).build();
  }

  private static Operator aggregate(Aggregate.Mode mode, Operator input) {
    return Operator.newBuilder().setAggregate(Aggregate.newBuilder().setMode(mode).setInput(input).addGroupKeys(0))
        .build();
  }

  private static JobPlan plan(Operator fragment, long targetBytes, int factor, long minBytes) {
    Partitioning hash = Partitioning.newBuilder().setHash(Partitioning.Hash.newBuilder().setPartitions(PARTITIONS))
        .build();
    StageGraph graph = StageGraph.newBuilder()
        .addStages(Stage.newBuilder().setStageId(0).setTaskCount(4))
        .addStages(Stage.newBuilder().setStageId(1).setTaskCount(2))
        .addStages(Stage.newBuilder().setStageId(2).setTaskCount(PARTITIONS).setFragment(fragment))
        .addEdges(Edge.newBuilder().setProducerStageId(0).setConsumerStageId(2).setConsumerInputIndex(0)
            .setPartitioning(hash))
        .addEdges(Edge.newBuilder().setProducerStageId(1).setConsumerStageId(2).setConsumerInputIndex(1)
            .setPartitioning(hash))
        .setRootStageId(2).build();
    return new JobPlan("job-s", graph, Map.of(), "bucket", "jobs/job-s", Compression.LZ4_FRAME, 1 << 20,
        new Schema(List.of()), null).withAdaptiveTargetPartitionBytes(targetBytes)
        .withSkewSplitting(factor, minBytes);
  }

  private static JobPlan plan(JoinType type) {
    return plan(join(type), 200, 5, 0);
  }

  /** Map outputs with the left side skewed at partition 3 (with {@code rightSkewed}, the right side: 400 bytes a map task). */
  private static TaskResult answer(TaskSpec spec, boolean rightSkewed) {
    if (spec.getStageId() == 2) {
      return resultOf(spec).setOutputObjectKey("jobs/job-s/s2/m" + spec.getPartition()).build();
    }
    TaskResult.Builder r = resultOf(spec).setOutputObjectKey("jobs/job-s/s" + spec.getStageId() + "/m"
        + spec.getPartition() + "/a" + spec.getAttempt());
    boolean skewedSide = (spec.getStageId() == 1) == rightSkewed;
    for (int p = 0; p < PARTITIONS; p++) {
      long length = p == SKEWED && skewedSide ? SKEWED_BYTES * (rightSkewed ? 2 : 1) : 10;
      r.addPartitions(PartitionRange.newBuilder().setPartition(p).setOffset(1000L * p).setLength(length).setRows(1));
    }
    return r.build();
  }

  private static TaskResult answer(TaskSpec spec) {
    return answer(spec, false);
  }

  private static TreeSet<Integer> partitionsRead(TaskSpec spec, int input) {
    TreeSet<Integer> partitions = new TreeSet<>();
    for (ShuffleSegment s : spec.getInputs(input).getShuffle().getSegmentsList()) {
      partitions.add((int) (s.getOffset() / 1000));
    }
    return partitions;
  }

  private static TreeSet<Integer> mapTasksRead(TaskSpec spec, int input) {
    TreeSet<Integer> maps = new TreeSet<>();
    for (ShuffleSegment s : spec.getInputs(input).getShuffle().getSegmentsList()) {
      maps.add(s.getProducerPartition());
    }
    return maps;
  }

  private static List<TaskSpec> consumerSpecs(FakeTasks.Invoker invoker) {
    return invoker.sent.stream().filter(s -> s.getStageId() == 2).toList();
  }

  private static Control run(JobPlan plan, FakeTasks.Invoker invoker) throws Exception {
    Control control = new Control();
    new StageScheduler(invoker, FAST).run(plan, Map.of(), control, Duration.ofMinutes(1));
    return control;
  }

  @Test
  void aSkewedPartitionOfAnInnerJoinIsSplitByMapTasksOfItsSkewedSide() throws Exception {
    // Per partition over both sides: 60 bytes, partition 3: 420; target 200 groups [0,3) [3] [4,7) [7].
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(SkewJoinSplittingTest::answer);
    Control control = run(plan(JoinType.INNER), invoker);

    assertThat(control.changed).hasSize(1);
    JobPlan changed = control.changed.get(0);
    Stage stage = changed.graph().getStages(2);
    assertThat(stage.getPartitionGroupStartsList()).containsExactly(0, 3, 4, 7);
    assertThat(stage.getSkewSplitsList()).containsExactly(SkewSplit.newBuilder().setPartition(SKEWED)
        .setConsumerInputIndex(0).addMapTaskStarts(0).addMapTaskStarts(2).build());
    assertThat(changed.taskCounts()).containsEntry(2, 5);
    List<TaskSpec> specs = consumerSpecs(invoker);
    assertThat(specs).extracting(TaskSpec::getPartition).containsExactlyInAnyOrder(0, 1, 2, 3, 4);
    for (TaskSpec s : specs) {
      switch (s.getPartition()) {
        case 0 -> assertThat(partitionsRead(s, 0)).containsExactly(0, 1, 2);
        case 1, 2 -> {
          assertThat(partitionsRead(s, 0)).containsExactly(SKEWED);
          assertThat(partitionsRead(s, 1)).containsExactly(SKEWED);
          assertThat(mapTasksRead(s, 0)).as("piece %d of the skewed side", s.getPartition())
              .containsExactlyElementsOf(s.getPartition() == 1 ? List.of(0, 1) : List.of(2, 3));
          assertThat(mapTasksRead(s, 1)).as("the whole other side").containsExactly(0, 1);
        }
        case 3 -> assertThat(partitionsRead(s, 1)).containsExactly(4, 5, 6);
        default -> assertThat(partitionsRead(s, 0)).containsExactly(7);
      }
    }
    new StageTopology(changed.graph(), changed.taskCounts()); // consistent
  }

  @Test
  void anInnerJoinSplitsItsRightSideWhenThatIsTheSkewedOne() throws Exception {
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(s -> answer(s, true));
    Control control = run(plan(join(JoinType.INNER), 250, 5, 0), invoker);

    Stage stage = control.changed.get(0).graph().getStages(2);
    assertThat(stage.getSkewSplitsList()).singleElement().satisfies(s -> {
      assertThat(s.getConsumerInputIndex()).isEqualTo(1);
      assertThat(s.getMapTaskStartsList()).containsExactly(0, 1);
    });
    List<TaskSpec> pieces = consumerSpecs(invoker).stream()
        .filter(s -> partitionsRead(s, 1).equals(new TreeSet<>(List.of(SKEWED)))).toList();
    assertThat(pieces).hasSize(2).allSatisfy(s -> assertThat(mapTasksRead(s, 0)).containsExactly(0, 1, 2, 3));
    assertThat(pieces).extracting(s -> mapTasksRead(s, 1).first()).containsExactlyInAnyOrder(0, 1);
  }

  @Test
  void leftSemiAndAntiJoinsSplitOnlyTheirLeftSide() throws Exception {
    for (JoinType type : List.of(JoinType.LEFT, JoinType.SEMI, JoinType.ANTI)) {
      Control left = run(plan(type), new FakeTasks.Invoker(SkewJoinSplittingTest::answer));
      assertThat(left.changed.get(0).graph().getStages(2).getSkewSplitsCount()).as("%s, left skewed", type)
          .isEqualTo(1);
      // The right side skewed: each piece would emit the left rows of the partition again.
      Control right = run(plan(join(type), 250, 5, 0), new FakeTasks.Invoker(s -> answer(s, true)));
      assertThat(right.changed.get(0).graph().getStages(2).getSkewSplitsCount()).as("%s, right skewed", type)
          .isZero();
      assertThat(right.changed.get(0).taskCounts().get(2)).as("coalesced only")
          .isEqualTo(right.changed.get(0).graph().getStages(2).getPartitionGroupStartsCount());
    }
  }

  @Test
  void aRightJoinSplitsOnlyItsRightSideAndAFullJoinNeither() throws Exception {
    assertThat(run(plan(JoinType.RIGHT), new FakeTasks.Invoker(SkewJoinSplittingTest::answer)).changed.get(0)
        .graph().getStages(2).getSkewSplitsCount()).isZero();
    assertThat(run(plan(join(JoinType.RIGHT), 250, 5, 0), new FakeTasks.Invoker(s -> answer(s, true))).changed
        .get(0).graph().getStages(2).getSkewSplitsCount()).isEqualTo(1);
    assertThat(run(plan(JoinType.FULL), new FakeTasks.Invoker(SkewJoinSplittingTest::answer)).changed.get(0)
        .graph().getStages(2).getSkewSplitsCount()).isZero();
  }

  @Test
  void aStageThatAggregatesAboveTheJoinIsSplitOnlyForAPartialAggregation() {
    assertThat(SkewJoinSplitter.splittableInputs(aggregate(Aggregate.Mode.FINAL, join(JoinType.INNER)))).isEmpty();
    assertThat(SkewJoinSplitter.splittableInputs(aggregate(Aggregate.Mode.SINGLE, join(JoinType.INNER)))).isEmpty();
    assertThat(SkewJoinSplitter.splittableInputs(aggregate(Aggregate.Mode.PARTIAL, join(JoinType.INNER))))
        .containsExactlyInAnyOrder(0, 1);
    // A side that is not a plain read (an aggregation under the join) is never split.
    Operator aggregatedLeft = Operator.newBuilder().setHashJoin(HashJoin.newBuilder().setJoinType(JoinType.INNER)
        .setLeft(aggregate(Aggregate.Mode.FINAL, read(0))).setRight(read(1))).build();
    assertThat(SkewJoinSplitter.splittableInputs(aggregatedLeft)).containsExactly(1);
    assertThat(SkewJoinSplitter.splittableInputs(read(0))).isEmpty();
  }

  @Test
  void settingsBoundWhatIsSkewed() throws Exception {
    // Under the minimum bytes, or with the factor off, nothing is split (only coalesced).
    for (JobPlan p : List.of(plan(join(JoinType.INNER), 200, 5, 400), plan(join(JoinType.INNER), 200, 0, 0),
        plan(join(JoinType.INNER), 200, 11, 0))) {
      Control control = run(p, new FakeTasks.Invoker(SkewJoinSplittingTest::answer));
      assertThat(control.changed.get(0).graph().getStages(2).getSkewSplitsCount()).isZero();
    }
    // Target 0 turns adaptive execution off altogether.
    assertThat(run(plan(join(JoinType.INNER), 0, 5, 0), new FakeTasks.Invoker(SkewJoinSplittingTest::answer))
        .changed).isEmpty();
    // A skewed partition whose map tasks all fit one piece is not split.
    assertThat(run(plan(join(JoinType.INNER), 400, 5, 0), new FakeTasks.Invoker(SkewJoinSplittingTest::answer))
        .changed.get(0).graph().getStages(2).getSkewSplitsCount()).isZero();
  }

  @Test
  void aRetriedPieceReadsTheSameMapTasksAndAResumedRunKeepsTheSplit() throws Exception {
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(spec -> spec.getStageId() == 2 && spec.getPartition() == 2
        && spec.getAttempt() == 0 ? failure(spec, ErrorCode.INTERNAL_ERROR) : answer(spec));
    Control control = new Control();
    Map<Integer, TaskResult[]> done = new StageScheduler(invoker, FAST)
        .run(plan(JoinType.INNER), Map.of(), control, Duration.ofMinutes(1));
    assertThat(invoker.attemptsOf(2, 2)).containsExactly(0, 1);
    assertThat(consumerSpecs(invoker).stream().filter(s -> s.getPartition() == 2))
        .allSatisfy(s -> assertThat(mapTasksRead(s, 0)).containsExactly(2, 3));
    assertThat(done.get(2)).hasSize(5).doesNotContainNull();

    JobPlan stored = JobPlan.fromRecord(control.changed.get(0).toRecord());
    assertThat(stored.skewFactor()).isEqualTo(5);
    TaskResult[] prior = new TaskResult[5];
    prior[0] = done.get(2)[0];
    prior[1] = done.get(2)[1];
    FakeTasks.Invoker second = new FakeTasks.Invoker(SkewJoinSplittingTest::answer);
    Control resumed = new Control();
    Map<Integer, TaskResult[]> winners = new StageScheduler(second, FAST).run(stored,
        Map.of(0, done.get(0), 1, done.get(1), 2, prior), resumed, Duration.ofMinutes(1));
    assertThat(resumed.changed).isEmpty();
    assertThat(second.sent).extracting(TaskSpec::getPartition).containsExactlyInAnyOrder(2, 3, 4);
    assertThat(second.sent.stream().filter(s -> s.getPartition() == 2))
        .allSatisfy(s -> assertThat(mapTasksRead(s, 0)).containsExactly(2, 3));
    assertThat(winners.get(2)).hasSize(5).doesNotContainNull();
  }

  @Test
  void theTopologyRefusesASplitPartitionThatIsNotAGroupOfItsOwn() {
    JobPlan p = plan(JoinType.INNER);
    StageGraph.Builder g = p.graph().toBuilder();
    g.setStages(2, g.getStages(2).toBuilder().addAllPartitionGroupStarts(List.of(0, 4)).addSkewSplits(
        SkewSplit.newBuilder().setPartition(SKEWED).setConsumerInputIndex(0).addMapTaskStarts(0).addMapTaskStarts(2)));
    JobPlan bad = p.withGraph(g.build());
    assertThatThrownBy(() -> new StageTopology(bad.graph(), bad.taskCounts()))
        .hasMessageContaining("not a group of its own");
  }

  @Test
  void piecesAndMediansAreComputedFromTheMeasuredBytes() {
    assertThat(SkewJoinSplitter.median(new long[] {40, 400, 40, 40})).isEqualTo(40);
    assertThat(SkewJoinSplitter.mapTaskStarts(new long[] {100, 100, 100, 100}, 200)).containsExactly(0, 2);
    assertThat(SkewJoinSplitter.mapTaskStarts(new long[] {0, 300, 0, 10}, 200)).containsExactly(0, 2);
  }
}

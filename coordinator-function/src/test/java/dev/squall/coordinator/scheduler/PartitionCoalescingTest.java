package dev.squall.coordinator.scheduler;

import static dev.squall.coordinator.scheduler.FakeTasks.failure;
import static dev.squall.coordinator.scheduler.FakeTasks.resultOf;
import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.proto.v1.Compression;
import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.PartitionRange;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.ShuffleSegment;
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
 * Adaptive coalescing in the scheduler, with a fake invoker: two map stages of two tasks each
 * (the sides of a join) feed a root stage over hash edges of 8 partitions. Each map task writes
 * {@link #BYTES_PER_MAP_TASK} bytes of each partition at offset {@code 1000 × partition}, so a
 * consumer's segments tell which partitions it reads.
 */
class PartitionCoalescingTest {
  private static final RetryPolicy FAST = new RetryPolicy(4, Duration.ofMillis(1), Duration.ofMillis(5));
  /** Per partition, per map task: four map tasks write 4× these bytes of each partition. */
  private static final long[] BYTES_PER_MAP_TASK = {10, 10, 10, 50, 0, 0, 10, 10};
  private static final int PARTITIONS = BYTES_PER_MAP_TASK.length;

  /** Records the plans the scheduler hands over, as the job store's control stores them. */
  static final class Control extends FakeTasks.Control {
    final List<JobPlan> changed = new CopyOnWriteArrayList<>();

    @Override
    public void planChanged(JobPlan plan) {
      changed.add(plan);
    }
  }

  private static JobPlan joinPlan(long targetBytes) {
    Partitioning hash = Partitioning.newBuilder().setHash(Partitioning.Hash.newBuilder().setPartitions(PARTITIONS))
        .build();
    StageGraph graph = StageGraph.newBuilder()
        .addStages(Stage.newBuilder().setStageId(0).setTaskCount(2))
        .addStages(Stage.newBuilder().setStageId(1).setTaskCount(2))
        .addStages(Stage.newBuilder().setStageId(2).setTaskCount(PARTITIONS))
        .addEdges(Edge.newBuilder().setProducerStageId(0).setConsumerStageId(2).setConsumerInputIndex(0)
            .setPartitioning(hash))
        .addEdges(Edge.newBuilder().setProducerStageId(1).setConsumerStageId(2).setConsumerInputIndex(1)
            .setPartitioning(hash))
        .setRootStageId(2).build();
    return new JobPlan("job-c", graph, Map.of(), "bucket", "jobs/job-c", Compression.LZ4_FRAME, 1 << 20,
        new Schema(List.of()), null).withAdaptiveTargetPartitionBytes(targetBytes);
  }

  private static TaskResult answer(TaskSpec spec) {
    if (spec.getStageId() == 2) {
      return resultOf(spec).setOutputObjectKey("jobs/job-c/s2/m" + spec.getPartition()).build();
    }
    TaskResult.Builder r = resultOf(spec).setOutputObjectKey("jobs/job-c/s" + spec.getStageId() + "/m"
        + spec.getPartition() + "/a" + spec.getAttempt());
    for (int p = 0; p < PARTITIONS; p++) {
      r.addPartitions(PartitionRange.newBuilder().setPartition(p).setOffset(1000L * p).setLength(BYTES_PER_MAP_TASK[p])
          .setRows(1));
    }
    return r.build();
  }

  /** The partitions one consumer spec reads on input {@code input}, from its segments' offsets. */
  private static TreeSet<Integer> partitionsRead(TaskSpec spec, int input) {
    TreeSet<Integer> partitions = new TreeSet<>();
    for (ShuffleSegment s : spec.getInputs(input).getShuffle().getSegmentsList()) {
      partitions.add((int) (s.getOffset() / 1000));
    }
    return partitions;
  }

  private static List<TaskSpec> consumerSpecs(FakeTasks.Invoker invoker) {
    return invoker.sent.stream().filter(s -> s.getStageId() == 2).toList();
  }

  @Test
  void adjacentPartitionsAreGroupedUpToTheTargetSummedOverBothSidesOfTheJoin() throws Exception {
    // Summed over 4 map tasks: 40 40 40 200 0 0 40 40 bytes; target 100.
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(PartitionCoalescingTest::answer);
    Control control = new Control();

    Map<Integer, TaskResult[]> winners = new StageScheduler(invoker, FAST)
        .run(joinPlan(100), Map.of(), control, Duration.ofMinutes(1));

    assertThat(control.changed).hasSize(1);
    Stage coalesced = control.changed.get(0).graph().getStages(2);
    assertThat(coalesced.getPartitionGroupStartsList()).containsExactly(0, 2, 3, 4);
    assertThat(coalesced.getTaskCount()).as("as planned").isEqualTo(PARTITIONS);
    assertThat(control.changed.get(0).taskCounts()).containsEntry(2, 4);
    assertThat(winners.get(2)).hasSize(4).doesNotContainNull();
    List<TaskSpec> specs = consumerSpecs(invoker);
    assertThat(specs).extracting(TaskSpec::getPartition).containsExactlyInAnyOrder(0, 1, 2, 3);
    List<List<Integer>> expected = List.of(List.of(0, 1), List.of(2), List.of(3), List.of(6, 7));
    for (TaskSpec s : specs) {
      List<Integer> want = expected.get(s.getPartition());
      // Both sides of the join read the same partitions (empty ones cost no segment).
      assertThat(partitionsRead(s, 0)).as("task %d, left side", s.getPartition()).containsExactlyElementsOf(want);
      assertThat(partitionsRead(s, 1)).as("task %d, right side", s.getPartition()).containsExactlyElementsOf(want);
      assertThat(s.getInputs(0).getShuffle().getSegmentsCount()).isEqualTo(2 * want.size()); // two map tasks
    }
  }

  @Test
  void aRetriedAttemptOfACoalescedTaskReadsTheSamePartitions() throws Exception {
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(spec -> spec.getStageId() == 2 && spec.getPartition() == 0
        && spec.getAttempt() == 0 ? failure(spec, ErrorCode.INTERNAL_ERROR) : answer(spec));
    Control control = new Control();

    Map<Integer, TaskResult[]> winners = new StageScheduler(invoker, FAST)
        .run(joinPlan(100), Map.of(), control, Duration.ofMinutes(1));

    assertThat(invoker.attemptsOf(2, 0)).containsExactly(0, 1);
    assertThat(winners.get(2)[0].getAttempt()).isEqualTo(1);
    List<TaskSpec> attempts = consumerSpecs(invoker).stream().filter(s -> s.getPartition() == 0).toList();
    assertThat(attempts).allSatisfy(s -> assertThat(partitionsRead(s, 0)).containsExactly(0, 1));
    assertThat(control.changed).hasSize(1);
  }

  @Test
  void aResumedRunKeepsTheStoredGroupsAndRunsOnlyTheTasksWithoutAWinner() throws Exception {
    FakeTasks.Invoker first = new FakeTasks.Invoker(PartitionCoalescingTest::answer);
    Control control = new Control();
    Map<Integer, TaskResult[]> done = new StageScheduler(first, FAST)
        .run(joinPlan(100), Map.of(), control, Duration.ofMinutes(1));
    JobPlan stored = control.changed.get(0);
    TaskResult[] consumerPrior = new TaskResult[4];
    consumerPrior[1] = done.get(2)[1];

    FakeTasks.Invoker second = new FakeTasks.Invoker(PartitionCoalescingTest::answer);
    Control resumed = new Control();
    Map<Integer, TaskResult[]> winners = new StageScheduler(second, FAST).run(stored,
        Map.of(0, done.get(0), 1, done.get(1), 2, consumerPrior), resumed, Duration.ofMinutes(1));

    assertThat(resumed.changed).isEmpty();
    assertThat(second.sent).extracting(TaskSpec::getPartition).containsExactlyInAnyOrder(0, 2, 3);
    assertThat(second.sent).allMatch(s -> s.getStageId() == 2);
    assertThat(winners.get(2)).hasSize(4).doesNotContainNull();
  }

  @Test
  void aZeroTargetRunsThePlannedTasks() throws Exception {
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(PartitionCoalescingTest::answer);
    Control control = new Control();

    Map<Integer, TaskResult[]> winners = new StageScheduler(invoker, FAST)
        .run(joinPlan(0), Map.of(), control, Duration.ofMinutes(1));

    assertThat(control.changed).isEmpty();
    assertThat(consumerSpecs(invoker)).hasSize(PARTITIONS)
        .allSatisfy(s -> assertThat(partitionsRead(s, 0)).isSubsetOf(s.getPartition()));
    assertThat(winners.get(2)).hasSize(PARTITIONS);
  }

  @Test
  void groupsCloseBeforeThePartitionThatWouldPassTheTarget() {
    assertThat(PartitionCoalescer.group(new long[] {5, 5, 5, 5}, 100)).containsExactly(0);
    assertThat(PartitionCoalescer.group(new long[] {60, 60, 60}, 100)).containsExactly(0, 1, 2);
    assertThat(PartitionCoalescer.group(new long[] {0, 0, 150, 10, 90, 1}, 100)).containsExactly(0, 3, 5);
    assertThat(PartitionCoalescer.group(new long[] {0, 0, 0}, 100)).containsExactly(0);
  }

  @Test
  void aCombinerStageIsNeverCoalesced() {
    // The edge into a combiner stage is a hash edge of R partitions, but the combiner's tasks are
    // groups of map tasks: coalescing its "partitions" would drop map outputs.
    Partitioning hash = Partitioning.newBuilder().setHash(Partitioning.Hash.newBuilder().addKeys(0).setPartitions(8))
        .build();
    Stage combiner = Stage.newBuilder().setStageId(1).setTaskCount(2).build();
    Edge into = Edge.newBuilder().setProducerStageId(0).setConsumerStageId(1).setPartitioning(hash).setCombineGroup(4)
        .build();
    TaskResult[] maps = new TaskResult[8];
    for (int m = 0; m < 8; m++) {
      TaskResult.Builder r = TaskResult.newBuilder().setStageId(0).setPartition(m).setOutputObjectKey("k" + m);
      for (int p = 0; p < 8; p++) {
        r.addPartitions(PartitionRange.newBuilder().setPartition(p).setOffset(p * 10L).setLength(10).setRows(1));
      }
      maps[m] = r.build();
    }
    assertThat(PartitionCoalescer.groupStarts(combiner, List.of(into), null, false, Map.of(0, maps), 1 << 20))
        .isEmpty();
    // The same edge without a combine group is coalesced into one task.
    assertThat(PartitionCoalescer.groupStarts(combiner, List.of(into.toBuilder().setCombineGroup(0).build()), null,
        false, Map.of(0, maps), 1 << 20)).hasValueSatisfying(starts -> assertThat(starts).containsExactly(0));
  }

  @Test
  void aCoalescedStageRegroupsTheCombinerStageAfterIt() throws Exception {
    // The join stage (8 planned tasks) feeds a combiner grouping its map tasks by 3 (3 combiner
    // tasks as planned) before the root. Coalesced to 4 tasks, the combiner must run ceil(4 / 3) = 2.
    Partitioning hash2 = Partitioning.newBuilder().setHash(Partitioning.Hash.newBuilder().setPartitions(2)).build();
    StageGraph.Builder graph = joinPlan(100).graph().toBuilder().setRootStageId(4);
    graph.addStages(Stage.newBuilder().setStageId(3).setTaskCount(3).setFragment(dev.squall.proto.v1.Operator.newBuilder()
        .setShuffleCombine(dev.squall.proto.v1.ShuffleCombine.getDefaultInstance())))
        .addStages(Stage.newBuilder().setStageId(4).setTaskCount(2))
        .addEdges(Edge.newBuilder().setProducerStageId(2).setConsumerStageId(3).setConsumerInputIndex(0)
            .setPartitioning(hash2).setCombineGroup(3))
        .addEdges(Edge.newBuilder().setProducerStageId(3).setConsumerStageId(4).setConsumerInputIndex(0)
            .setPartitioning(hash2));
    JobPlan plan = new JobPlan("job-c", graph.build(), Map.of(), "bucket", "jobs/job-c", Compression.LZ4_FRAME, 1 << 20,
        new Schema(List.of()), null).withAdaptiveTargetPartitionBytes(100);
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(spec -> {
      if (spec.getStageId() < 2) {
        return answer(spec);
      }
      TaskResult.Builder r = resultOf(spec).setOutputObjectKey("jobs/job-c/s" + spec.getStageId() + "/m"
          + spec.getPartition() + "/a" + spec.getAttempt());
      for (int p = 0; p < 2 && spec.getStageId() < 4; p++) {
        r.addPartitions(PartitionRange.newBuilder().setPartition(p).setOffset(100L * p).setLength(10).setRows(1));
      }
      return r.build();
    });
    Control control = new Control();

    Map<Integer, TaskResult[]> winners = new StageScheduler(invoker, FAST).run(plan, Map.of(), control,
        Duration.ofMinutes(1));

    assertThat(control.changed).isNotEmpty();
    JobPlan last = control.changed.get(control.changed.size() - 1);
    assertThat(last.taskCounts()).containsEntry(2, 4).containsEntry(3, 2);
    assertThat(winners.get(3)).hasSize(2).doesNotContainNull();
    // The root's two small partitions are coalesced in turn.
    assertThat(winners.get(4)).isNotEmpty().doesNotContainNull();
    assertThat(invoker.sent.stream().filter(s -> s.getStageId() == 3)).hasSize(2);
  }
}

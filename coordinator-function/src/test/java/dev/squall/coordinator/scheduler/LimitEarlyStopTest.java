package dev.squall.coordinator.scheduler;

import static dev.squall.coordinator.scheduler.FakeTasks.failure;
import static dev.squall.coordinator.scheduler.FakeTasks.mapOutput;
import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.Filter;
import dev.squall.proto.v1.Limit;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.Scan;
import dev.squall.proto.v1.ScanInput;
import dev.squall.proto.v1.Sort;
import dev.squall.proto.v1.StageGraph;
import dev.squall.proto.v1.TaskMetrics;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * LIMIT early stop in the scheduler, with a fake invoker: a scan stage of ten tasks whose fragment
 * is {@code Limit(10)} over a filtered scan feeds the root over a single edge.
 */
class LimitEarlyStopTest {
  private static final RetryPolicy FAST = new RetryPolicy(4, Duration.ofMillis(1), Duration.ofMillis(5));
  private static final int TASKS = 10;

  static final class Control extends FakeTasks.Control {
    final List<JobPlan> changed = new CopyOnWriteArrayList<>();

    @Override
    public void planChanged(JobPlan plan) {
      changed.add(plan);
    }
  }

  private static Operator limitOverFilteredScan(long offset, long limit) {
    Operator scan = Operator.newBuilder().setScan(Scan.newBuilder().setInputIndex(0).setTable("t")).build();
    Operator filter = Operator.newBuilder().setFilter(Filter.newBuilder().setInput(scan)).build();
    return Operator.newBuilder().setLimit(Limit.newBuilder().setInput(filter).setOffset(offset).setLimit(limit))
        .build();
  }

  private static JobPlan plan(Operator fragment) {
    JobPlan base = FakeTasks.mapReducePlan("job-l", TASKS);
    StageGraph.Builder g = base.graph().toBuilder();
    g.setStages(0, g.getStages(0).toBuilder().setFragment(fragment));
    List<Map<Integer, ScanInput>> scans = new ArrayList<>();
    for (int t = 0; t < TASKS; t++) {
      scans.add(Map.of(0, ScanInput.getDefaultInstance()));
    }
    return new JobPlan("job-l", g.build(), Map.of(0, scans), "bucket", "jobs/job-l", base.compression(), 1 << 20,
        base.outputSchema(), null);
  }

  /** Each scan task writes {@code rows} rows. */
  private static TaskResult withRows(TaskSpec spec, long rows) {
    TaskResult r = mapOutput(spec);
    return spec.getStageId() == 0 ? r.toBuilder().setMetrics(TaskMetrics.newBuilder().setRowsWritten(rows)).build() : r;
  }

  private static List<Integer> scanTasks(FakeTasks.Invoker invoker) {
    return invoker.sent.stream().filter(s -> s.getStageId() == 0).map(TaskSpec::getPartition).sorted().toList();
  }

  @Test
  void scanTasksStartInWavesAndStopOnceTheirRowsReachTheLimit() throws Exception {
    // Wave 1: task 0, 4 rows; then 1.5 x 6 wanted / 4 a task = 3 more (tasks 1-3): 16 rows, enough.
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(s -> withRows(s, 4));
    Control control = new Control();
    Map<Integer, TaskResult[]> winners = new StageScheduler(invoker, FAST)
        .run(plan(limitOverFilteredScan(0, 10)), Map.of(), control, Duration.ofMinutes(1));

    assertThat(scanTasks(invoker)).containsExactly(0, 1, 2, 3);
    assertThat(winners.get(0)).hasSize(4).doesNotContainNull();
    JobPlan stored = control.changed.get(control.changed.size() - 1);
    assertThat(stored.taskCounts()).containsEntry(0, 4);
    assertThat(stored.graph().getStages(0).getTaskCount()).as("as planned").isEqualTo(TASKS);
    TaskSpec consumer = invoker.sent.stream().filter(s -> s.getStageId() == 1).findFirst().orElseThrow();
    assertThat(consumer.getInputs(0).getShuffle().getSegmentsList()).extracting(seg -> seg.getProducerPartition())
        .containsExactlyInAnyOrder(0, 1, 2, 3);
  }

  @Test
  void tasksWithoutRowsScaleTheWavesUpUntilEveryTaskRan() throws Exception {
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(s -> withRows(s, 0));
    Control control = new Control();
    Map<Integer, TaskResult[]> winners = new StageScheduler(invoker, FAST)
        .run(plan(limitOverFilteredScan(0, 10)), Map.of(), control, Duration.ofMinutes(1));

    assertThat(scanTasks(invoker)).hasSize(TASKS);
    assertThat(winners.get(0)).hasSize(TASKS);
    assertThat(control.changed).isEmpty();
  }

  @Test
  void aFailedTaskOfAWaveIsRetriedBeforeTheNextWave() throws Exception {
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(s -> s.getStageId() == 0 && s.getPartition() == 0
        && s.getAttempt() == 0 ? failure(s, ErrorCode.INTERNAL_ERROR) : withRows(s, 20));
    Control control = new Control();
    Map<Integer, TaskResult[]> winners = new StageScheduler(invoker, FAST)
        .run(plan(limitOverFilteredScan(5, 10)), Map.of(), control, Duration.ofMinutes(1));

    assertThat(scanTasks(invoker)).containsExactly(0, 0);
    assertThat(winners.get(0)).hasSize(1);
  }

  @Test
  void aResumedRunKeepsTheTasksAnEarlierWaveRan() throws Exception {
    FakeTasks.Invoker first = new FakeTasks.Invoker(s -> withRows(s, 1));
    Map<Integer, TaskResult[]> done = new StageScheduler(first, FAST)
        .run(plan(limitOverFilteredScan(0, 3)), Map.of(), new Control(), Duration.ofMinutes(1));
    // Waves 1, then 3 more: tasks 0-3 ran. A new invocation has winners of tasks 0 and 2 only.
    assertThat(scanTasks(first)).containsExactly(0, 1, 2, 3);
    TaskResult[] prior = new TaskResult[TASKS];
    prior[0] = done.get(0)[0];
    prior[2] = done.get(0)[2];
    FakeTasks.Invoker second = new FakeTasks.Invoker(s -> withRows(s, 1));
    Control control = new Control();
    Map<Integer, TaskResult[]> winners = new StageScheduler(second, FAST)
        .run(plan(limitOverFilteredScan(0, 3)), Map.of(0, prior), control, Duration.ofMinutes(1));

    assertThat(scanTasks(second)).containsExactly(1);
    assertThat(winners.get(0)).hasSize(3).doesNotContainNull();
  }

  @Test
  void aPipelinedRunDoesNotStopEarly() throws Exception {
    // Its consumer starts before the scan stage finishes and reads every task's published winner.
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(s -> withRows(s, 100));
    PipelinedSchedulingTest.Control control = new PipelinedSchedulingTest.Control(
        new Pipelining(Pipelining.Mode.PIPELINED, 64, 64, new PipelinedSchedulingTest.Board()));
    Map<Integer, TaskResult[]> winners = new StageScheduler(invoker, FAST)
        .run(plan(limitOverFilteredScan(0, 10)), Map.of(), control, Duration.ofMinutes(1));

    assertThat(scanTasks(invoker)).hasSize(TASKS);
    assertThat(winners.get(0)).hasSize(TASKS);
    assertThat(control.changed.pipelined()).isTrue();
  }

  @Test
  void onlyALimitOverFiltersOfAScanThroughASingleEdgeStopsEarly() {
    Edge single = Edge.newBuilder().setPartitioning(Partitioning.newBuilder().setSingle(
        Partitioning.Single.getDefaultInstance())).build();
    Edge hash = Edge.newBuilder().setPartitioning(Partitioning.newBuilder().setHash(Partitioning.Hash.newBuilder()
        .setPartitions(4))).build();
    assertThat(LimitEarlyStop.rowsWanted(limitOverFilteredScan(5, 10), single)).isEqualTo(15);
    assertThat(LimitEarlyStop.rowsWanted(limitOverFilteredScan(5, 10), hash)).isEqualTo(-1);
    assertThat(LimitEarlyStop.rowsWanted(limitOverFilteredScan(5, 10), null)).isEqualTo(-1);
    assertThat(LimitEarlyStop.rowsWanted(limitOverFilteredScan(5, -1), single)).as("OFFSET only").isEqualTo(-1);
    Operator sorted = Operator.newBuilder().setLimit(Limit.newBuilder().setLimit(10).setInput(Operator.newBuilder()
        .setSort(Sort.newBuilder().setInput(limitOverFilteredScan(0, 10))))).build();
    assertThat(LimitEarlyStop.rowsWanted(sorted, single)).isEqualTo(-1);
  }

  @Test
  void wavesGrowAsSparksLimitScaleUp() {
    assertThat(LimitEarlyStop.nextWaveEnd(0, 0, 10, 100)).isEqualTo(1);
    assertThat(LimitEarlyStop.nextWaveEnd(1, 0, 10, 100)).isEqualTo(4);
    assertThat(LimitEarlyStop.nextWaveEnd(4, 0, 10, 100)).isEqualTo(16);
    assertThat(LimitEarlyStop.nextWaveEnd(16, 0, 10, 20)).isEqualTo(20);
    assertThat(LimitEarlyStop.nextWaveEnd(4, 8, 10, 100)).as("1.5 x 2 x 4 / 8").isEqualTo(6);
    assertThat(LimitEarlyStop.nextWaveEnd(4, 10, 10, 100)).isEqualTo(4);
    assertThat(LimitEarlyStop.nextWaveEnd(20, 0, 10, 20)).isEqualTo(20);
  }
}

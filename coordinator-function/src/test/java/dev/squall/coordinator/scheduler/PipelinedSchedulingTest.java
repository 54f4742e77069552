package dev.squall.coordinator.scheduler;

import static dev.squall.coordinator.scheduler.FakeTasks.failure;
import static dev.squall.coordinator.scheduler.FakeTasks.mapOutput;
import static dev.squall.coordinator.scheduler.FakeTasks.mapReducePlan;
import static dev.squall.coordinator.scheduler.FakeTasks.resultOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The scheduler's pipelined mode with fake tasks: which graphs pipeline, consumers started before
 * their producers finish learn winners only from the board, failures stop waiting consumers, and
 * a consumer's TIMEOUT while waiting is not charged to its retry budget.
 */
class PipelinedSchedulingTest {
  private static final RetryPolicy FAST = new RetryPolicy(4, Duration.ofMillis(1), Duration.ofMillis(5));

  /** A board that keeps what was published, retracted and whether tasks were told to stop. */
  static final class Board implements Pipelining.WinnerBoard {
    final List<TaskResult> published = new CopyOnWriteArrayList<>();
    final AtomicBoolean stopped = new AtomicBoolean();

    @Override
    public void publish(TaskResult winner) {
      published.add(winner);
    }

    @Override
    public void retract(int stageId, int partition) {
      published.removeIf(w -> w.getStageId() == stageId && w.getPartition() == partition);
    }

    @Override
    public void stopTasks() {
      stopped.set(true);
    }

    /** Waits until {@code n} winners are published or the tasks are stopped; false when stopped first. */
    boolean awaitWinners(int n) {
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (published.size() < n && !stopped.get() && System.nanoTime() < until) {
        FakeTasks.sleep(5);
      }
      return published.size() >= n;
    }
  }

  static final class Control extends FakeTasks.Control {
    final Pipelining pipelining;
    volatile JobPlan changed;

    Control(Pipelining pipelining) {
      this.pipelining = pipelining;
    }

    @Override
    public Pipelining pipelining() {
      return pipelining;
    }

    @Override
    public void planChanged(JobPlan plan) {
      changed = plan;
    }
  }

  private static boolean pipelined(TaskSpec spec) {
    return TaskSpecFactory.readsPipelined(spec);
  }

  @Test
  void theReducerStartsWhileMapsRunAndReadsThePublishedWinners() throws Exception {
    Board board = new Board();
    CountDownLatch reducerSent = new CountDownLatch(1);
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(spec -> {
      if (spec.getStageId() == 0) {
        FakeTasks.await(reducerSent); // maps finish only once the reducer runs
        return mapOutput(spec);
      }
      reducerSent.countDown();
      return board.awaitWinners(3) ? resultOf(spec).setOutputObjectKey("result").build()
          : failure(spec, ErrorCode.CANCELLED);
    });
    Control control = new Control(new Pipelining(Pipelining.Mode.AUTO, 64, 64, board));

    Map<Integer, TaskResult[]> winners = new StageScheduler(invoker, FAST)
        .run(mapReducePlan("job", 3), Map.of(), control, Duration.ofSeconds(30));

    TaskSpec reducer = invoker.sent.stream().filter(s -> s.getStageId() == 1).findFirst().orElseThrow();
    assertThat(pipelined(reducer)).isTrue();
    assertThat(reducer.getInputs(0).getShuffle().getSegmentsList()).isEmpty();
    assertThat(reducer.getInputs(0).getShuffle().getPipelined().getProducerTasks()).isEqualTo(3);
    assertThat(board.published).extracting(TaskResult::getPartition).containsExactlyInAnyOrder(0, 1, 2);
    assertThat(board.published).containsExactlyInAnyOrder(winners.get(0));
    assertThat(control.changed).isNotNull();
    assertThat(control.changed.pipelined()).isTrue();
  }

  @Test
  void aGraphLargerThanTheSlotsOrTheAutoLimitRunsStageByStage() throws Exception {
    for (Pipelining p : List.of(new Pipelining(Pipelining.Mode.PIPELINED, 64, 3, new Board()),
        new Pipelining(Pipelining.Mode.AUTO, 3, 64, new Board()),
        new Pipelining(Pipelining.Mode.STAGED, 64, 64, new Board()))) {
      FakeTasks.Invoker invoker = new FakeTasks.Invoker(FakeTasks::succeed);
      Control control = new Control(p);

      new StageScheduler(invoker, FAST).run(mapReducePlan("job", 3), Map.of(), control, Duration.ofSeconds(30));

      assertThat(invoker.sent).as("%s", p).noneMatch(PipelinedSchedulingTest::pipelined);
      assertThat(control.changed).as("%s", p).isNull();
    }
  }

  @Test
  void aResumedRunWithRecordedWinnersRunsStageByStage() throws Exception {
    FakeTasks.Invoker first = new FakeTasks.Invoker(FakeTasks::succeed);
    Map<Integer, TaskResult[]> prior = Map.of(0, new TaskResult[] {mapOutput(TaskSpec.newBuilder().setJobId("job")
        .setStageId(0).setPartition(0).build()), null, null});
    Control control = new Control(new Pipelining(Pipelining.Mode.PIPELINED, 64, 64, new Board()));

    new StageScheduler(first, FAST).run(mapReducePlan("job", 3), prior, control, Duration.ofSeconds(30));

    assertThat(first.sent).noneMatch(PipelinedSchedulingTest::pipelined);
  }

  @Test
  void aMapFailingForGoodFailsTheJobWithItsErrorAndStopsTheWaitingReducer() {
    Board board = new Board();
    AtomicInteger reducerAnswers = new AtomicInteger();
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(spec -> {
      if (spec.getStageId() == 0 && spec.getPartition() == 1) {
        FakeTasks.sleep(50);
        return failure(spec, ErrorCode.USER_ERROR);
      }
      if (spec.getStageId() == 0) {
        return mapOutput(spec);
      }
      boolean all = board.awaitWinners(3);
      reducerAnswers.incrementAndGet();
      return all ? resultOf(spec).build() : failure(spec, ErrorCode.CANCELLED);
    });
    Control control = new Control(new Pipelining(Pipelining.Mode.PIPELINED, 64, 64, board));

    JobFailedException failed = catchThrowableOfType(JobFailedException.class, () -> new StageScheduler(invoker, FAST)
        .run(mapReducePlan("job", 3), Map.of(), control, Duration.ofSeconds(30)));

    assertThat(failed.code()).isEqualTo(ErrorCode.USER_ERROR);
    assertThat(board.stopped).isTrue();
    assertThat(reducerAnswers).as("the reducer ended before the run did").hasValue(1);
  }

  @Test
  void aReducerTimingOutWhileMapsRunIsNotChargedAndRunsAgainOnceTheyFinish() throws Exception {
    Board board = new Board();
    CountDownLatch reducerTimedOut = new CountDownLatch(1);
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(spec -> {
      if (spec.getStageId() == 0) {
        FakeTasks.await(reducerTimedOut);
        FakeTasks.sleep(500); // the reducer's TIMEOUT arrives while the maps still run
        return mapOutput(spec);
      }
      if (pipelined(spec)) {
        reducerTimedOut.countDown();
        return failure(spec, ErrorCode.TIMEOUT);
      }
      return resultOf(spec).build();
    });
    Control control = new Control(new Pipelining(Pipelining.Mode.PIPELINED, 64, 64, board));
    // One attempt per task: a charged TIMEOUT would fail the job.
    RetryPolicy once = new RetryPolicy(1, Duration.ofMillis(1), Duration.ofMillis(5));

    new StageScheduler(invoker, once).run(mapReducePlan("job", 3), Map.of(), control, Duration.ofSeconds(30));

    List<TaskSpec> reducers = invoker.sent.stream().filter(s -> s.getStageId() == 1).toList();
    assertThat(reducers).hasSize(2);
    assertThat(pipelined(reducers.get(1))).as("the re-run names the winners").isFalse();
    assertThat(reducers.get(1).getInputs(0).getShuffle().getSegmentsCount()).isEqualTo(3);
  }
}

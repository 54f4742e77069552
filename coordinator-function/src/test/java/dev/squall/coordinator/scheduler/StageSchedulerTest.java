package dev.squall.coordinator.scheduler;

import static dev.squall.coordinator.scheduler.FakeTasks.await;
import static dev.squall.coordinator.scheduler.FakeTasks.failure;
import static dev.squall.coordinator.scheduler.FakeTasks.mapOutput;
import static dev.squall.coordinator.scheduler.FakeTasks.producersRead;
import static dev.squall.coordinator.scheduler.FakeTasks.reduce;
import static dev.squall.coordinator.scheduler.FakeTasks.sleep;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The scheduler's state machine with a fake invoker (tasks answer at once with made-up shuffle
 * outputs) and an in-memory control: a map stage of three tasks feeding one reduce task.
 */
class StageSchedulerTest {
  private static final RetryPolicy FAST = new RetryPolicy(4, Duration.ofMillis(1), Duration.ofMillis(5));

  private static JobPlan mapReducePlan() {
    return FakeTasks.mapReducePlan("job-s", 3);
  }

  @Test
  void aLostMapOutputRunsItsProducerAgainAndThenTheConsumerReadingTheNewOutput() throws Exception {
    Set<String> lost = ConcurrentHashMap.newKeySet();
    lost.add("0.1.0"); // the first attempt of map task 1 wins, then its object disappears
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(spec -> spec.getStageId() == 0 ? mapOutput(spec) : reduce(spec, lost));
    FakeTasks.Control control = new FakeTasks.Control();

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
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(spec -> spec.getStageId() == 0 ? mapOutput(spec)
        : reduce(spec, Set.of("0.2.0", "0.2.1", "0.2.2", "0.2.3", "0.2.4", "0.2.5")));
    JobFailedException failed = catchThrowableOfType(JobFailedException.class, () -> new StageScheduler(invoker, FAST)
        .run(mapReducePlan(), Map.of(), new FakeTasks.Control(), Duration.ofMinutes(1)));
    assertThat(failed).isNotNull();
    assertThat(failed.code()).isEqualTo(ErrorCode.MISSING_SHUFFLE_OUTPUT);
    assertThat(invoker.attemptsOf(0, 2)).hasSize(FAST.maxAttempts());
  }

  @Test
  void aTasksRetryBudgetCountsTheFailuresOfEarlierInvocations() {
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(spec -> spec.getStageId() == 0 && spec.getPartition() == 2
        ? failure(spec, ErrorCode.EXTERNAL) : spec.getStageId() == 0 ? mapOutput(spec) : reduce(spec, Set.of()));
    FakeTasks.Control control = new FakeTasks.Control();
    control.priorFailures.put("0.2", FAST.maxAttempts() - 1);
    JobFailedException failed = catchThrowableOfType(JobFailedException.class, () -> new StageScheduler(invoker, FAST)
        .run(mapReducePlan(), Map.of(), control, Duration.ofMinutes(1)));
    assertThat(failed).isNotNull();
    assertThat(invoker.attemptsOf(0, 2)).as("one attempt was left of the budget").hasSize(1);
  }

  @Test
  void aTaskStoppedAtItsDeadlineIsRetriedAsANewAttempt() throws Exception {
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(spec -> spec.getStageId() == 0 && spec.getPartition() == 0
        && spec.getAttempt() == 0 ? failure(spec, ErrorCode.TIMEOUT)
        : spec.getStageId() == 0 ? mapOutput(spec) : reduce(spec, Set.of()));
    Map<Integer, TaskResult[]> winners = new StageScheduler(invoker, FAST)
        .run(mapReducePlan(), Map.of(), new FakeTasks.Control(), Duration.ofMinutes(1));
    assertThat(invoker.attemptsOf(0, 0)).containsExactly(0, 1);
    assertThat(winners.get(0)[0].getAttempt()).isEqualTo(1);
  }

  @Test
  void aStragglerIsOvertakenByItsSpeculativeCopyAndTheFirstSuccessWins() throws Exception {
    CountDownLatch straggler = new CountDownLatch(1);
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(spec -> {
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
      winners = new StageScheduler(invoker, FAST, quick).run(mapReducePlan(), Map.of(), new FakeTasks.Control(),
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
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(spec -> spec.getStageId() == 0 ? mapOutput(spec) : reduce(spec, Set.of()));
    new StageScheduler(invoker, FAST, new SpeculationPolicy(0.75, 2.0, Duration.ofSeconds(30)))
        .run(mapReducePlan(), Map.of(), new FakeTasks.Control(), Duration.ofMinutes(1));
    assertThat(invoker.sent).hasSize(4); // three map tasks and the reducer, once each
  }

  @Test
  void aTaskThatAlwaysFailsRunsAsManyAttemptsAsTheBudgetAllowsThenFailsTheJobWithItsError() {
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(spec -> spec.getStageId() == 0 && spec.getPartition() == 1
        ? failure(spec, ErrorCode.EXTERNAL) : FakeTasks.succeed(spec));
    JobFailedException failed = catchThrowableOfType(JobFailedException.class, () -> new StageScheduler(invoker, FAST)
        .run(mapReducePlan(), Map.of(), new FakeTasks.Control(), Duration.ofMinutes(1)));
    assertThat(failed.code()).isEqualTo(ErrorCode.EXTERNAL);
    assertThat(invoker.attemptsOf(0, 1)).containsExactly(0, 1, 2, 3);
    assertThat(invoker.attemptsOf(1, 0)).as("the reducer never started").isEmpty();
  }

  @Test
  void aUserErrorIsNotRetried() {
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(spec -> spec.getStageId() == 0 && spec.getPartition() == 0
        ? failure(spec, ErrorCode.USER_ERROR) : FakeTasks.succeed(spec));
    JobFailedException failed = catchThrowableOfType(JobFailedException.class, () -> new StageScheduler(invoker, FAST)
        .run(mapReducePlan(), Map.of(), new FakeTasks.Control(), Duration.ofMinutes(1)));
    assertThat(failed.code()).isEqualTo(ErrorCode.USER_ERROR);
    assertThat(invoker.attemptsOf(0, 0)).containsExactly(0);
  }

  @Test
  void aCancelSeenByTheControlStartsNothingMoreAndAwaitsTheRunningAttempts() {
    CountDownLatch mapsRunning = new CountDownLatch(3);
    CountDownLatch release = new CountDownLatch(1);
    FakeTasks.Invoker invoker = FakeTasks.heldUntil(mapsRunning, release);
    FakeTasks.Control control = new FakeTasks.Control() {
      @Override
      public Directive check() {
        if (mapsRunning.getCount() == 0) {
          release.countDown(); // the running attempts end only after the cancel was seen
          return Directive.CANCEL;
        }
        return Directive.CONTINUE;
      }
    };
    JobFailedException failed = catchThrowableOfType(JobFailedException.class, () -> new StageScheduler(invoker, FAST)
        .run(mapReducePlan(), Map.of(), control, Duration.ofMinutes(1)));
    assertThat(failed.code()).isEqualTo(ErrorCode.CANCELLED);
    assertThat(control.ended).as("every running attempt ended before the run did").hasSize(3);
    assertThat(invoker.attemptsOf(1, 0)).as("the reducer never started").isEmpty();
  }

  @Test
  void aLostLeaseSuspendsTheRunNamingTheAttemptsItAbandoned() {
    CountDownLatch release = new CountDownLatch(1);
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(spec -> {
      if (spec.getPartition() == 2) {
        await(release);
      }
      return FakeTasks.succeed(spec);
    });
    FakeTasks.Control control = new FakeTasks.Control() {
      @Override
      public Directive check() {
        // Once partition 2 was sent (an attempt not sent yet is simply not sent) and the others won.
        return winners.size() == 2 && started.contains("0.2.0") ? Directive.SUSPEND : Directive.CONTINUE;
      }

      @Override
      public Duration suspendGrace() {
        return Duration.ofMillis(100);
      }
    };
    try {
      JobSuspendedException suspended = catchThrowableOfType(JobSuspendedException.class,
          () -> new StageScheduler(invoker, FAST).run(mapReducePlan(), Map.of(), control, Duration.ofMinutes(1)));
      assertThat(suspended.abandoned()).extracting(TaskSpec::getPartition).containsExactly(2);
      assertThat(invoker.attemptsOf(1, 0)).isEmpty();
    } finally {
      release.countDown();
    }
  }

  @Test
  void everyAttemptHoldsItsSlotsWhileItRunsAndGivesThemBack() throws Exception {
    AtomicInteger held = new AtomicInteger();
    AtomicInteger mostHeld = new AtomicInteger();
    Semaphore two = new Semaphore(2);
    FakeTasks.Control control = new FakeTasks.Control();
    control.slots = (spec, stop) -> {
      two.acquire();
      mostHeld.accumulateAndGet(held.incrementAndGet(), Math::max);
      return () -> {
        held.decrementAndGet();
        two.release();
      };
    };
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(spec -> {
      sleep(30);
      return FakeTasks.succeed(spec);
    });
    new StageScheduler(invoker, FAST).run(FakeTasks.mapReducePlan("job-slots", 6), Map.of(), control,
        Duration.ofMinutes(1));
    assertThat(invoker.sent).hasSize(7);
    assertThat(mostHeld.get()).isEqualTo(2);
    assertThat(held.get()).as("every slot given back").isZero();
  }
}

package dev.squall.coordinator.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.coordinator.scheduler.FakeTasks;
import dev.squall.coordinator.scheduler.RetryPolicy;
import dev.squall.coordinator.scheduler.StageScheduler;
import dev.squall.jobstore.JobStore;
import dev.squall.jobstore.sqlite.SqliteJobStore;
import dev.squall.proto.v1.TaskResult;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Task concurrency caps kept in the job store: parallel jobs, each run by its own scheduler as two
 * coordinators would, hold slots of the store's account pool, and a job's own cap holds across its
 * attempts. Tasks are fakes that count how many run at once.
 */
class StoreTaskSlotsTest {
  private static final RetryPolicy FAST = new RetryPolicy(4, Duration.ofMillis(1), Duration.ofMillis(5));
  private static final Duration SLOT_LEASE = Duration.ofMinutes(1);

  private final JobStore store = SqliteJobStore.temporary(Duration.ofHours(1));
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger mostRunning = new AtomicInteger();

  @AfterEach
  void close() {
    store.close();
  }

  /** A task that counts itself running for 40 ms. */
  private TaskResult counted(dev.squall.proto.v1.TaskSpec spec) {
    mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
    try {
      Thread.sleep(40);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      running.decrementAndGet();
    }
    return FakeTasks.succeed(spec);
  }

  private Map<Integer, TaskResult[]> run(String jobId, int jobCap, int accountCap) throws Exception {
    FakeTasks.Control control = new FakeTasks.Control();
    control.slots = new StoreTaskSlots(store, Clock.systemUTC(), jobId, jobCap, accountCap, SLOT_LEASE);
    return new StageScheduler(new FakeTasks.Invoker(this::counted), FAST)
        .run(FakeTasks.mapReducePlan(jobId, 8), Map.of(), control, Duration.ofMinutes(1));
  }

  @Test
  void twoConcurrentJobsTogetherNeverRunMoreTasksThanTheAccountCap() throws Exception {
    ExecutorService coordinators = Executors.newFixedThreadPool(2);
    try {
      Future<Map<Integer, TaskResult[]>> a = coordinators.submit(() -> run("job-a", 0, 3));
      Future<Map<Integer, TaskResult[]>> b = coordinators.submit(() -> run("job-b", 0, 3));
      for (Future<Map<Integer, TaskResult[]>> job : List.of(a, b)) {
        assertThat(job.get().get(1)[0].hasError()).isFalse();
      }
    } finally {
      coordinators.shutdownNow();
    }
    assertThat(mostRunning.get()).as("tasks of both jobs running at once").isEqualTo(3);
    assertThat(store.heldSlots(StoreTaskSlots.ACCOUNT_POOL, Clock.systemUTC().instant())).as("all given back")
        .isEmpty();
  }

  @Test
  void aJobsOwnCapHoldsBelowTheAccountCap() throws Exception {
    run("job-capped", 2, 10);
    assertThat(mostRunning.get()).isEqualTo(2);
    assertThat(store.heldSlots(StoreTaskSlots.JOB_POOL_PREFIX + "job-capped", Clock.systemUTC().instant())).isEmpty();
  }

  @Test
  void slotsOfACrashedCoordinatorHoldTheAccountUntilTheirLeasesLapse() throws Exception {
    // A dead coordinator left both account slots taken, with leases that lapse in 300 ms.
    store.acquireSlot(StoreTaskSlots.ACCOUNT_POOL, 2, "dead/0.0.0", Clock.systemUTC().instant(), Duration.ofMillis(300));
    store.acquireSlot(StoreTaskSlots.ACCOUNT_POOL, 2, "dead/0.1.0", Clock.systemUTC().instant(), Duration.ofMillis(300));
    long started = System.nanoTime();
    run("job-after-crash", 0, 2);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
    assertThat(mostRunning.get()).isEqualTo(2);
  }

  @Test
  void aHighPriorityJobOvertakesARunningLowPriorityOneForTheAccountsSlots() throws Exception {
    // One account slot: the low-priority job's 24 tasks run one after another until the
    // high-priority job arrives; from then on the high job gets every slot that frees up.
    List<String> started = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    java.util.concurrent.CountDownLatch lowRunning = new java.util.concurrent.CountDownLatch(3);
    java.util.function.Function<dev.squall.proto.v1.TaskSpec, TaskResult> task = spec -> {
      started.add(spec.getJobId());
      if (spec.getJobId().equals("job-low")) {
        lowRunning.countDown();
      }
      return counted(spec);
    };
    ExecutorService coordinators = Executors.newFixedThreadPool(2);
    try {
      Future<Map<Integer, TaskResult[]>> low = coordinators.submit(() -> runAt("job-low", 2, 24, task));
      lowRunning.await();
      int lowBeforeHigh = started.size();
      Future<Map<Integer, TaskResult[]>> high = coordinators.submit(() -> runAt("job-high", 8, 4, task));
      assertThat(high.get().get(1)[0].hasError()).isFalse();
      assertThat(low.isDone()).as("the low-priority job still runs when the high one has ended").isFalse();
      assertThat(low.get().get(1)[0].hasError()).isFalse();
      // Once the high job's attempts waited, its 4 maps ran as one block although the low job's
      // attempts waited too (and had waited longer); its reduce (a stage of its own, so no attempt
      // of it waited while the maps ran) after at most one more low task. Without priority the two
      // jobs' waiting attempts take freed slots in random turns.
      List<String> order = List.copyOf(started);
      int firstHigh = order.indexOf("job-high");
      int lastHigh = order.lastIndexOf("job-high");
      assertThat(firstHigh).as("order %s", order).isGreaterThanOrEqualTo(lowBeforeHigh);
      assertThat(order.size() - lastHigh - 1).as("low tasks still to run after the high job, %s", order)
          .isGreaterThanOrEqualTo(10);
      assertThat(order.subList(firstHigh, firstHigh + 4)).as("order %s", order).containsOnly("job-high");
      assertThat(lastHigh - (firstHigh + 3)).as("order %s", order).isBetween(1, 2);
      assertThat(order).hasSize(25 + 5);
    } finally {
      coordinators.shutdownNow();
    }
    assertThat(store.heldSlots(StoreTaskSlots.WAITING_POOL, Clock.systemUTC().instant())).as("announcements withdrawn")
        .isEmpty();
  }

  @Test
  void aWaitingAttemptRisesALevelPerAgingInterval() {
    SlotPriority p = new SlotPriority(3, Duration.ofSeconds(10));
    assertThat(p.after(Duration.ZERO)).isEqualTo(3);
    assertThat(p.after(Duration.ofSeconds(9))).isEqualTo(3);
    assertThat(p.after(Duration.ofSeconds(25))).isEqualTo(5);
    assertThat(p.after(Duration.ofHours(1))).isEqualTo(SlotPriority.MAX);
    assertThat(new SlotPriority(3, Duration.ZERO).after(Duration.ofHours(1))).isEqualTo(3);
  }

  /** Runs a map-reduce job of {@code maps} tasks at {@code priority} on one account slot. */
  private Map<Integer, TaskResult[]> runAt(String jobId, int priority, int maps,
      java.util.function.Function<dev.squall.proto.v1.TaskSpec, TaskResult> task) throws Exception {
    FakeTasks.Control control = new FakeTasks.Control();
    control.slots = new StoreTaskSlots(store, Clock.systemUTC(), jobId, 0, 1, SLOT_LEASE,
        new SlotPriority(priority, Duration.ZERO));
    return new StageScheduler(new FakeTasks.Invoker(task), FAST)
        .run(FakeTasks.mapReducePlan(jobId, maps), Map.of(), control, Duration.ofMinutes(1));
  }
}

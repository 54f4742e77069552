package dev.squall.coordinator.job;

import static dev.squall.coordinator.scheduler.FakeTasks.await;
import static dev.squall.coordinator.scheduler.FakeTasks.sleep;
import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.coordinator.CoordinatorSettings;
import dev.squall.coordinator.commit.WriteFinalizer;
import dev.squall.coordinator.scheduler.FakeTasks;
import dev.squall.coordinator.scheduler.JobPlan;
import dev.squall.coordinator.scheduler.RetryPolicy;
import dev.squall.coordinator.scheduler.SpeculationPolicy;
import dev.squall.coordinator.scheduler.StageScheduler;
import dev.squall.coordinator.scheduler.TaskInvoker;
import dev.squall.jobstore.AttemptState;
import dev.squall.jobstore.JobRecord;
import dev.squall.jobstore.JobState;
import dev.squall.jobstore.JobStore;
import dev.squall.jobstore.JobUpdate;
import dev.squall.jobstore.Lease;
import dev.squall.jobstore.NewJob;
import dev.squall.jobstore.StageProgress;
import dev.squall.jobstore.TaskAttempt;
import dev.squall.jobstore.TaskWinner;
import dev.squall.jobstore.sqlite.SqliteJobStore;
import dev.squall.local.s3.EmbeddedS3;
import dev.squall.planner.PlannerSettings;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.TaskSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The driver's state machine over a real job store (SQLite) and S3 (S3Proxy), with fake tasks: a
 * job is stored as RUNNING with a map-reduce plan of three map tasks, then driven. What the store
 * holds afterwards (state, error code, attempts, winners) and what is left in S3 are checked.
 */
class JobDriverTest {
  private static final String BUCKET = "driver-test-bucket";
  private static final RetryPolicy FAST = new RetryPolicy(4, Duration.ofMillis(1), Duration.ofMillis(5));
  private static final JobSettings SETTINGS = JobSettings.defaults().withLease(Duration.ofMillis(900));

  private static EmbeddedS3 s3Server;
  private static S3Client s3;
  private static BufferAllocator allocator;

  private final JobStore store = SqliteJobStore.temporary(Duration.ofHours(1));
  private final List<String> resumed = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void startS3() throws Exception {
    s3Server = EmbeddedS3.startTransient(BUCKET);
    s3 = s3Server.newClient();
    allocator = new RootAllocator();
  }

  @AfterAll
  static void stopS3() throws Exception {
    s3.close();
    s3Server.close();
    allocator.close();
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  private JobDriver driver(TaskInvoker invoker, SpeculationPolicy speculation) {
    // The jobs here are planned already and write no table: the catalog is never read.
    InMemoryCatalog catalog = new InMemoryCatalog();
    catalog.initialize("unused", Map.of());
    return new JobDriver(store, new JobPlanner(catalog, CoordinatorSettings.defaults("task", BUCKET),
        PlannerSettings.defaults()), new PlanStore(s3, BUCKET), new ResultStore(s3, null, BUCKET, Duration.ofMinutes(1)),
        new StageScheduler(invoker, FAST, speculation), s3, allocator, BUCKET, resumed::add, SETTINGS,
        Duration.ofMinutes(5), Clock.systemUTC(), DriverHooks.NONE, new WriteFinalizer(catalog));
  }

  private JobDriver driver(TaskInvoker invoker) {
    return driver(invoker, SpeculationPolicy.defaults());
  }

  /** A job in RUNNING with its plan stored and its lease released, as the invocation that planned it leaves it. */
  private JobPlan runningJob(String jobId) {
    JobPlan plan = FakeTasks.mapReducePlan(jobId, 3);
    Instant now = Instant.now();
    store.create(new NewJob(jobId, "SELECT 1", Map.of()), now);
    Lease lease = store.acquire(jobId, "planner", now, Duration.ofSeconds(30)).orElseThrow();
    new PlanStore(s3, BUCKET).save(plan);
    store.transition(lease, JobState.QUEUED, JobState.RUNNING, JobUpdate.progress(List.of(
        new StageProgress(0, 0, 3), new StageProgress(1, 0, 1))), now);
    store.release(lease, now);
    return plan;
  }

  private JobDriver.Drive drive(JobDriver driver, String jobId) {
    return driver.drive(jobId, Instant.now().plus(Duration.ofMinutes(10)), Duration.ofSeconds(1));
  }

  /** The invoker of the last {@link #driveWhileMapsRun}. */
  private FakeTasks.Invoker heldInvoker;

  /**
   * Drives the job with map tasks that hold until {@code meanwhile} has run, once all three are
   * running, and {@code holdMillis} more have passed.
   */
  private JobDriver.Drive driveWhileMapsRun(String jobId, Runnable meanwhile, long holdMillis) throws Exception {
    CountDownLatch mapsRunning = new CountDownLatch(3);
    CountDownLatch release = new CountDownLatch(1);
    heldInvoker = FakeTasks.heldUntil(mapsRunning, release);
    Thread actor = new Thread(() -> {
      await(mapsRunning);
      meanwhile.run();
      sleep(holdMillis);
      release.countDown();
    });
    actor.start();
    JobDriver.Drive drive = drive(driver(heldInvoker), jobId);
    actor.join();
    return drive;
  }

  private List<String> attemptsOf(String jobId, int stage, int partition) {
    return store.attempts(jobId).stream().filter(a -> a.stageId() == stage && a.partition() == partition)
        .map(a -> a.attempt() + ":" + a.state()).toList();
  }

  private int winnerAttempt(String jobId, int stage, int partition) {
    return store.winners(jobId).stream().filter(w -> w.stageId() == stage && w.partition() == partition)
        .mapToInt(TaskWinner::attempt).findFirst().orElse(-1);
  }

  private boolean hasObjects(String prefix) {
    return s3.listObjectsV2(b -> b.bucket(BUCKET).prefix(prefix)).keyCount() > 0;
  }

  @Test
  void aJobWhoseTasksSucceedEndsSucceededWithEveryWinnerRecordedAndItsShuffleDataDeleted() {
    runningJob("job-ok");
    s3.putObject(b -> b.bucket(BUCKET).key("jobs/job-ok/00/s0/m0/a0.arrows"), RequestBody.fromString("map output"));

    JobDriver.Drive drive = drive(driver(new FakeTasks.Invoker(FakeTasks::succeed)), "job-ok");

    assertThat(drive.outcome()).isEqualTo(JobDriver.Outcome.FINISHED);
    JobRecord job = store.get("job-ok").orElseThrow();
    assertThat(job.state()).isEqualTo(JobState.SUCCEEDED);
    assertThat(job.resultLocation()).isEqualTo("results/job-ok.arrows");
    assertThat(job.owner()).as("the lease is cleared").isNull();
    assertThat(store.winners("job-ok")).extracting(w -> w.stageId() + "." + w.partition())
        .containsExactly("0.0", "0.1", "0.2", "1.0");
    assertThat(store.attempts("job-ok")).extracting(TaskAttempt::state).containsOnly(AttemptState.SUCCEEDED);
    assertThat(hasObjects("jobs/job-ok/")).as("shuffle data and plan deleted").isFalse();
    assertThat(hasObjects("results/job-ok.arrows")).isTrue();
  }

  @Test
  void aFailedAttemptIsRecordedAndItsRetryWins() {
    runningJob("job-retry");
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(spec -> spec.getStageId() == 0 && spec.getPartition() == 1
        && spec.getAttempt() == 0 ? FakeTasks.failure(spec, ErrorCode.EXTERNAL) : FakeTasks.succeed(spec));

    drive(driver(invoker), "job-retry");

    assertThat(store.get("job-retry").orElseThrow().state()).isEqualTo(JobState.SUCCEEDED);
    assertThat(attemptsOf("job-retry", 0, 1)).containsExactly("0:FAILED", "1:SUCCEEDED");
    assertThat(winnerAttempt("job-retry", 0, 1)).isEqualTo(1);
  }

  @Test
  void aTaskFailingPastItsBudgetFailsTheJobWithItsCodeAndDeletesTheJobsData() {
    runningJob("job-budget");
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(spec -> spec.getStageId() == 0 && spec.getPartition() == 2
        ? FakeTasks.failure(spec, ErrorCode.EXTERNAL) : FakeTasks.succeed(spec));

    JobDriver.Drive drive = drive(driver(invoker), "job-budget");

    assertThat(drive.outcome()).isEqualTo(JobDriver.Outcome.FINISHED);
    JobRecord job = store.get("job-budget").orElseThrow();
    assertThat(job.state()).isEqualTo(JobState.FAILED);
    assertThat(job.error().code()).isEqualTo(ErrorCode.EXTERNAL.name());
    assertThat(job.error().message()).contains("reference");
    assertThat(attemptsOf("job-budget", 0, 2)).containsExactly("0:FAILED", "1:FAILED", "2:FAILED", "3:FAILED");
    assertThat(attemptsOf("job-budget", 1, 0)).as("the reducer never ran").isEmpty();
    assertThat(hasObjects("jobs/job-budget/")).isFalse();
  }

  @Test
  void aBudgetSpentByEarlierInvocationsIsNotGrantedAgain() {
    runningJob("job-spent");
    for (int attempt = 0; attempt < FAST.maxAttempts() - 1; attempt++) {
      store.attemptStarted("job-spent", 0, 2, attempt, 1, Instant.now());
      store.attemptFinished("job-spent", 0, 2, attempt, AttemptState.FAILED, null, Instant.now());
    }
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(spec -> spec.getStageId() == 0 && spec.getPartition() == 2
        ? FakeTasks.failure(spec, ErrorCode.EXTERNAL) : FakeTasks.succeed(spec));

    drive(driver(invoker), "job-spent");

    assertThat(store.get("job-spent").orElseThrow().state()).isEqualTo(JobState.FAILED);
    assertThat(invoker.attemptsOf(0, 2)).as("one attempt, numbered above the recorded ones").containsExactly(3);
  }

  @Test
  void aCancelRequestedWhileTasksRunEndsTheJobCancelledAfterTheRunningAttempts() throws Exception {
    runningJob("job-cancel");
    // The driver sees the cancel at its next poll, while the attempts still run.
    JobDriver.Drive drive = driveWhileMapsRun("job-cancel", () -> store.requestCancel("job-cancel", Instant.now()),
        600);

    assertThat(drive.outcome()).isEqualTo(JobDriver.Outcome.FINISHED);
    JobRecord job = store.get("job-cancel").orElseThrow();
    assertThat(job.state()).isEqualTo(JobState.CANCELLED);
    assertThat(job.error().code()).isEqualTo(ErrorCode.CANCELLED.name());
    assertThat(store.attempts("job-cancel")).as("every map attempt ended before the job did")
        .extracting(a -> a.stageId() + ":" + a.state()).containsExactly("0:SUCCEEDED", "0:SUCCEEDED", "0:SUCCEEDED");
    assertThat(hasObjects("jobs/job-cancel/")).as("the marker and the job's data are deleted").isFalse();
  }

  @Test
  void aDriverWhoseLeaseWasTakenOverStopsWithoutEndingOrCleaningUpTheJob() throws Exception {
    runningJob("job-usurped");
    // Another invocation takes the job as if this driver's lease had lapsed (its clock is ahead).
    JobDriver.Drive drive = driveWhileMapsRun("job-usurped", () -> store.acquire("job-usurped", "usurper",
        Instant.now().plus(Duration.ofHours(1)), Duration.ofHours(1)), 1_000);

    assertThat(drive.outcome()).isEqualTo(JobDriver.Outcome.NOT_OWNER);
    JobRecord job = store.get("job-usurped").orElseThrow();
    assertThat(job.state()).isEqualTo(JobState.RUNNING);
    assertThat(job.owner()).isEqualTo("usurper");
    assertThat(heldInvoker.attemptsOf(1, 0)).as("nothing started after the lease was lost").isEmpty();
    assertThat(hasObjects("jobs/job-usurped/plan.pb")).as("the new owner's plan is left alone").isTrue();
    assertThat(resumed).as("no hand-over requested").isEmpty();
  }

  @Test
  void aStragglersSpeculativeCopyWinsAndItsWinIsRecorded() {
    runningJob("job-straggler");
    CountDownLatch straggler = new CountDownLatch(1);
    FakeTasks.Invoker invoker = new FakeTasks.Invoker(spec -> {
      if (spec.getStageId() == 0 && spec.getPartition() == 2 && spec.getAttempt() == 0) {
        await(straggler);
      }
      return FakeTasks.succeed(spec);
    });
    JobDriver.Drive drive;
    try {
      drive = drive(driver(invoker, new SpeculationPolicy(0.5, 2.0, Duration.ofMillis(200))), "job-straggler");
    } finally {
      straggler.countDown();
    }

    assertThat(drive.job().state()).isEqualTo(JobState.SUCCEEDED);
    assertThat(invoker.attemptsOf(0, 2)).containsExactly(0, 1);
    assertThat(winnerAttempt("job-straggler", 0, 2)).as("the speculative copy won").isEqualTo(1);
    TaskSpec reducer = invoker.sent.stream().filter(s -> s.getStageId() == 1).findFirst().orElseThrow();
    assertThat(FakeTasks.producersRead(reducer)).containsExactly("0.0", "1.0", "2.1");
  }
}

package dev.squall.jobstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link JobStore} must show, run against each real store by a subclass. Each
 * test gets a fresh, empty store from {@link #openStore}. Times are whole milliseconds, as stores
 * keep them.
 */
public abstract class JobStoreContract {
  protected static final Duration RETENTION = Duration.ofHours(1);
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final int RACERS = 8;

  /** A real clock reading, so that a store with native expiry does not delete test items early. */
  protected final Instant t0 = Instant.now().truncatedTo(ChronoUnit.SECONDS);
  protected JobStore store;

  /** A new empty store that keeps finished jobs for {@code retention}. */
  protected abstract JobStore openStore(Duration retention);

  /** Whether {@link JobStore#purgeExpired} deletes expired jobs itself (else native expiry does). */
  protected abstract boolean purgeDeletesExpiredJobs();

  /**
   * For stores with native expiry: checks that every item of the job is marked to expire, and no
   * item of it before {@code expiresAt}.
   */
  protected void assertMarkedForNativeExpiry(String jobId, Instant expiresAt) {
    throw new AssertionError(getClass().getSimpleName() + " says it has native expiry but cannot show it");
  }

  @BeforeEach
  void openFreshStore() {
    store = openStore(RETENTION);
  }

  @AfterEach
  void closeStore() {
    if (store != null) {
      store.close();
    }
  }

  private Instant at(long seconds) {
    return t0.plusSeconds(seconds);
  }

  private JobRecord newJob(String id, Instant now) {
    return store.create(new NewJob(id, "SELECT 1 AS " + id.replace('-', '_'), Map.of("k", "v-" + id)), now);
  }

  private Lease acquired(String id, String owner, Instant now) {
    return store.acquire(id, owner, now, LEASE).orElseThrow(() -> new AssertionError(owner + " got no lease"));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  // ---- create and get

  @Test
  void createdJobIsQueuedAndReadsBackAsStored() {
    Map<String, String> props = Map.of("squall.max_tasks", "64", "quoted\"key", "ünïcode \n value");
    JobRecord created = store.create(new NewJob("job-1", "SELECT *\nFROM t WHERE s = 'x'", props), at(0));

    JobRecord read = store.get("job-1").orElseThrow();
    for (JobRecord job : List.of(created, read)) {
      assertThat(job.jobId()).isEqualTo("job-1");
      assertThat(job.sql()).isEqualTo("SELECT *\nFROM t WHERE s = 'x'");
      assertThat(job.properties()).isEqualTo(props);
      assertThat(job.state()).isEqualTo(JobState.QUEUED);
      assertThat(job.owner()).isNull();
      assertThat(job.leaseEpoch()).isZero();
      assertThat(job.leaseExpiresAt()).isNull();
      assertThat(job.cancelRequested()).isFalse();
      assertThat(job.createdAt()).isEqualTo(at(0));
      assertThat(job.updatedAt()).isEqualTo(at(0));
      assertThat(job.finishedAt()).isNull();
      assertThat(job.progress()).isEmpty();
      assertThat(job.error()).isNull();
      assertThat(job.resultLocation()).isNull();
      assertThat(job.summary()).isNull();
      assertThat(job.expiresAt()).isNull();
    }
    assertThat(read.version()).isEqualTo(created.version());
    assertThat(store.get("job-unknown")).isEmpty();
  }

  @Test
  void callerIdentityIsStoredAndSurvivesEveryLaterWrite() {
    String caller = "iam|arn:aws:sts::123456789012:assumed-role/analyst/alice";
    assertThat(store.create(new NewJob("job-caller", "SELECT 1", Map.of(), caller), at(0)).caller()).isEqualTo(caller);
    assertThat(store.get("job-caller").orElseThrow().caller()).isEqualTo(caller);
    Lease lease = acquired("job-caller", "coord-a", at(1));
    assertThat(store.transition(lease, JobState.QUEUED, JobState.RUNNING, JobUpdate.NONE, at(2)).caller())
        .isEqualTo(caller);
    assertThat(store.update(lease, JobUpdate.progress(List.of(new StageProgress(0, 1, 2))), at(3)).caller())
        .isEqualTo(caller);
    assertThat(store.requestCancel("job-caller", at(4)).caller()).isEqualTo(caller);
    assertThat(store.transition(lease, JobState.RUNNING, JobState.CANCELLED, JobUpdate.NONE, at(5)).caller())
        .isEqualTo(caller);
    assertThat(store.get("job-caller").orElseThrow().caller()).isEqualTo(caller);
    assertThat(newJob("job-anonymous", at(0)).caller()).isEmpty();
    assertThat(store.get("job-anonymous").orElseThrow().caller()).isEmpty();
  }

  @Test
  void oversizedCallerIdentityIsRefusedNamingTheLimit() {
    String caller = "x".repeat(JobStoreLimits.MAX_CALLER_BYTES + 1);
    assertThatThrownBy(() -> store.create(new NewJob("job-long-caller", "SELECT 1", Map.of(), caller), at(0)))
        .isInstanceOf(JobStoreException.class)
        .hasMessageContaining(String.valueOf(JobStoreLimits.MAX_CALLER_BYTES));
    assertThat(store.get("job-long-caller")).isEmpty();
  }

  @Test
  void creatingAnExistingJobIdIsRefusedAndKeepsTheFirstJob() {
    newJob("job-dup", at(0));
    assertThatThrownBy(() -> store.create(new NewJob("job-dup", "SELECT 2", Map.of()), at(5)))
        .isInstanceOf(StateConflictException.class)
        .hasMessageContaining("job-dup");
    JobRecord job = store.get("job-dup").orElseThrow();
    assertThat(job.sql()).isEqualTo("SELECT 1 AS job_dup");
    assertThat(job.createdAt()).isEqualTo(at(0));
  }

  @Test
  void oversizedSqlIsRefusedNamingTheLimit() {
    String sql = "SELECT '" + "x".repeat(JobStoreLimits.MAX_SQL_BYTES) + "'";
    assertThatThrownBy(() -> store.create(new NewJob("job-big", sql, Map.of()), at(0)))
        .isInstanceOf(JobStoreException.class)
        .hasMessageContaining(String.valueOf(JobStoreLimits.MAX_SQL_BYTES));
    assertThat(store.get("job-big")).isEmpty();
  }

  @Test
  void jobWithEveryFieldAtItsLimitIsStored() {
    String sql = "SELECT '" + "q".repeat(JobStoreLimits.MAX_SQL_BYTES - 9) + "'";
    Map<String, String> props = Map.of("p", "v".repeat(JobStoreLimits.MAX_PROPERTIES_BYTES - 1));
    store.create(new NewJob("job-full", sql, props), at(0));
    Lease lease = acquired("job-full", "coord-a", at(0));
    List<StageProgress> progress = new ArrayList<>();
    for (int stage = 0; stage < JobStoreLimits.MAX_PROGRESS_STAGES; stage++) {
      progress.add(new StageProgress(stage, 999_999, 999_999));
    }
    byte[] summary = new byte[JobStoreLimits.MAX_SUMMARY_BYTES];
    String location = "s3://" + "l".repeat(JobStoreLimits.MAX_RESULT_LOCATION_BYTES - 5);
    store.update(lease, JobUpdate.progress(progress).withSummary(summary).withResultLocation(location), at(1));
    // Three UTF-8 bytes per char: the longest error message in bytes.
    String message = "\u20ac".repeat(JobStoreLimits.MAX_ERROR_MESSAGE_CHARS * 2);
    JobRecord failed = store.transition(lease, JobState.QUEUED, JobState.FAILED,
        JobUpdate.error(new JobError("INTERNAL", message, Integer.MAX_VALUE, Integer.MAX_VALUE)), at(2));

    JobRecord read = store.get("job-full").orElseThrow();
    assertThat(read).usingRecursiveComparison().isEqualTo(failed);
    assertThat(read.sql()).isEqualTo(sql);
    assertThat(read.properties()).isEqualTo(props);
    assertThat(read.progress()).isEqualTo(progress);
    assertThat(read.summary()).hasSize(JobStoreLimits.MAX_SUMMARY_BYTES);
    assertThat(read.resultLocation()).isEqualTo(location);
    assertThat(read.error().message()).startsWith("\u20ac".repeat(JobStoreLimits.MAX_ERROR_MESSAGE_CHARS));
  }

  // ---- state machine

  @Test
  void jobMovesThroughRunningAndFinalizingToSucceededWithTimestamps() {
    JobRecord created = newJob("job-sm", at(0));
    Lease lease = acquired("job-sm", "coord-a", at(1));
    assertThat(lease.epoch()).isEqualTo(1);
    assertThat(lease.expiresAt()).isEqualTo(at(1).plus(LEASE));

    JobRecord running = store.transition(lease, JobState.QUEUED, JobState.RUNNING, JobUpdate.NONE, at(2));
    assertThat(running.state()).isEqualTo(JobState.RUNNING);
    assertThat(running.updatedAt()).isEqualTo(at(2));
    assertThat(running.owner()).isEqualTo("coord-a");
    assertThat(running.hasLiveLease(at(3))).isTrue();
    assertThat(running.finishedAt()).isNull();

    JobRecord finalizing = store.transition(lease, JobState.RUNNING, JobState.FINALIZING, JobUpdate.NONE, at(3));
    assertThat(finalizing.state()).isEqualTo(JobState.FINALIZING);
    assertThat(finalizing.updatedAt()).isEqualTo(at(3));

    JobRecord succeeded = store.transition(lease, JobState.FINALIZING, JobState.SUCCEEDED,
        JobUpdate.NONE.withResultLocation("s3://bucket/results/job-sm/").withSummary(bytes("summary")), at(4));
    assertThat(succeeded.state()).isEqualTo(JobState.SUCCEEDED);
    assertThat(succeeded.updatedAt()).isEqualTo(at(4));
    assertThat(succeeded.finishedAt()).isEqualTo(at(4));
    assertThat(succeeded.expiresAt()).isEqualTo(at(4).plus(RETENTION));
    assertThat(succeeded.owner()).isNull();
    assertThat(succeeded.leaseExpiresAt()).isNull();
    assertThat(succeeded.hasLiveLease(at(4))).isFalse();
    assertThat(succeeded.createdAt()).isEqualTo(at(0));
    assertThat(succeeded.resultLocation()).isEqualTo("s3://bucket/results/job-sm/");
    assertThat(succeeded.summary()).isEqualTo(bytes("summary"));
    assertThat(store.get("job-sm").orElseThrow()).usingRecursiveComparison().isEqualTo(succeeded);

    List<Long> versions = List.of(created.version(), running.version(), finalizing.version(), succeeded.version());
    assertThat(versions).isSorted().doesNotHaveDuplicates();

    assertThat(store.acquire("job-sm", "coord-b", at(100), LEASE)).isEmpty();
    assertThat(store.unfinished(10)).extracting(JobRecord::jobId).doesNotContain("job-sm");
  }

  @Test
  void forbiddenTransitionsAreRefusedAndLeaveTheJobAsItWas() {
    newJob("job-forbidden", at(0));
    Lease lease = acquired("job-forbidden", "coord-a", at(1));

    assertThatThrownBy(() -> store.transition(lease, JobState.QUEUED, JobState.FINALIZING, JobUpdate.NONE, at(2)))
        .isInstanceOf(StateConflictException.class);
    assertThatThrownBy(() -> store.transition(lease, JobState.QUEUED, JobState.SUCCEEDED, JobUpdate.NONE, at(2)))
        .isInstanceOf(StateConflictException.class);
    // Allowed edge, but the job is not in the expected state.
    assertThatThrownBy(() -> store.transition(lease, JobState.RUNNING, JobState.FINALIZING, JobUpdate.NONE, at(2)))
        .isInstanceOf(StateConflictException.class)
        .hasMessageContaining("QUEUED");
    assertThat(store.get("job-forbidden").orElseThrow().state()).isEqualTo(JobState.QUEUED);

    store.transition(lease, JobState.QUEUED, JobState.RUNNING, JobUpdate.NONE, at(3));
    assertThatThrownBy(() -> store.transition(lease, JobState.RUNNING, JobState.QUEUED, JobUpdate.NONE, at(4)))
        .isInstanceOf(StateConflictException.class);
    JobRecord failed = store.transition(lease, JobState.RUNNING, JobState.FAILED,
        JobUpdate.error(new JobError("EXTERNAL", "S3 unreachable", 0, 0)), at(5));
    assertThat(failed.state()).isEqualTo(JobState.FAILED);
    assertThat(failed.finishedAt()).isEqualTo(at(5));
    assertThat(failed.expiresAt()).isEqualTo(at(5).plus(RETENTION));

    for (JobState next : JobState.values()) {
      assertThatThrownBy(() -> store.transition(lease, JobState.FAILED, next, JobUpdate.NONE, at(6)))
          .as("FAILED -> %s", next)
          .isInstanceOf(StateConflictException.class);
    }
    assertThatThrownBy(() -> store.update(lease, JobUpdate.NONE.withResultLocation("s3://late"), at(6)))
        .isInstanceOf(StateConflictException.class);
    JobRecord after = store.get("job-forbidden").orElseThrow();
    assertThat(after).usingRecursiveComparison().isEqualTo(failed);
  }

  // ---- leases and fencing

  @Test
  void acquireGrantsAFreeJobRefusesWhileHeldAndTakesANewEpochAfterExpiry() {
    newJob("job-lease", at(0));
    Lease a = acquired("job-lease", "coord-a", at(0));
    assertThat(a.epoch()).isEqualTo(1);

    assertThat(store.acquire("job-lease", "coord-b", at(10), LEASE)).isEmpty();
    JobRecord held = store.get("job-lease").orElseThrow();
    assertThat(held.owner()).isEqualTo("coord-a");
    assertThat(held.leaseEpoch()).isEqualTo(1);
    assertThat(held.leaseExpiresAt()).isEqualTo(at(0).plus(LEASE));

    // The holder itself may acquire again, always with a new epoch.
    Lease a2 = acquired("job-lease", "coord-a", at(11));
    assertThat(a2.epoch()).isEqualTo(2);

    // At the expiry instant the lease has lapsed.
    Instant lapse = a2.expiresAt();
    Lease b = acquired("job-lease", "coord-b", lapse);
    assertThat(b.epoch()).isEqualTo(3);
    assertThat(b.owner()).isEqualTo("coord-b");
    assertThat(b.expiresAt()).isEqualTo(lapse.plus(LEASE));
    assertThat(store.get("job-lease").orElseThrow().owner()).isEqualTo("coord-b");

    assertThatThrownBy(() -> store.acquire("job-missing", "coord-a", at(0), LEASE))
        .isInstanceOf(NoSuchJobException.class)
        .hasMessageContaining("job-missing");
  }

  @Test
  void oldLeaseIsFencedOnceAnotherCoordinatorAcquiresTheJob() {
    newJob("job-fence", at(0));
    Lease a = acquired("job-fence", "coord-a", at(0));
    store.transition(a, JobState.QUEUED, JobState.RUNNING, JobUpdate.NONE, at(1));
    Lease b = acquired("job-fence", "coord-b", at(0).plus(LEASE).plusSeconds(1));

    Instant later = at(60);
    assertThatThrownBy(() -> store.transition(a, JobState.RUNNING, JobState.FINALIZING, JobUpdate.NONE, later))
        .isInstanceOf(LeaseLostException.class)
        .hasMessageContaining("epoch 1");
    assertThatThrownBy(() -> store.update(a, JobUpdate.progress(List.of(new StageProgress(0, 1, 2))), later))
        .isInstanceOf(LeaseLostException.class);
    assertThatThrownBy(() -> store.renew(a, later, LEASE)).isInstanceOf(LeaseLostException.class);
    assertThatThrownBy(() -> store.transition(a, JobState.RUNNING, JobState.FAILED,
        JobUpdate.error(new JobError("INTERNAL", "x", 0, 0)), later)).isInstanceOf(LeaseLostException.class);
    store.release(a, later); // does nothing: the lease is b's

    JobRecord job = store.get("job-fence").orElseThrow();
    assertThat(job.state()).isEqualTo(JobState.RUNNING);
    assertThat(job.owner()).isEqualTo("coord-b");
    assertThat(job.leaseEpoch()).isEqualTo(b.epoch());
    assertThat(job.progress()).isEmpty();
    assertThat(job.error()).isNull();

    JobRecord advanced = store.transition(b, JobState.RUNNING, JobState.FINALIZING, JobUpdate.NONE, later);
    assertThat(advanced.state()).isEqualTo(JobState.FINALIZING);
  }

  @Test
  void reacquiringFencesTheSameOwnersEarlierLease() {
    newJob("job-refence", at(0));
    Lease first = acquired("job-refence", "coord-a", at(0));
    Lease second = acquired("job-refence", "coord-a", at(1));
    assertThat(second.epoch()).isEqualTo(first.epoch() + 1);

    assertThatThrownBy(() -> store.transition(first, JobState.QUEUED, JobState.RUNNING, JobUpdate.NONE, at(2)))
        .isInstanceOf(LeaseLostException.class)
        .hasMessageContaining("epoch " + second.epoch());
    assertThatThrownBy(() -> store.update(first, JobUpdate.NONE.withResultLocation("s3://stale"), at(2)))
        .isInstanceOf(LeaseLostException.class);
    assertThatThrownBy(() -> store.renew(first, at(2), LEASE)).isInstanceOf(LeaseLostException.class);
    store.release(first, at(2)); // does nothing: the current lease has the later epoch
    JobRecord job = store.get("job-refence").orElseThrow();
    assertThat(job.owner()).isEqualTo("coord-a");
    assertThat(job.leaseEpoch()).isEqualTo(second.epoch());
    assertThat(job.leaseExpiresAt()).isEqualTo(second.expiresAt());
    assertThat(job.resultLocation()).isNull();
    assertThat(store.transition(second, JobState.QUEUED, JobState.RUNNING, JobUpdate.NONE, at(3)).state())
        .isEqualTo(JobState.RUNNING);
  }

  @Test
  void renewExtendsTheLeaseAndReleaseHandsTheJobOverAtOnce() {
    newJob("job-renew", at(0));
    Lease a = acquired("job-renew", "coord-a", at(0));
    Lease renewed = store.renew(a, at(20), LEASE);
    assertThat(renewed.epoch()).isEqualTo(a.epoch());
    assertThat(renewed.expiresAt()).isEqualTo(at(20).plus(LEASE));
    assertThat(store.get("job-renew").orElseThrow().leaseExpiresAt()).isEqualTo(at(20).plus(LEASE));

    // Past the first expiry but within the renewed one: still held.
    assertThat(store.acquire("job-renew", "coord-b", at(0).plus(LEASE).plusSeconds(1), LEASE)).isEmpty();

    store.release(renewed, at(25));
    JobRecord released = store.get("job-renew").orElseThrow();
    assertThat(released.owner()).isNull();
    assertThat(released.leaseExpiresAt()).isNull();
    assertThatThrownBy(() -> store.renew(renewed, at(26), LEASE)).isInstanceOf(LeaseLostException.class)
        .hasMessageContaining("released");
    assertThatThrownBy(() -> store.transition(renewed, JobState.QUEUED, JobState.RUNNING, JobUpdate.NONE, at(26)))
        .isInstanceOf(LeaseLostException.class);

    Lease b = acquired("job-renew", "coord-b", at(26));
    assertThat(b.epoch()).isEqualTo(a.epoch() + 1);
    assertThat(store.transition(b, JobState.QUEUED, JobState.RUNNING, JobUpdate.NONE, at(27)).state())
        .isEqualTo(JobState.RUNNING);
  }

  // ---- cancel

  @Test
  void cancelRequestMarksARunningJobAndLeavesATerminalJobAlone() {
    newJob("job-cancel", at(0));
    Lease lease = acquired("job-cancel", "coord-a", at(0));
    store.transition(lease, JobState.QUEUED, JobState.RUNNING, JobUpdate.NONE, at(1));

    JobRecord requested = store.requestCancel("job-cancel", at(2));
    assertThat(requested.cancelRequested()).isTrue();
    assertThat(requested.state()).isEqualTo(JobState.RUNNING);
    assertThat(requested.owner()).isEqualTo("coord-a");
    assertThat(store.get("job-cancel").orElseThrow().cancelRequested()).isTrue();

    // The owner notices and cancels; its lease is untouched by the request.
    JobRecord cancelled = store.transition(lease, JobState.RUNNING, JobState.CANCELLED, JobUpdate.NONE, at(3));
    assertThat(cancelled.state()).isEqualTo(JobState.CANCELLED);
    assertThat(cancelled.finishedAt()).isEqualTo(at(3));

    newJob("job-done", at(0));
    Lease l2 = acquired("job-done", "coord-a", at(0));
    store.transition(l2, JobState.QUEUED, JobState.FAILED, JobUpdate.error(new JobError("USER_ERROR", "bad", 1, 8)),
        at(1));
    JobRecord before = store.get("job-done").orElseThrow();
    JobRecord after = store.requestCancel("job-done", at(5));
    assertThat(after).usingRecursiveComparison().isEqualTo(before);
    assertThat(after.cancelRequested()).isFalse();

    assertThatThrownBy(() -> store.requestCancel("job-nope", at(5))).isInstanceOf(NoSuchJobException.class);
  }

  // ---- job fields

  @Test
  void progressErrorResultLocationAndSummaryRoundTrip() {
    newJob("job-fields", at(0));
    Lease lease = acquired("job-fields", "coord-a", at(0));
    List<StageProgress> p1 = List.of(new StageProgress(0, 0, 16), new StageProgress(1, 0, 4), new StageProgress(2, 0, 1));
    JobRecord running = store.transition(lease, JobState.QUEUED, JobState.RUNNING, JobUpdate.progress(p1), at(1));
    assertThat(running.progress()).isEqualTo(p1);

    List<StageProgress> p2 = List.of(new StageProgress(0, 16, 16), new StageProgress(1, 3, 4), new StageProgress(2, 0, 1));
    JobRecord updated = store.update(lease, JobUpdate.progress(p2), at(2));
    assertThat(updated.progress()).isEqualTo(p2);
    assertThat(updated.updatedAt()).isEqualTo(at(2));
    assertThat(updated.version()).isGreaterThan(running.version());

    byte[] summary = new byte[300];
    for (int i = 0; i < summary.length; i++) {
      summary[i] = (byte) (i * 7);
    }
    JobRecord withSummary = store.update(lease, JobUpdate.NONE.withSummary(summary), at(3));
    assertThat(withSummary.summary()).isEqualTo(summary);
    assertThat(withSummary.progress()).as("a null field leaves the value as it was").isEqualTo(p2);

    JobError error = new JobError("USER_ERROR", "Column 'x' not found", 3, 14);
    JobRecord failed = store.transition(lease, JobState.RUNNING, JobState.FAILED,
        JobUpdate.error(error).withResultLocation("s3://b/partial"), at(4));
    JobRecord read = store.get("job-fields").orElseThrow();
    for (JobRecord job : List.of(failed, read)) {
      assertThat(job.error()).isEqualTo(error);
      assertThat(job.resultLocation()).isEqualTo("s3://b/partial");
      assertThat(job.summary()).isEqualTo(summary);
      assertThat(job.progress()).isEqualTo(p2);
    }
  }

  @Test
  void oversizedSummaryIsRefusedAndLongErrorMessagesAreCut() {
    newJob("job-limits", at(0));
    Lease lease = acquired("job-limits", "coord-a", at(0));
    byte[] big = new byte[JobStoreLimits.MAX_SUMMARY_BYTES + 1];
    assertThatThrownBy(() -> store.update(lease, JobUpdate.NONE.withSummary(big), at(1)))
        .isInstanceOf(JobStoreException.class)
        .hasMessageContaining(String.valueOf(JobStoreLimits.MAX_SUMMARY_BYTES));

    String longMessage = "e".repeat(JobStoreLimits.MAX_ERROR_MESSAGE_CHARS * 3);
    JobRecord failed = store.transition(lease, JobState.QUEUED, JobState.FAILED,
        JobUpdate.error(new JobError("INTERNAL", longMessage, 0, 0)), at(2));
    assertThat(failed.state()).isEqualTo(JobState.FAILED);
    assertThat(failed.error().message()).startsWith("e".repeat(JobStoreLimits.MAX_ERROR_MESSAGE_CHARS))
        .endsWith("(message truncated)")
        .hasSizeLessThan(JobStoreLimits.MAX_ERROR_MESSAGE_CHARS + 100);
  }

  // ---- attempts and winners

  @Test
  void attemptsAreListedByStagePartitionAndAttemptWithTheirEnds() {
    newJob("job-att", at(0));
    store.attemptStarted("job-att", 1, 0, 0, 3, at(10));
    store.attemptStarted("job-att", 0, 2, 1, 3, at(11));
    store.attemptStarted("job-att", 0, 2, 0, 2, at(5));
    store.attemptStarted("job-att", 0, 10, 0, 2, at(6));
    store.attemptFinished("job-att", 0, 2, 0, AttemptState.FAILED, bytes("timeout"), at(7));
    store.attemptFinished("job-att", 0, 2, 1, AttemptState.SUCCEEDED, bytes("ok"), at(12));
    // An end whose start was never recorded still lands.
    store.attemptFinished("job-att", 2, 0, 0, AttemptState.SUCCEEDED, null, at(13));

    List<TaskAttempt> attempts = store.attempts("job-att");
    assertThat(attempts).extracting(t -> t.stageId() + "/" + t.partition() + "/" + t.attempt())
        .containsExactly("0/2/0", "0/2/1", "0/10/0", "1/0/0", "2/0/0");
    TaskAttempt failed = attempts.get(0);
    assertThat(failed.state()).isEqualTo(AttemptState.FAILED);
    assertThat(failed.leaseEpoch()).isEqualTo(2);
    assertThat(failed.startedAt()).isEqualTo(at(5));
    assertThat(failed.finishedAt()).isEqualTo(at(7));
    assertThat(failed.detail()).isEqualTo(bytes("timeout"));
    TaskAttempt ok = attempts.get(1);
    assertThat(ok.state()).isEqualTo(AttemptState.SUCCEEDED);
    assertThat(ok.startedAt()).isEqualTo(at(11));
    assertThat(ok.finishedAt()).isEqualTo(at(12));
    assertThat(ok.detail()).isEqualTo(bytes("ok"));
    TaskAttempt running = attempts.get(2);
    assertThat(running.state()).isEqualTo(AttemptState.RUNNING);
    assertThat(running.finishedAt()).isNull();
    assertThat(running.detail()).isNull();
    TaskAttempt unstarted = attempts.get(4);
    assertThat(unstarted.state()).isEqualTo(AttemptState.SUCCEEDED);
    assertThat(unstarted.finishedAt()).isEqualTo(at(13));
    assertThat(attempts).allSatisfy(t -> assertThat(t.jobId()).isEqualTo("job-att"));

    assertThatThrownBy(() -> store.attemptStarted("job-att", 0, 2, 1, 4, at(20)))
        .isInstanceOf(StateConflictException.class);
    assertThatThrownBy(() -> store.attemptFinished("job-att", 0, 2, 1, AttemptState.FAILED, null, at(20)))
        .isInstanceOf(StateConflictException.class);
    assertThatThrownBy(() -> store.attemptFinished("job-att", 0, 10, 0, AttemptState.SUCCEEDED,
        new byte[JobStoreLimits.MAX_ATTEMPT_DETAIL_BYTES + 1], at(20)))
        .isInstanceOf(JobStoreException.class)
        .hasMessageContaining(String.valueOf(JobStoreLimits.MAX_ATTEMPT_DETAIL_BYTES));
    assertThat(store.attempts("job-att").get(1).state()).isEqualTo(AttemptState.SUCCEEDED);
    assertThat(store.attempts("job-other")).isEmpty();
  }

  @Test
  void firstRecordedWinnerOfATaskStays() {
    newJob("job-win", at(0));
    TaskWinner first = store.recordWinner("job-win", 1, 3, 2, bytes("attempt-2"));
    assertThat(first.attempt()).isEqualTo(2);
    TaskWinner second = store.recordWinner("job-win", 1, 3, 0, bytes("attempt-0"));
    assertThat(second.attempt()).isEqualTo(2);
    assertThat(second.result()).isEqualTo(bytes("attempt-2"));

    store.recordWinner("job-win", 0, 7, 0, bytes("s0p7"));
    store.recordWinner("job-win", 1, 0, 1, bytes("s1p0"));
    store.recordWinner("job-win", 0, 12, 0, bytes("s0p12"));
    assertThat(store.winners("job-win"))
        .extracting(w -> w.stageId() + "/" + w.partition() + "/" + w.attempt() + "=" + new String(w.result(),
            StandardCharsets.UTF_8))
        .containsExactly("0/7/0=s0p7", "0/12/0=s0p12", "1/0/1=s1p0", "1/3/2=attempt-2");

    assertThatThrownBy(() -> store.recordWinner("job-win", 5, 0, 0,
        new byte[JobStoreLimits.MAX_WINNER_RESULT_BYTES + 1]))
        .isInstanceOf(JobStoreException.class)
        .hasMessageContaining(String.valueOf(JobStoreLimits.MAX_WINNER_RESULT_BYTES));
    assertThat(store.winners("job-win")).hasSize(4);
  }

  @Test
  void aLostWinnerIsDiscardedOnceAndTheNextSuccessfulAttemptWins() {
    newJob("job-lost", at(0));
    store.recordWinner("job-lost", 0, 4, 1, bytes("attempt-1"));
    assertThat(store.discardWinner("job-lost", 0, 4, 0)).as("not the winner").isFalse();
    assertThat(store.winners("job-lost")).singleElement().satisfies(w -> assertThat(w.attempt()).isEqualTo(1));
    assertThat(store.discardWinner("job-lost", 0, 4, 1)).isTrue();
    assertThat(store.discardWinner("job-lost", 0, 4, 1)).as("discarded already").isFalse();
    assertThat(store.winners("job-lost")).isEmpty();
    TaskWinner rerun = store.recordWinner("job-lost", 0, 4, 5, bytes("attempt-5"));
    assertThat(rerun.attempt()).isEqualTo(5);
    assertThat(store.recordWinner("job-lost", 0, 4, 6, bytes("attempt-6")).attempt()).isEqualTo(5);
  }

  // ---- concurrency slots

  @Test
  void slotsAreGrantedUpToThePoolsCapacityAndAFreedSlotIsGrantedAgain() {
    ConcurrencySlot a = store.acquireSlot("account", 2, "job-1/0.0.0", at(0), LEASE).orElseThrow();
    ConcurrencySlot b = store.acquireSlot("account", 2, "job-1/0.1.0", at(0), LEASE).orElseThrow();
    assertThat(Set.of(a.index(), b.index())).containsExactlyInAnyOrder(0, 1);
    assertThat(a.expiresAt()).isEqualTo(at(30));
    assertThat(store.acquireSlot("account", 2, "job-2/0.0.0", at(1), LEASE)).isEmpty();
    // Pools are independent.
    assertThat(store.acquireSlot("job/job-2", 2, "job-2/0.0.0", at(1), LEASE)).isPresent();
    assertThat(store.heldSlots("account", at(1))).extracting(ConcurrencySlot::holder)
        .containsExactlyInAnyOrder("job-1/0.0.0", "job-1/0.1.0");

    assertThat(store.releaseSlot(a)).isTrue();
    assertThat(store.releaseSlot(a)).as("a slot is freed once").isFalse();
    ConcurrencySlot c = store.acquireSlot("account", 2, "job-2/0.0.0", at(2), LEASE).orElseThrow();
    assertThat(c.index()).isEqualTo(a.index());
    assertThat(store.heldSlots("account", at(2))).extracting(ConcurrencySlot::holder)
        .containsExactlyInAnyOrder("job-1/0.1.0", "job-2/0.0.0");
  }

  @Test
  void aSlotWhoseHolderVanishedIsFreeOnceItsLeaseLapsesAndTheOldHolderCannotFreeItsSuccessor() {
    ConcurrencySlot crashed = store.acquireSlot("account", 1, "dead-coordinator", at(0), LEASE).orElseThrow();
    assertThat(store.acquireSlot("account", 1, "live", at(29), LEASE)).isEmpty();
    ConcurrencySlot next = store.acquireSlot("account", 1, "live", at(30), LEASE).orElseThrow();
    assertThat(store.heldSlots("account", at(30))).containsExactly(next);
    assertThat(store.releaseSlot(crashed)).isFalse();
    assertThat(store.heldSlots("account", at(31))).containsExactly(next);
  }

  @Test
  void slotsAboveALoweredCapacityStillCountUntilFreed() {
    assertThat(store.acquireSlot("account", 3, "h0", at(0), LEASE)).isPresent();
    assertThat(store.acquireSlot("account", 3, "h1", at(0), LEASE)).isPresent();
    assertThat(store.acquireSlot("account", 3, "h2", at(0), LEASE)).isPresent();
    ConcurrencySlot freed = store.heldSlots("account", at(0)).get(0);
    store.releaseSlot(freed);
    assertThat(store.acquireSlot("account", 2, "h3", at(1), LEASE)).isEmpty();
  }

  @Test
  void slotPoolsOutsideTheirRangesAreRefusedNamingTheRange() {
    assertThatThrownBy(() -> store.acquireSlot("account", 0, "h", at(0), LEASE))
        .isInstanceOf(JobStoreException.class).hasMessageContaining("1.." + JobStoreLimits.MAX_SLOTS);
    assertThatThrownBy(() -> store.acquireSlot("", 1, "h", at(0), LEASE))
        .isInstanceOf(JobStoreException.class).hasMessageContaining("slot pool name");
    assertThatThrownBy(() -> store.create(new NewJob("#SLOTS#account", "SELECT 1", Map.of()), at(0)))
        .isInstanceOf(JobStoreException.class).hasMessageContaining("must not start with '#'");
  }

  // ---- races

  @Test
  void racingAcquiresGrantExactlyOneLease() throws Exception {
    newJob("job-race-acquire", at(0));
    List<Optional<Lease>> results = race(i -> store.acquire("job-race-acquire", "coord-" + i, at(1), LEASE));
    List<Lease> granted = results.stream().flatMap(Optional::stream).toList();
    assertThat(granted).hasSize(1);
    JobRecord job = store.get("job-race-acquire").orElseThrow();
    assertThat(job.owner()).isEqualTo(granted.get(0).owner());
    assertThat(job.leaseEpoch()).isEqualTo(granted.get(0).epoch()).isEqualTo(1);
  }

  @Test
  void racingWinnersAllSeeTheSameFirstWriter() throws Exception {
    newJob("job-race-win", at(0));
    List<TaskWinner> results = race(i -> store.recordWinner("job-race-win", 2, 5, i, bytes("result-of-" + i)));
    Set<Integer> attempts = new HashSet<>();
    for (TaskWinner w : results) {
      attempts.add(w.attempt());
      assertThat(new String(w.result(), StandardCharsets.UTF_8)).isEqualTo("result-of-" + w.attempt());
    }
    assertThat(attempts).hasSize(1);
    assertThat(store.winners("job-race-win")).singleElement()
        .satisfies(w -> assertThat(w.attempt()).isEqualTo(results.get(0).attempt()));
  }

  @Test
  void racingHoldersNeverHoldMoreSlotsThanThePoolHas() throws Exception {
    List<Optional<ConcurrencySlot>> results = race(i -> store.acquireSlot("account", 3, "holder-" + i, at(0), LEASE));
    List<ConcurrencySlot> granted = results.stream().flatMap(Optional::stream).toList();
    assertThat(granted).hasSize(3);
    assertThat(granted).extracting(ConcurrencySlot::index).containsExactlyInAnyOrder(0, 1, 2);
    assertThat(store.heldSlots("account", at(0))).containsExactlyInAnyOrderElementsOf(granted);
  }

  @Test
  void racingCoordinatorsAdvanceTheJobExactlyOnce() throws Exception {
    newJob("job-race-advance", at(0));
    Lease stale = acquired("job-race-advance", "coord-stale", at(0));
    store.transition(stale, JobState.QUEUED, JobState.RUNNING, JobUpdate.NONE, at(1));
    Instant afterExpiry = stale.expiresAt().plusSeconds(1);

    // Half the racers still hold the lapsed (but not yet superseded) lease; the other half first take
    // the job over. Whoever writes first wins; everybody else must be refused.
    List<String> outcomes = race(i -> {
      Lease lease = stale;
      if (i % 2 == 1) {
        Optional<Lease> fresh = store.acquire("job-race-advance", "coord-" + i, afterExpiry, LEASE);
        if (fresh.isEmpty()) {
          return "no-lease";
        }
        lease = fresh.get();
      }
      try {
        store.transition(lease, JobState.RUNNING, JobState.FINALIZING, JobUpdate.NONE, afterExpiry);
        return "advanced:" + lease.owner() + ":" + lease.epoch();
      } catch (LeaseLostException e) {
        return "lease-lost";
      } catch (StateConflictException e) {
        return "conflict";
      }
    });
    List<String> advanced = outcomes.stream().filter(o -> o.startsWith("advanced")).toList();
    assertThat(advanced).as("outcomes %s", outcomes).hasSize(1);
    JobRecord job = store.get("job-race-advance").orElseThrow();
    assertThat(job.state()).isEqualTo(JobState.FINALIZING);
    // All racers acquire at the same instant, so at most one takeover can be granted.
    assertThat(job.leaseEpoch()).isBetween(1L, 2L);
    if (!advanced.get(0).equals("advanced:coord-stale:1")) {
      // A taken-over lease advanced the job: it must be the job's current lease.
      assertThat(advanced.get(0)).isEqualTo("advanced:" + job.owner() + ":" + job.leaseEpoch());
    }
  }

  @Test
  void racingTransitionsUnderTwoLeasesLetExactlyOneThrough() throws Exception {
    newJob("job-race-two", at(0));
    Lease a = acquired("job-race-two", "coord-a", at(0));
    store.transition(a, JobState.QUEUED, JobState.RUNNING, JobUpdate.NONE, at(1));
    Lease b = acquired("job-race-two", "coord-b", a.expiresAt());
    List<Boolean> outcomes = race(i -> {
      try {
        store.transition(i % 2 == 0 ? a : b, JobState.RUNNING, JobState.FINALIZING, JobUpdate.NONE, at(40));
        return true;
      } catch (LeaseLostException | StateConflictException e) {
        return false;
      }
    });
    assertThat(outcomes.stream().filter(ok -> ok).count()).isEqualTo(1);
    JobRecord job = store.get("job-race-two").orElseThrow();
    assertThat(job.state()).isEqualTo(JobState.FINALIZING);
    assertThat(job.leaseEpoch()).isEqualTo(b.epoch());
  }

  @FunctionalInterface
  private interface Racer<T> {
    T run(int i) throws Exception;
  }

  /** Runs {@link #RACERS} calls at once (released together by a latch) and returns their results. */
  private static <T> List<T> race(Racer<T> racer) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(RACERS);
    try {
      CountDownLatch ready = new CountDownLatch(RACERS);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < RACERS; i++) {
        int n = i;
        Callable<T> call = () -> {
          ready.countDown();
          go.await();
          return racer.run(n);
        };
        futures.add(pool.submit(call));
      }
      ready.await();
      go.countDown();
      List<T> results = new ArrayList<>();
      for (Future<T> f : futures) {
        results.add(f.get(60, TimeUnit.SECONDS));
      }
      return results;
    } finally {
      pool.shutdownNow();
    }
  }

  // ---- sweeping and expiry

  @Test
  void unfinishedListsNonTerminalJobsOldestFirst() {
    newJob("job-u3", at(3));
    newJob("job-u1", at(1));
    newJob("job-u2", at(2));
    newJob("job-u4", at(4));
    Lease l = acquired("job-u2", "coord-a", at(5));
    store.transition(l, JobState.QUEUED, JobState.RUNNING, JobUpdate.NONE, at(5));
    Lease done = acquired("job-u4", "coord-a", at(5));
    store.transition(done, JobState.QUEUED, JobState.CANCELLED, JobUpdate.NONE, at(6));

    assertThat(store.unfinished(10)).extracting(JobRecord::jobId).containsExactly("job-u1", "job-u2", "job-u3");
    assertThat(store.unfinished(2)).extracting(JobRecord::jobId).containsExactly("job-u1", "job-u2");
    assertThat(store.unfinished(10).get(1).state()).isEqualTo(JobState.RUNNING);
  }

  @Test
  void expiredJobsArePurgedWithTheirAttemptsAndWinners() {
    newJob("job-old", at(0));
    newJob("job-live", at(0));
    store.attemptStarted("job-old", 0, 0, 0, 1, at(1));
    store.attemptFinished("job-old", 0, 0, 0, AttemptState.SUCCEEDED, bytes("d"), at(2));
    store.recordWinner("job-old", 0, 0, 0, bytes("r"));
    store.attemptStarted("job-live", 0, 0, 0, 1, at(1));
    store.recordWinner("job-live", 0, 0, 0, bytes("r"));
    Lease lease = acquired("job-old", "coord-a", at(2));
    JobRecord finished = store.transition(lease, JobState.QUEUED, JobState.CANCELLED, JobUpdate.NONE, at(3));
    Instant expiry = finished.expiresAt();
    assertThat(expiry).isEqualTo(at(3).plus(RETENTION));

    assertThat(store.purgeExpired(expiry.minusMillis(1))).isZero();
    assertThat(store.get("job-old")).isPresent();

    if (purgeDeletesExpiredJobs()) {
      assertThat(store.purgeExpired(expiry)).isEqualTo(1);
      assertThat(store.get("job-old")).isEmpty();
      assertThat(store.attempts("job-old")).isEmpty();
      assertThat(store.winners("job-old")).isEmpty();
    } else {
      assertThat(store.purgeExpired(expiry)).isZero();
      assertMarkedForNativeExpiry("job-old", expiry);
    }
    assertThat(store.get("job-live")).isPresent();
    assertThat(store.attempts("job-live")).hasSize(1);
    assertThat(store.winners("job-live")).hasSize(1);
    assertThat(store.purgeExpired(expiry.plus(Duration.ofDays(365)))).isZero();
  }
}

package dev.squall.coordinator;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.squall.coordinator.api.Caller;
import dev.squall.coordinator.api.PublicErrors;
import dev.squall.coordinator.api.QueryAnswer;
import dev.squall.coordinator.api.QueryNotFinishedException;
import dev.squall.coordinator.api.QueryNotFoundException;
import dev.squall.coordinator.api.QueryService;
import dev.squall.coordinator.api.QueryStatus;
import dev.squall.coordinator.api.QueryThrottledException;
import dev.squall.coordinator.api.SquallException;
import dev.squall.coordinator.api.Submission;
import dev.squall.coordinator.job.CancelMarkers;
import dev.squall.coordinator.job.JobDriver;
import dev.squall.coordinator.job.JobSettings;
import dev.squall.coordinator.job.ObjectRetention;
import dev.squall.coordinator.job.QueryAdmission;
import dev.squall.coordinator.job.ResultStore;
import dev.squall.coordinator.job.SelfInvoker;
import dev.squall.jobstore.JobError;
import dev.squall.jobstore.JobRecord;
import dev.squall.jobstore.JobState;
import dev.squall.jobstore.JobStore;
import dev.squall.jobstore.NewJob;
import dev.squall.jobstore.NoSuchJobException;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.QuerySummary;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The coordinator's query service over the job store. Every query is a stored job:
 *
 * <ul>
 *   <li>a synchronous submission runs its job in this invocation for up to
 *       {@link JobSettings#syncWait()}; a job still running then is handed to an asynchronous
 *       invocation and the client gets its status (HTTP 202);
 *   <li>an asynchronous submission is handed over at once;
 *   <li>a status read of a job whose coordinator died (its lease lapsed) asks for an invocation that
 *       takes the job over; so does the periodic {@link #sweep()}.
 * </ul>
 *
 * <p>A submission is admitted only while fewer queries run than {@link JobSettings#runningQueries()}
 * ({@link QueryAdmission}); otherwise it is refused with {@link QueryThrottledException} before its
 * job exists, so that driving invocations leave part of the coordinator's reserved concurrency to
 * status, result and cancel requests.
 */
public final class QueryCoordinator implements QueryService {
  private static final Logger LOG = LoggerFactory.getLogger(QueryCoordinator.class);
  /** A job nobody has held for this long (and no live lease) is taken over. */
  private static final Duration UNATTENDED = Duration.ofSeconds(2);

  private final JobStore store;
  private final JobDriver driver;
  private final ResultStore results;
  private final SelfInvoker self;
  private final S3Client s3;
  private final CoordinatorSettings settings;
  private final JobSettings jobSettings;
  private final Clock clock;
  private final QueryAdmission admission;

  public QueryCoordinator(JobStore store, JobDriver driver, ResultStore results, SelfInvoker self, S3Client s3,
      CoordinatorSettings settings, JobSettings jobSettings, Clock clock) {
    this.store = store;
    this.driver = driver;
    this.results = results;
    this.self = self;
    this.s3 = s3;
    this.settings = settings;
    this.jobSettings = jobSettings;
    this.clock = clock;
    this.admission = new QueryAdmission(store, clock, jobSettings.runningQueries(), settings.jobTimeout());
  }

  @Override
  public Submission submit(Caller caller, String queryId, String sql, Map<String, String> properties, boolean async) {
    try {
      QueryProperties.validate(settings.queryLimits(), properties);
    } catch (SquallException e) {
      // Refused before a job exists, but answered as a failed job's error is: with a reference id.
      throw new SquallException(e.code(), PublicErrors.withReference("query " + queryId, e.code().name(),
          e.getMessage()), e.line(), e.column(), e);
    }
    if (!admission.admit(queryId)) {
      throw new QueryThrottledException(admission.capacity());
    }
    JobRecord job;
    try {
      job = store.create(new NewJob(queryId, sql, properties, caller.id()), clock.instant());
    } catch (RuntimeException e) {
      admission.release(queryId);
      throw e;
    }
    if (async) {
      self.resume(queryId);
      return Submission.accepted(statusOf(job));
    }
    Instant start = clock.instant();
    Duration grace = jobSettings.suspendGrace().compareTo(Duration.ofSeconds(2)) > 0 ? Duration.ofSeconds(2)
        : jobSettings.suspendGrace();
    JobDriver.Drive drive = driver.drive(queryId, start.plus(jobSettings.syncWait()), grace);
    JobRecord done = drive.job();
    admission.releaseIfEnded(done);
    if (drive.outcome() != JobDriver.Outcome.FINISHED) {
      return Submission.accepted(statusOf(done));
    }
    if (done.state() != JobState.SUCCEEDED) {
      throw errorOf(done);
    }
    return Submission.answered(answerOf(done, drive.answer()));
  }

  @Override
  public QueryStatus status(Caller caller, String queryId) {
    JobRecord job = find(caller, queryId);
    takeOverIfUnattended(job);
    return statusOf(job);
  }

  @Override
  public QueryAnswer result(Caller caller, String queryId) {
    JobRecord job = find(caller, queryId);
    switch (job.state()) {
      case SUCCEEDED -> {
        return answerOf(job, null);
      }
      case FAILED, CANCELLED -> throw errorOf(job);
      default -> {
        takeOverIfUnattended(job);
        throw new QueryNotFinishedException(queryId, job.state().name());
      }
    }
  }

  @Override
  public QueryStatus cancel(Caller caller, String queryId) {
    find(caller, queryId);
    JobRecord job;
    try {
      job = store.requestCancel(queryId, clock.instant());
    } catch (NoSuchJobException e) {
      throw new QueryNotFoundException(queryId);
    }
    if (!job.state().isTerminal()) {
      // Running tasks poll this marker between batches; the owner deletes it with the job's data.
      new CancelMarkers(s3, settings.shuffleBucket()).put(queryId);
      if (!job.hasLiveLease(clock.instant())) {
        self.resume(queryId); // nobody is running it: an invocation ends it as CANCELLED
      }
    }
    return statusOf(job);
  }

  /**
   * Carries on with a job in an asynchronous invocation, until it ends or the invocation's time
   * is nearly up (then it hands over again). Does nothing when another invocation holds the job.
   *
   * @param remaining time left in this invocation
   */
  public JobDriver.Outcome resume(String jobId, Duration remaining) {
    Instant handOffAt = clock.instant().plus(remaining).minus(jobSettings.handOffMargin());
    try {
      JobDriver.Drive drive = driver.drive(jobId, handOffAt, jobSettings.suspendGrace());
      admission.releaseIfEnded(drive.job());
      return drive.outcome();
    } catch (NoSuchJobException e) {
      LOG.warn("resume of job {} ignored: {}", jobId, e.getMessage());
      return JobDriver.Outcome.NOT_OWNER;
    }
  }

  /** Finishes what this coordinator still does after its answers (queued job data deletions), then lets go of it. */
  public void close() {
    driver.close();
  }

  /**
   * Asks for an invocation for every unfinished job whose coordinator is gone (lease lapsed); the
   * running-query slots of ended jobs are given back and the store's expired jobs purged on the way, and, where no bucket lifecycle rule does it
   * ({@link CoordinatorSettings#objectRetention()}), answers and job objects past their retention.
   *
   * @return the number of jobs resumed
   */
  public int sweep() {
    int resumed = 0;
    for (JobRecord job : store.unfinished(1000)) {
      if (takeOverIfUnattended(job)) {
        resumed++;
      }
    }
    try {
      admission.releaseEnded();
    } catch (RuntimeException e) {
      LOG.warn("giving back running-query slots of ended jobs failed: {}", e.toString());
    }
    store.purgeExpired(clock.instant());
    if (!settings.objectRetention().isZero()) {
      try {
        new ObjectRetention(s3, settings.shuffleBucket(), settings.objectRetention()).deleteExpired(clock.instant());
      } catch (RuntimeException e) {
        LOG.warn("deleting expired answers failed: {}", e.toString());
      }
    }
    return resumed;
  }

  private boolean takeOverIfUnattended(JobRecord job) {
    Instant now = clock.instant();
    if (job.state().isTerminal() || job.hasLiveLease(now)) {
      return false;
    }
    Instant lastSeen = job.leaseExpiresAt() != null && job.leaseExpiresAt().isAfter(job.updatedAt())
        ? job.leaseExpiresAt() : job.updatedAt();
    if (lastSeen != null && Duration.between(lastSeen, now).compareTo(UNATTENDED) < 0) {
      return false; // just handed over or just submitted: its invocation is on the way
    }
    LOG.info("job {} ({}) has no live coordinator; resuming it", job.jobId(), job.state());
    self.resume(job.jobId());
    return true;
  }

  /** The job, if {@code caller} submitted it: another caller's job reads as absent. */
  private JobRecord find(Caller caller, String queryId) {
    return store.get(queryId).filter(job -> caller.owns(job.caller()))
        .orElseThrow(() -> new QueryNotFoundException(queryId));
  }

  private QueryAnswer answerOf(JobRecord job, byte[] inMemory) {
    String id = job.jobId();
    QuerySummary summary = summaryOf(job);
    QueryAnswer.ResultSpill spill = ipc -> List.of(results.url(id));
    long size = inMemory != null ? inMemory.length : results.size(id);
    if (size > settings.inlineResultCapBytes()) {
      return new QueryAnswer(id, new byte[0], List.of(results.url(id)), summary, spill);
    }
    return new QueryAnswer(id, inMemory != null ? inMemory : results.get(id), List.of(), summary, spill);
  }

  static SquallException errorOf(JobRecord job) {
    JobError e = job.error();
    if (e == null) {
      return new SquallException(ErrorCode.INTERNAL_ERROR, "query " + job.jobId() + " ended " + job.state() + " without an error");
    }
    ErrorCode code;
    try {
      code = ErrorCode.valueOf(e.code());
    } catch (IllegalArgumentException unknown) {
      code = ErrorCode.INTERNAL_ERROR;
    }
    return new SquallException(code, e.message(), e.line(), e.column(), null);
  }

  static QuerySummary summaryOf(JobRecord job) {
    if (job.summary() == null) {
      return QuerySummary.getDefaultInstance();
    }
    try {
      return QuerySummary.parseFrom(job.summary());
    } catch (InvalidProtocolBufferException e) {
      return QuerySummary.getDefaultInstance();
    }
  }

  static QueryStatus statusOf(JobRecord job) {
    return new QueryStatus(job.jobId(), job.state().name(), job.cancelRequested(), job.createdAt(), job.updatedAt(),
        job.finishedAt(), job.progress(), job.error(), job.state() == JobState.SUCCEEDED ? summaryOf(job) : null);
  }
}

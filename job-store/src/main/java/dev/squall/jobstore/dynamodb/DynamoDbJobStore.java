package dev.squall.jobstore.dynamodb;

import dev.squall.jobstore.AttemptState;
import dev.squall.jobstore.ConcurrencySlot;
import dev.squall.jobstore.ConditionalJobStore;
import dev.squall.jobstore.JobError;
import dev.squall.jobstore.JobRecord;
import dev.squall.jobstore.JobState;
import dev.squall.jobstore.JobStore;
import dev.squall.jobstore.JobStoreException;
import dev.squall.jobstore.JobStoreLimits;
import dev.squall.jobstore.JobUpdate;
import dev.squall.jobstore.Lease;
import dev.squall.jobstore.NewJob;
import dev.squall.jobstore.StageProgress;
import dev.squall.jobstore.TaskAttempt;
import dev.squall.jobstore.TaskWinner;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.Projection;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The job store on one DynamoDB table (AWS SDK v2). Every write that advances a job is a single
 * {@code UpdateItem} or {@code PutItem} with a {@code ConditionExpression}; when DynamoDB refuses
 * it ({@code ConditionalCheckFailedException}) the protocol ({@link ConditionalJobStore}) reads the
 * item again, consistently, to throw the exception the {@link JobStore} contract names. This class
 * holds only the item layout and the conditional requests. Every read is strongly consistent.
 *
 * <h2>Table schema</h2>
 *
 * <ul>
 *   <li>Partition key {@code job_id} (S), sort key {@code item} (S). On-demand billing. A
 *       {@code Query} on {@code job_id} returns every item of one job.
 *   <li>Job item, {@code item = "JOB"}: {@code sql_text} S, {@code properties} M of S,
 *       {@code state} S (a {@link JobState} name), {@code version} N, {@code owner} S (absent when
 *       no lease is held), {@code lease_epoch} N, {@code lease_expires_at} N, {@code cancel_requested}
 *       BOOL, {@code created_at} N, {@code updated_at} N, {@code finished_at} N, {@code progress} L of
 *       M {@code {s: stage, d: tasks done, t: tasks total}} (N each), {@code error_code} S,
 *       {@code error_message} S, {@code error_line} N, {@code error_column} N, {@code result_location}
 *       S, {@code summary} B, {@code expires_at_ms} N. Instants are epoch milliseconds.
 *   <li>Attempt item, {@code item = "ATTEMPT#<stage, 4 digits>#<partition, 6 digits>#<attempt, 6
 *       digits>"}: {@code stage_id}, {@code partition_id}, {@code attempt}, {@code lease_epoch} N,
 *       {@code state} S (an {@link AttemptState} name), {@code started_at} N, {@code finished_at} N,
 *       {@code detail} B. Zero-padding makes the sort key order stage, partition, attempt.
 *   <li>Winner item, {@code item = "WINNER#<stage, 4 digits>#<partition, 6 digits>"}: {@code
 *       stage_id}, {@code partition_id}, {@code attempt} N, {@code result} B.
 *   <li>Concurrency-slot item: partition {@code job_id = "#SLOTS#<pool>"}, {@code item =
 *       "SLOT#<index, 5 digits>"}: {@code slot} N, {@code holder} S, {@code lease_expires_at} N
 *       (epoch milliseconds); taken with a {@code PutItem} conditional on the item being absent or
 *       its lease lapsed, freed with a {@code DeleteItem} conditional on holder and lease. Its TTL is
 *       the lease's end plus a day. All slots of a pool share one partition (about 1,000 writes a
 *       second), far above the rate at which Squall starts tasks.
 *   <li>Global secondary index {@value #UNFINISHED_INDEX} (keys only): partition key {@code sweep}
 *       (S), sort key {@code sweep_key} (S). A job item carries {@code sweep = "UNFINISHED"} from
 *       creation until its terminal transition removes it, so the index holds exactly the
 *       non-terminal jobs; {@code sweep_key} is the creation time (20 digits, see {@link #sweepKey})
 *       then {@code #} and the job id, so the index is in creation order.
 *   <li>TTL attribute {@code expires_at} (N, epoch <em>seconds</em>). A job item gets it on reaching
 *       a terminal state: finish time plus the store's retention, rounded up to the second
 *       ({@code expires_at_ms} keeps the exact instant for {@link JobRecord#expiresAt}). Attempt and
 *       winner items are written while the job runs, before its expiry is known, so they get
 *       {@code expires_at} = their write time plus {@code taskItemLifetime} (default: retention + 7
 *       days): they outlive their finished job as long as the job ran for less than 7 days. A job
 *       that runs longer may lose its task items to TTL; Squall jobs are bounded far below that.
 * </ul>
 *
 * <h2>Costs and limits</h2>
 *
 * <ul>
 *   <li>{@link #unfinished} queries the sparse index and then reads each listed job (one
 *       consistent {@code GetItem} per job, at most {@code limit}); it never scans the table. All
 *       unfinished jobs share one index partition ({@code sweep = "UNFINISHED"}), which bounds the
 *       rate of job creations and finishes to that of one index partition (about 1,000 writes per
 *       second): far above Squall's.
 *   <li>{@link #purgeExpired} does nothing and returns 0: DynamoDB TTL deletes expired items
 *       (typically within a few days of expiry). Until then {@link #get} still returns the job.
 *   <li>Items stay below DynamoDB's 400 KB through {@link JobStoreLimits}; a refused oversized
 *       item is reported with a {@link JobStoreException} naming the limit.
 * </ul>
 *
 * <p>Thread-safe (the SDK client is). {@link #close} closes the client only if the store was
 * told it owns it.
 */
public final class DynamoDbJobStore extends ConditionalJobStore {
  private static final Logger LOG = LoggerFactory.getLogger(DynamoDbJobStore.class);

  /** The TTL attribute (epoch seconds). */
  public static final String TTL_ATTRIBUTE = "expires_at";
  /** Extra lifetime of attempt and winner items beyond the retention of finished jobs. */
  public static final Duration TASK_ITEM_EXTRA_LIFETIME = Duration.ofDays(7);

  static final String JOB_ID = "job_id";
  static final String ITEM = "item";
  static final String JOB_ITEM = "JOB";
  private static final String ATTEMPT_PREFIX = "ATTEMPT#";
  private static final String WINNER_PREFIX = "WINNER#";
  private static final String SLOT_PARTITION_PREFIX = "#SLOTS#";
  private static final String SLOT_PREFIX = "SLOT#";
  /** How long a slot item outlives its lease before TTL deletes it. */
  private static final Duration SLOT_ITEM_EXTRA_LIFETIME = Duration.ofDays(1);
  private static final int MAX_ITEM_KB = 400;
  /** The sparse index of non-terminal jobs in creation order, for the sweep. */
  public static final String UNFINISHED_INDEX = "unfinished";
  static final String SWEEP = "sweep";
  static final String SWEEP_KEY = "sweep_key";
  private static final String UNFINISHED = "UNFINISHED";
  /** Whether the missing-TTL warning was logged: once per JVM is enough (tests create many tables). */
  private static final AtomicBoolean TTL_WARNED = new AtomicBoolean();

  private final DynamoDbClient client;
  private final String table;
  private final Duration taskItemLifetime;
  private final Clock clock;
  private final boolean ownsClient;

  /**
   * A store on an existing table (see {@link #createTable}).
   *
   * @param client the DynamoDB client; give it an explicit HTTP client (e.g. url-connection)
   * @param table the table name
   * @param retention how long finished jobs are kept (TTL = finish time + retention)
   * @param taskItemLifetime TTL of attempt and winner items after they are written
   * @param clock the time source for {@link #recordWinner}, whose call carries no time
   * @param ownsClient whether {@link #close} closes the client
   */
  public DynamoDbJobStore(DynamoDbClient client, String table, Duration retention, Duration taskItemLifetime,
      Clock clock, boolean ownsClient) {
    super(retention);
    this.client = Objects.requireNonNull(client, "client");
    this.table = Objects.requireNonNull(table, "table");
    this.taskItemLifetime = Objects.requireNonNull(taskItemLifetime, "taskItemLifetime");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.ownsClient = ownsClient;
    if (taskItemLifetime.isNegative()) {
      throw new IllegalArgumentException("Invalid task item lifetime " + taskItemLifetime + " (must not be negative)");
    }
  }

  /**
   * A store on an existing table that does not own {@code client}; task items live for retention
   * plus {@link #TASK_ITEM_EXTRA_LIFETIME}.
   */
  public DynamoDbJobStore(DynamoDbClient client, String table, Duration retention) {
    this(client, table, retention, retention.plus(TASK_ITEM_EXTRA_LIFETIME), Clock.systemUTC(), false);
  }

  /**
   * A store on an existing table with its own client: region and credentials from the SDK's
   * default chains (on Lambda, the function's), HTTP through the URL-connection client. The client
   * is closed with the store.
   */
  public static DynamoDbJobStore open(String table, Duration retention) {
    DynamoDbClient client = DynamoDbClient.builder().httpClient(UrlConnectionHttpClient.create()).build();
    return new DynamoDbJobStore(client, table, retention, retention.plus(TASK_ITEM_EXTRA_LIFETIME),
        Clock.systemUTC(), true);
  }

  /**
   * Creates the job table (schema in the class description, on-demand billing), waits until it
   * is ACTIVE and enables TTL on {@link #TTL_ATTRIBUTE}. An existing table is left as it is.
   * Endpoints without {@code UpdateTimeToLive} (dynalite) are tolerated with a warning: jobs there
   * never expire.
   *
   * @throws JobStoreException if the table cannot be created or does not become ACTIVE within a minute
   */
  public static void createTable(DynamoDbClient client, String table) {
    try {
      client.createTable(CreateTableRequest.builder()
          .tableName(table)
          .billingMode(BillingMode.PAY_PER_REQUEST)
          .attributeDefinitions(
              AttributeDefinition.builder().attributeName(JOB_ID).attributeType(ScalarAttributeType.S).build(),
              AttributeDefinition.builder().attributeName(ITEM).attributeType(ScalarAttributeType.S).build(),
              AttributeDefinition.builder().attributeName(SWEEP).attributeType(ScalarAttributeType.S).build(),
              AttributeDefinition.builder().attributeName(SWEEP_KEY).attributeType(ScalarAttributeType.S).build())
          .keySchema(
              KeySchemaElement.builder().attributeName(JOB_ID).keyType(KeyType.HASH).build(),
              KeySchemaElement.builder().attributeName(ITEM).keyType(KeyType.RANGE).build())
          .globalSecondaryIndexes(GlobalSecondaryIndex.builder()
              .indexName(UNFINISHED_INDEX)
              .keySchema(
                  KeySchemaElement.builder().attributeName(SWEEP).keyType(KeyType.HASH).build(),
                  KeySchemaElement.builder().attributeName(SWEEP_KEY).keyType(KeyType.RANGE).build())
              .projection(Projection.builder().projectionType(ProjectionType.KEYS_ONLY).build())
              .build())
          .build());
    } catch (ResourceInUseException e) {
      LOG.info("Job table {} exists already", table);
    } catch (SdkException e) {
      throw new JobStoreException("Cannot create the job table " + table + ": " + e.getMessage(), e);
    }
    awaitActive(client, table);
    try {
      client.updateTimeToLive(r -> r.tableName(table)
          .timeToLiveSpecification(s -> s.enabled(true).attributeName(TTL_ATTRIBUTE)));
    } catch (DynamoDbException e) {
      String message = e.getMessage() == null ? "" : e.getMessage();
      if (message.contains("already enabled")) {
        return;
      }
      String code = e.awsErrorDetails() == null ? message : e.awsErrorDetails().errorCode();
      if (TTL_WARNED.compareAndSet(false, true)) {
        LOG.warn("The DynamoDB endpoint did not enable TTL on {}.{} ({}): finished jobs will not expire there",
            table, TTL_ATTRIBUTE, code);
      } else {
        LOG.debug("The DynamoDB endpoint did not enable TTL on {}.{} ({})", table, TTL_ATTRIBUTE, code);
      }
    }
  }

  private static void awaitActive(DynamoDbClient client, String table) {
    long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
    while (true) {
      TableStatus status;
      try {
        status = client.describeTable(r -> r.tableName(table)).table().tableStatus();
      } catch (SdkException e) {
        throw new JobStoreException("Cannot describe the job table " + table + ": " + e.getMessage(), e);
      }
      if (status == TableStatus.ACTIVE) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new JobStoreException("The job table " + table + " is still " + status + " after a minute");
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new JobStoreException("Interrupted while waiting for the job table " + table, e);
      }
    }
  }

  /** The table name. */
  public String table() {
    return table;
  }

  // ---- jobs

  @Override
  protected Optional<JobRecord> insertJob(NewJob job, Instant now) {
    Map<String, AttributeValue> item = new HashMap<>();
    item.put(JOB_ID, s(job.jobId()));
    item.put(ITEM, s(JOB_ITEM));
    item.put("sql_text", s(job.sql()));
    Map<String, AttributeValue> props = new HashMap<>();
    job.properties().forEach((k, v) -> props.put(k, s(v)));
    item.put("properties", AttributeValue.fromM(props));
    if (!job.caller().isEmpty()) {
      item.put("caller", s(job.caller()));
    }
    item.put("state", s(JobState.QUEUED.name()));
    item.put("version", n(1));
    item.put("lease_epoch", n(0));
    item.put("cancel_requested", AttributeValue.fromBool(false));
    item.put("created_at", n(now.toEpochMilli()));
    item.put("updated_at", n(now.toEpochMilli()));
    item.put("progress", AttributeValue.fromL(List.of()));
    item.put(SWEEP, s(UNFINISHED));
    item.put(SWEEP_KEY, s(sweepKey(now, job.jobId())));
    return putIfAbsent(item, "create job " + job.jobId()) ? Optional.of(toJob(item)) : Optional.empty();
  }

  @Override
  public Optional<JobRecord> get(String jobId) {
    return readItem(jobId, JOB_ITEM, "read job " + jobId).map(DynamoDbJobStore::toJob);
  }

  @Override
  protected Optional<JobRecord> tryAcquire(String jobId, String owner, Instant now, Instant expires) {
    Expr x = new Expr();
    String nowV = x.value(n(now.toEpochMilli()));
    String ownerV = x.value(s(owner));
    String one = x.value(n(1));
    String update = "SET " + x.name("owner") + " = " + ownerV
        + ", " + x.name("lease_expires_at") + " = " + x.value(n(expires.toEpochMilli()))
        + ", " + x.name("updated_at") + " = " + nowV
        + ", " + x.name("lease_epoch") + " = " + x.name("lease_epoch") + " + " + one
        + ", " + x.name("version") + " = " + x.name("version") + " + " + one;
    String condition = "attribute_exists(" + x.name(JOB_ID) + ") AND " + notTerminal(x)
        + " AND (attribute_not_exists(" + x.name("owner") + ") OR " + x.name("lease_expires_at") + " <= " + nowV
        + " OR " + x.name("owner") + " = " + ownerV + ")";
    return updateJob(jobId, update, condition, x, "acquire job " + jobId);
  }

  @Override
  protected boolean tryRenew(Lease lease, Instant now, Instant expires) {
    Expr x = new Expr();
    String update = "SET " + x.name("lease_expires_at") + " = " + x.value(n(expires.toEpochMilli()))
        + ", " + x.name("updated_at") + " = " + x.value(n(now.toEpochMilli()))
        + ", " + bump(x);
    String condition = holds(x, lease) + " AND " + notTerminal(x);
    return updateJob(lease.jobId(), update, condition, x, "renew the lease of job " + lease.jobId()).isPresent();
  }

  @Override
  protected boolean tryRelease(Lease lease, Instant now) {
    Expr x = new Expr();
    String update = "SET " + x.name("updated_at") + " = " + x.value(n(now.toEpochMilli())) + ", " + bump(x)
        + " REMOVE " + x.name("owner") + ", " + x.name("lease_expires_at");
    return updateJob(lease.jobId(), update, holds(x, lease), x, "release the lease of job " + lease.jobId())
        .isPresent();
  }

  @Override
  protected Optional<JobRecord> tryTransition(Lease lease, JobState from, JobState to, JobUpdate u, Instant now,
      Terminal terminal) {
    Expr x = new Expr();
    List<String> sets = new ArrayList<>();
    List<String> removes = new ArrayList<>();
    sets.add(x.name("state") + " = " + x.value(s(to.name())));
    commonSets(x, sets, u, now);
    if (terminal != null) {
      sets.add(x.name("finished_at") + " = " + x.value(n(terminal.finishedAt().toEpochMilli())));
      sets.add(x.name("expires_at_ms") + " = " + x.value(n(terminal.expiresAt().toEpochMilli())));
      sets.add(x.name(TTL_ATTRIBUTE) + " = " + x.value(n(ttlSeconds(terminal.expiresAt()))));
      removes.add(x.name("owner"));
      removes.add(x.name("lease_expires_at"));
      removes.add(x.name(SWEEP));
    }
    String expression = "SET " + String.join(", ", sets) + (removes.isEmpty() ? "" : " REMOVE " + String.join(", ", removes));
    String condition = holds(x, lease) + " AND " + x.name("state") + " = " + x.value(s(from.name()));
    return updateJob(lease.jobId(), expression, condition, x, "move job " + lease.jobId() + " from " + from + " to "
        + to);
  }

  @Override
  protected Optional<JobRecord> tryUpdate(Lease lease, JobUpdate u, Instant now) {
    Expr x = new Expr();
    List<String> sets = new ArrayList<>();
    commonSets(x, sets, u, now);
    String condition = holds(x, lease) + " AND " + notTerminal(x);
    return updateJob(lease.jobId(), "SET " + String.join(", ", sets), condition, x, "update job " + lease.jobId());
  }

  @Override
  protected Optional<JobRecord> tryRequestCancel(String jobId, Instant now) {
    Expr x = new Expr();
    String update = "SET " + x.name("cancel_requested") + " = " + x.value(AttributeValue.fromBool(true))
        + ", " + x.name("updated_at") + " = " + x.value(n(now.toEpochMilli())) + ", " + bump(x);
    String condition = "attribute_exists(" + x.name(JOB_ID) + ") AND " + notTerminal(x)
        + " AND " + x.name("cancel_requested") + " = " + x.value(AttributeValue.fromBool(false));
    return updateJob(jobId, update, condition, x, "request cancel of job " + jobId);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Queries the sparse index {@value #UNFINISHED_INDEX} (job items carry its key only while not
   * terminal) in creation order, then reads each job consistently: the index is eventually
   * consistent, so jobs that reached a terminal state a moment ago are dropped here, and a job
   * created a moment ago may be missing until the next sweep.
   */
  @Override
  protected List<JobRecord> listUnfinished(int limit) {
    List<JobRecord> jobs = new ArrayList<>();
    QueryRequest request = QueryRequest.builder().tableName(table).indexName(UNFINISHED_INDEX)
        .keyConditionExpression("#p = :p")
        .expressionAttributeNames(Map.of("#p", SWEEP))
        .expressionAttributeValues(Map.of(":p", s(UNFINISHED)))
        .scanIndexForward(true)
        .limit(Math.min(limit, 100))
        .build();
    try {
      for (Map<String, AttributeValue> key : client.queryPaginator(request).items()) {
        get(key.get(JOB_ID).s()).filter(job -> !job.state().isTerminal()).ifPresent(jobs::add);
        if (jobs.size() == limit) {
          break;
        }
      }
    } catch (SdkException e) {
      throw failure("list unfinished jobs", e);
    }
    return jobs;
  }

  // ---- attempts and winners

  @Override
  protected boolean insertAttempt(String jobId, int stageId, int partition, int attempt, long leaseEpoch,
      Instant now) {
    Map<String, AttributeValue> item = taskItem(jobId, attemptKey(stageId, partition, attempt), stageId, partition,
        now);
    item.put("attempt", n(attempt));
    item.put("lease_epoch", n(leaseEpoch));
    item.put("state", s(AttemptState.RUNNING.name()));
    item.put("started_at", n(now.toEpochMilli()));
    return putIfAbsent(item, "record the start of attempt " + attempt + " of task " + stageId + "/" + partition);
  }

  @Override
  protected boolean endAttempt(String jobId, int stageId, int partition, int attempt, AttemptState state,
      byte[] detail, Instant now) {
    Expr x = new Expr();
    String stateV = x.value(s(state.name()));
    List<String> sets = new ArrayList<>();
    sets.add(x.name("state") + " = " + stateV);
    sets.add(x.name("finished_at") + " = " + x.value(n(now.toEpochMilli())));
    sets.add(ifAbsent(x, "stage_id", n(stageId)));
    sets.add(ifAbsent(x, "partition_id", n(partition)));
    sets.add(ifAbsent(x, "attempt", n(attempt)));
    sets.add(ifAbsent(x, "lease_epoch", n(0)));
    sets.add(ifAbsent(x, TTL_ATTRIBUTE, n(ttlSeconds(now.plus(taskItemLifetime)))));
    String expression = "SET " + String.join(", ", sets);
    if (detail == null) {
      expression += " REMOVE " + x.name("detail");
    } else {
      expression = "SET " + x.name("detail") + " = " + x.value(b(detail)) + ", " + expression.substring(4);
    }
    String condition = "attribute_not_exists(" + x.name(JOB_ID) + ") OR " + x.name("state") + " IN ("
        + x.value(s(AttemptState.RUNNING.name())) + ", " + stateV + ")";
    UpdateItemRequest request = UpdateItemRequest.builder().tableName(table)
        .key(key(jobId, attemptKey(stageId, partition, attempt)))
        .updateExpression(expression).conditionExpression(condition)
        .expressionAttributeNames(x.names).expressionAttributeValues(x.values).build();
    try {
      client.updateItem(request);
      return true;
    } catch (ConditionalCheckFailedException e) {
      return false;
    } catch (SdkException e) {
      throw failure("record the end of attempt " + attempt + " of task " + stageId + "/" + partition, e);
    }
  }

  @Override
  public List<TaskAttempt> attempts(String jobId) {
    List<TaskAttempt> out = new ArrayList<>();
    for (Map<String, AttributeValue> item : queryPrefix(jobId, ATTEMPT_PREFIX, "list attempts of job " + jobId)) {
      out.add(new TaskAttempt(jobId, intOf(item, "stage_id"), intOf(item, "partition_id"), intOf(item, "attempt"),
          longOf(item, "lease_epoch", 0), AttemptState.valueOf(item.get("state").s()), instantOf(item, "started_at"),
          instantOf(item, "finished_at"), bytesOf(item, "detail")));
    }
    return out;
  }

  @Override
  protected TaskWinner insertWinnerIfAbsent(String jobId, int stageId, int partition, int attempt, byte[] result) {
    String sortKey = winnerKey(stageId, partition);
    Map<String, AttributeValue> item = taskItem(jobId, sortKey, stageId, partition, clock.instant());
    item.put("attempt", n(attempt));
    item.put("result", b(result));
    if (putIfAbsent(item, "record the winner of task " + stageId + "/" + partition + " of job " + jobId)) {
      return new TaskWinner(jobId, stageId, partition, attempt, result.clone());
    }
    Map<String, AttributeValue> winner = readItem(jobId, sortKey, "read the winner of task " + stageId + "/"
        + partition).orElseThrow(() -> new JobStoreException("The winner of task " + stageId + "/" + partition
            + " of job " + jobId + " was refused as existing but cannot be read"));
    return new TaskWinner(jobId, stageId, partition, intOf(winner, "attempt"), bytesOf(winner, "result"));
  }

  @Override
  protected boolean deleteWinner(String jobId, int stageId, int partition, int attempt) {
    try {
      client.deleteItem(r -> r.tableName(table).key(key(jobId, winnerKey(stageId, partition)))
          .conditionExpression("attempt = :a").expressionAttributeValues(Map.of(":a", n(attempt))));
      return true;
    } catch (ConditionalCheckFailedException e) {
      return false;
    } catch (SdkException e) {
      throw failure("discard the winner of task " + stageId + "/" + partition + " of job " + jobId, e);
    }
  }

  @Override
  public List<TaskWinner> winners(String jobId) {
    List<TaskWinner> out = new ArrayList<>();
    for (Map<String, AttributeValue> item : queryPrefix(jobId, WINNER_PREFIX, "list winners of job " + jobId)) {
      out.add(new TaskWinner(jobId, intOf(item, "stage_id"), intOf(item, "partition_id"), intOf(item, "attempt"),
          bytesOf(item, "result")));
    }
    return out;
  }

  // ---- concurrency slots

  @Override
  protected List<ConcurrencySlot> readSlots(String pool) {
    List<ConcurrencySlot> out = new ArrayList<>();
    for (Map<String, AttributeValue> item : queryPrefix(slotPartition(pool), SLOT_PREFIX, "read slot pool " + pool)) {
      out.add(new ConcurrencySlot(pool, intOf(item, "slot"), stringOf(item, "holder"),
          instantOf(item, "lease_expires_at")));
    }
    return out;
  }

  @Override
  protected boolean tryTakeSlot(String pool, int index, String holder, Instant now, Instant expires) {
    Map<String, AttributeValue> item = new HashMap<>(key(slotPartition(pool), slotKey(index)));
    item.put("slot", n(index));
    item.put("holder", s(holder));
    item.put("lease_expires_at", n(expires.toEpochMilli()));
    item.put(TTL_ATTRIBUTE, n(ttlSeconds(expires.plus(SLOT_ITEM_EXTRA_LIFETIME))));
    try {
      client.putItem(r -> r.tableName(table).item(item)
          .conditionExpression("attribute_not_exists(#k) OR #e <= :now")
          .expressionAttributeNames(Map.of("#k", JOB_ID, "#e", "lease_expires_at"))
          .expressionAttributeValues(Map.of(":now", n(now.toEpochMilli()))));
      return true;
    } catch (ConditionalCheckFailedException e) {
      return false;
    } catch (SdkException e) {
      throw failure("take slot " + index + " of pool " + pool, e);
    }
  }

  @Override
  protected boolean tryFreeSlot(ConcurrencySlot slot) {
    try {
      client.deleteItem(r -> r.tableName(table).key(key(slotPartition(slot.pool()), slotKey(slot.index())))
          .conditionExpression("#h = :h AND #e = :e")
          .expressionAttributeNames(Map.of("#h", "holder", "#e", "lease_expires_at"))
          .expressionAttributeValues(Map.of(":h", s(slot.holder()), ":e", n(slot.expiresAt().toEpochMilli()))));
      return true;
    } catch (ConditionalCheckFailedException e) {
      return false;
    } catch (SdkException e) {
      throw failure("free slot " + slot.index() + " of pool " + slot.pool(), e);
    }
  }

  /** The partition key of a slot pool's items; {@code #} keeps it apart from job ids, which never start with it. */
  static String slotPartition(String pool) {
    return SLOT_PARTITION_PREFIX + pool;
  }

  /** The sort key of a slot item. */
  static String slotKey(int index) {
    return String.format("%s%05d", SLOT_PREFIX, index);
  }

  /** Puts an item unless one with its key exists; false when one does. */
  private boolean putIfAbsent(Map<String, AttributeValue> item, String what) {
    try {
      client.putItem(r -> r.tableName(table).item(item).conditionExpression("attribute_not_exists(#k)")
          .expressionAttributeNames(Map.of("#k", JOB_ID)));
      return true;
    } catch (ConditionalCheckFailedException e) {
      return false;
    } catch (SdkException e) {
      throw failure(what, e);
    }
  }

  /** Does nothing: DynamoDB TTL on {@link #TTL_ATTRIBUTE} deletes expired items. */
  @Override
  public int purgeExpired(Instant now) {
    return 0;
  }

  @Override
  public void close() {
    if (ownsClient) {
      client.close();
    }
  }

  // ---- item keys and expressions

  /** The sort key of an attempt item. */
  static String attemptKey(int stageId, int partition, int attempt) {
    return String.format("%s%04d#%06d#%06d", ATTEMPT_PREFIX, stageId, partition, attempt);
  }

  /** The sort key of a winner item. */
  static String winnerKey(int stageId, int partition) {
    return String.format("%s%04d#%06d", WINNER_PREFIX, stageId, partition);
  }

  /**
   * The index sort key: creation time, then job id. The time is offset by 2^63 and written as 20
   * unsigned digits so that string order is time order for every {@code long}.
   */
  static String sweepKey(Instant createdAt, String jobId) {
    String millis = Long.toUnsignedString(createdAt.toEpochMilli() ^ Long.MIN_VALUE);
    return "0".repeat(20 - millis.length()) + millis + "#" + jobId;
  }

  private Map<String, AttributeValue> taskItem(String jobId, String sortKey, int stageId, int partition, Instant now) {
    Map<String, AttributeValue> item = new HashMap<>(key(jobId, sortKey));
    item.put("stage_id", n(stageId));
    item.put("partition_id", n(partition));
    item.put(TTL_ATTRIBUTE, n(ttlSeconds(now.plus(taskItemLifetime))));
    return item;
  }

  private static Map<String, AttributeValue> key(String jobId, String sortKey) {
    return Map.of(JOB_ID, s(jobId), ITEM, s(sortKey));
  }

  /** Expression attribute names and values, all through placeholders (state, owner, ... are reserved words). */
  private static final class Expr {
    final Map<String, String> names = new HashMap<>();
    final Map<String, AttributeValue> values = new HashMap<>();
    private int next;

    String name(String attribute) {
      String placeholder = "#" + attribute;
      names.put(placeholder, attribute);
      return placeholder;
    }

    String value(AttributeValue v) {
      String placeholder = ":v" + next++;
      values.put(placeholder, v);
      return placeholder;
    }
  }

  private static String notTerminal(Expr x) {
    return "NOT (" + x.name("state") + " IN (" + x.value(s(JobState.SUCCEEDED.name())) + ", "
        + x.value(s(JobState.FAILED.name())) + ", " + x.value(s(JobState.CANCELLED.name())) + "))";
  }

  private static String holds(Expr x, Lease lease) {
    return x.name("lease_epoch") + " = " + x.value(n(lease.epoch())) + " AND " + x.name("owner") + " = "
        + x.value(s(lease.owner()));
  }

  private static String bump(Expr x) {
    return x.name("version") + " = " + x.name("version") + " + " + x.value(n(1));
  }

  private static String ifAbsent(Expr x, String attribute, AttributeValue v) {
    String name = x.name(attribute);
    return name + " = if_not_exists(" + name + ", " + x.value(v) + ")";
  }

  private static void commonSets(Expr x, List<String> sets, JobUpdate u, Instant now) {
    sets.add(x.name("updated_at") + " = " + x.value(n(now.toEpochMilli())));
    sets.add(bump(x));
    if (u.progress() != null) {
      List<AttributeValue> stages = new ArrayList<>();
      for (StageProgress p : u.progress()) {
        stages.add(AttributeValue.fromM(Map.of("s", n(p.stageId()), "d", n(p.tasksDone()), "t", n(p.tasksTotal()))));
      }
      sets.add(x.name("progress") + " = " + x.value(AttributeValue.fromL(stages)));
    }
    if (u.error() != null) {
      sets.add(x.name("error_code") + " = " + x.value(s(u.error().code())));
      sets.add(x.name("error_message") + " = " + x.value(s(u.error().message())));
      sets.add(x.name("error_line") + " = " + x.value(n(u.error().line())));
      sets.add(x.name("error_column") + " = " + x.value(n(u.error().column())));
    }
    if (u.resultLocation() != null) {
      sets.add(x.name("result_location") + " = " + x.value(s(u.resultLocation())));
    }
    if (u.summary() != null) {
      sets.add(x.name("summary") + " = " + x.value(b(u.summary())));
    }
  }

  /** One conditional UpdateItem on the job item; the job after the write, or empty when the condition refused it. */
  private Optional<JobRecord> updateJob(String jobId, String update, String condition, Expr x, String what) {
    UpdateItemRequest request = UpdateItemRequest.builder().tableName(table).key(key(jobId, JOB_ITEM))
        .updateExpression(update).conditionExpression(condition)
        .expressionAttributeNames(x.names).expressionAttributeValues(x.values)
        .returnValues(ReturnValue.ALL_NEW).build();
    try {
      return Optional.of(toJob(client.updateItem(request).attributes()));
    } catch (ConditionalCheckFailedException e) {
      return Optional.empty();
    } catch (SdkException e) {
      throw failure(what, e);
    }
  }

  private Optional<Map<String, AttributeValue>> readItem(String jobId, String sortKey, String what) {
    try {
      Map<String, AttributeValue> item = client.getItem(r -> r.tableName(table).key(key(jobId, sortKey))
          .consistentRead(true)).item();
      return item == null || item.isEmpty() ? Optional.empty() : Optional.of(item);
    } catch (SdkException e) {
      throw failure(what, e);
    }
  }

  private List<Map<String, AttributeValue>> queryPrefix(String jobId, String prefix, String what) {
    QueryRequest request = QueryRequest.builder().tableName(table).consistentRead(true)
        .keyConditionExpression("#k = :k AND begins_with(#i, :p)")
        .expressionAttributeNames(Map.of("#k", JOB_ID, "#i", ITEM))
        .expressionAttributeValues(Map.of(":k", s(jobId), ":p", s(prefix)))
        .build();
    List<Map<String, AttributeValue>> items = new ArrayList<>();
    try {
      client.queryPaginator(request).items().forEach(items::add);
    } catch (SdkException e) {
      throw failure(what, e);
    }
    return items;
  }

  private JobStoreException failure(String what, SdkException e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    if (message.contains("Item size")) {
      return new JobStoreException("Cannot " + what + " in DynamoDB table " + table + ": the item would exceed "
          + "DynamoDB's " + MAX_ITEM_KB + " KB item limit (" + message + ")", e);
    }
    return new JobStoreException("Cannot " + what + " in DynamoDB table " + table + ": " + message, e);
  }

  // ---- attribute values

  private static long ttlSeconds(Instant t) {
    long seconds = t.getEpochSecond();
    return t.getNano() == 0 ? seconds : seconds + 1;
  }

  private static AttributeValue s(String v) {
    return AttributeValue.fromS(v);
  }

  private static AttributeValue n(long v) {
    return AttributeValue.fromN(Long.toString(v));
  }

  private static AttributeValue b(byte[] v) {
    return AttributeValue.fromB(SdkBytes.fromByteArray(v));
  }

  static JobRecord toJob(Map<String, AttributeValue> item) {
    Map<String, String> properties = new HashMap<>();
    AttributeValue props = item.get("properties");
    if (props != null && props.hasM()) {
      props.m().forEach((k, v) -> properties.put(k, v.s()));
    }
    List<StageProgress> progress = new ArrayList<>();
    AttributeValue stages = item.get("progress");
    if (stages != null && stages.hasL()) {
      for (AttributeValue stage : stages.l()) {
        Map<String, AttributeValue> m = stage.m();
        progress.add(new StageProgress(intOf(m, "s"), intOf(m, "d"), intOf(m, "t")));
      }
    }
    JobError error = item.containsKey("error_code")
        ? new JobError(item.get("error_code").s(), item.get("error_message").s(), intOf(item, "error_line"),
            intOf(item, "error_column"))
        : null;
    AttributeValue cancel = item.get("cancel_requested");
    return new JobRecord(
        item.get(JOB_ID).s(),
        stringOf(item, "sql_text"),
        properties,
        JobState.valueOf(item.get("state").s()),
        longOf(item, "version", 0),
        stringOf(item, "owner"),
        longOf(item, "lease_epoch", 0),
        instantOf(item, "lease_expires_at"),
        cancel != null && Boolean.TRUE.equals(cancel.bool()),
        instantOf(item, "created_at"),
        instantOf(item, "updated_at"),
        instantOf(item, "finished_at"),
        progress,
        error,
        stringOf(item, "result_location"),
        bytesOf(item, "summary"),
        instantOf(item, "expires_at_ms"),
        stringOf(item, "caller"));
  }

  private static String stringOf(Map<String, AttributeValue> item, String name) {
    AttributeValue v = item.get(name);
    return v == null ? null : v.s();
  }

  private static int intOf(Map<String, AttributeValue> item, String name) {
    return Math.toIntExact(longOf(item, name, 0));
  }

  private static long longOf(Map<String, AttributeValue> item, String name, long absent) {
    AttributeValue v = item.get(name);
    return v == null || v.n() == null ? absent : Long.parseLong(v.n());
  }

  private static Instant instantOf(Map<String, AttributeValue> item, String name) {
    AttributeValue v = item.get(name);
    return v == null || v.n() == null ? null : Instant.ofEpochMilli(Long.parseLong(v.n()));
  }

  private static byte[] bytesOf(Map<String, AttributeValue> item, String name) {
    AttributeValue v = item.get(name);
    return v == null || v.b() == null ? null : v.b().asByteArray();
  }
}

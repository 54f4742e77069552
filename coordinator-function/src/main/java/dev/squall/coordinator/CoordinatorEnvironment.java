package dev.squall.coordinator;

import dev.squall.coordinator.commit.WriteFinalizer;
import dev.squall.coordinator.cost.CostSettings;
import dev.squall.coordinator.cost.JobMeters;
import dev.squall.coordinator.cost.QueryCosts;
import dev.squall.coordinator.job.DriverHooks;
import dev.squall.coordinator.job.JobDataDeleter;
import dev.squall.coordinator.job.JobDriver;
import dev.squall.coordinator.job.JobPlanner;
import dev.squall.coordinator.job.JobSettings;
import dev.squall.coordinator.job.LambdaSelfInvoker;
import dev.squall.coordinator.job.PlanStore;
import dev.squall.coordinator.job.ResultStore;
import dev.squall.coordinator.job.SlotPriority;
import dev.squall.coordinator.scheduler.FanOutSettings;
import dev.squall.coordinator.scheduler.FanOutTaskInvoker;
import dev.squall.coordinator.scheduler.LambdaTaskInvoker;
import dev.squall.coordinator.scheduler.Pipelining;
import dev.squall.coordinator.scheduler.RetryPolicy;
import dev.squall.coordinator.scheduler.StageScheduler;
import dev.squall.coordinator.scheduler.TaskPayloadStore;
import dev.squall.coordinator.scheduler.TaskTiers;
import dev.squall.invoke.TaskLambdaClients;
import dev.squall.jobstore.JobStore;
import dev.squall.jobstore.JobStoreLimits;
import dev.squall.planner.PlannerSettings;
import dev.squall.planner.stage.CombiningExchanges;
import dev.squall.shuffle.requests.CountingS3Client;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.Catalog;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * Builds the coordinator's core from its Lambda environment. Every setting, its default and range
 * is listed in docs/configuration.md: {@code SQUALL_TASK_FUNCTION} (task function name, ARN or
 * alias ARN), {@code SQUALL_SHUFFLE_BUCKET}, {@code SQUALL_JOB_TABLE} (the DynamoDB job table),
 * {@code SQUALL_MAX_CONCURRENT_TASKS} (per coordinator invocation, default 64), {@code
 * SQUALL_ACCOUNT_CONCURRENT_TASKS} (all jobs of all coordinators together, counted in the job
 * store, default 800, 1-10,000), {@code SQUALL_PIPELINE_MAX_TASKS} (largest graph {@code scheduling=auto}
 * runs pipelined, default 0, 0-10,000), {@code SQUALL_MAX_RUNNING_QUERIES} (queries running at once
 * for all coordinators, counted in the job store, a submission beyond answered 429; default 0: no
 * cap, see {@link dev.squall.coordinator.job.QueryAdmission}), {@code SQUALL_TASK_MEMORY_MB} (the task
 * function's memory size, default 2048; tasks budget 60% of it), {@code SQUALL_TASK_TIMEOUT_SECONDS}
 * (the task function's timeout, default 300; synchronous task Invoke calls wait that long plus
 * {@link #TASK_INVOKE_MARGIN} and are never retried by the SDK, see {@link TaskLambdaClients}), {@code SQUALL_SYNC_WAIT_SECONDS}
 * (default 25), {@code SQUALL_JOB_RETENTION_HOURS} (default 24), {@code SQUALL_SELF_FUNCTION}
 * (where the coordinator sends its asynchronous continuations; default {@code
 * AWS_LAMBDA_FUNCTION_NAME}, set by Lambda, but a deployment names its SnapStart alias), {@code
 * SQUALL_SCHEMA_ALLOW_LIST} (see {@link SchemaAllowList}), {@code SQUALL_FANOUT_THRESHOLD} and {@code
 * SQUALL_FANOUT_MAX_INVOKERS} (two-level invocation, {@link FanOutSettings}), {@code SQUALL_TASK_TIERS}
 * (task-size tiers, {@link #taskTiers}), {@code
 * SQUALL_ADAPTIVE_TARGET_PARTITION_BYTES} (shuffle bytes a task of a stage coalesced at run time
 * reads at about, default 32 MiB, 0 turns coalescing off), and the Iceberg catalog ({@link
 * CatalogSettings}). Credentials come from the function's role through the AWS SDK's default
 * provider chain; none is read from or written to any plan.
 */
public final class CoordinatorEnvironment {
  /** Added to the task function's timeout for the Invoke client's read timeout. */
  public static final Duration TASK_INVOKE_MARGIN = TaskLambdaClients.MARGIN;

  /** Added to the task Invoke timeout for the lease of a task's concurrency slots. */
  static final Duration SLOT_LEASE_MARGIN = Duration.ofMinutes(1);

  private CoordinatorEnvironment() {}

  /**
   * @throws IllegalArgumentException naming the first missing or malformed variable
   */
  public static CoordinatorFunction build(Map<String, String> env) {
    String taskFunction = required(env, "SQUALL_TASK_FUNCTION");
    String bucket = required(env, "SQUALL_SHUFFLE_BUCKET");
    String self = env.getOrDefault("SQUALL_SELF_FUNCTION", "");
    if (self.isBlank()) {
      self = required(env, "AWS_LAMBDA_FUNCTION_NAME");
    }
    int concurrency = (int) setting(env, "SQUALL_MAX_CONCURRENT_TASKS", 64, 1, 1000);
    long taskMemoryMb = setting(env, "SQUALL_TASK_MEMORY_MB", 2048, 128, 10240);
    CoordinatorSettings settings = CoordinatorSettings.defaults(taskFunction, bucket)
        .withMaxConcurrentTasks(concurrency)
        .withTaskFunctionMemoryMb(taskMemoryMb)
        .withAdaptiveTargetPartitionBytes(setting(env, "SQUALL_ADAPTIVE_TARGET_PARTITION_BYTES",
            CoordinatorSettings.DEFAULT_ADAPTIVE_TARGET_PARTITION_BYTES, 0, 64L << 30));
    JobSettings jobSettings = JobSettings.defaults()
        .withSyncWait(Duration.ofSeconds(setting(env, "SQUALL_SYNC_WAIT_SECONDS", 25, 1, 27)))
        .withAccountConcurrency((int) setting(env, "SQUALL_ACCOUNT_CONCURRENT_TASKS",
            JobSettings.DEFAULT_ACCOUNT_CONCURRENT_TASKS, 1, JobSettings.MAX_ACCOUNT_CONCURRENT_TASKS),
            taskInvokeTimeout(env).plus(SLOT_LEASE_MARGIN))
        .withPriorityAging(Duration.ofSeconds(setting(env, "SQUALL_PRIORITY_AGING_SECONDS",
            SlotPriority.DEFAULT_AGING.toSeconds(), 0, 3600)))
        .withPipelineMaxTasks((int) setting(env, "SQUALL_PIPELINE_MAX_TASKS", Pipelining.DEFAULT_MAX_TASKS, 0, 10_000))
        .withRunningQueries((int) setting(env, "SQUALL_MAX_RUNNING_QUERIES", 0, 0, JobStoreLimits.MAX_SLOTS));
    Duration retention = Duration.ofHours(setting(env, "SQUALL_JOB_RETENTION_HOURS", 24, 1, 24L * 365));
    JobStore store = JobStores.dynamoDb(required(env, "SQUALL_JOB_TABLE"), retention);
    LambdaClient taskLambda = TaskLambdaClients.configure(LambdaClient.builder(), taskTimeout(env)).build();
    LambdaClient lambda = LambdaClient.builder().httpClientBuilder(UrlConnectionHttpClient.builder()).build();
    S3Client s3 = S3Client.builder().httpClientBuilder(UrlConnectionHttpClient.builder())
        .overrideConfiguration(c -> c.addExecutionInterceptor(CountingS3Client.interceptor())).build();
    TaskPayloadStore payloads = new TaskPayloadStore(s3);
    LambdaTaskInvoker direct = new LambdaTaskInvoker(taskLambda, taskFunction, concurrency, payloads)
        .withTiers(taskTiers(env, taskFunction, taskMemoryMb));
    FanOutSettings fanOut = FanOutSettings.fromEnv(env);
    StageScheduler scheduler = new StageScheduler(fanOut.enabled()
        ? new FanOutTaskInvoker(direct, taskLambda, taskFunction, payloads, fanOut) : direct, RetryPolicy.defaults());
    return assemble(store, CatalogSettings.catalog(env), scheduler, s3, S3Presigner.create(), new RootAllocator(),
        new LambdaSelfInvoker(lambda, self), settings, jobSettings, PlannerSettings.defaults(), DriverHooks.NONE,
        SchemaAllowList.parse(env.get("SQUALL_SCHEMA_ALLOW_LIST")), CostSettings.fromEnv(env, taskMemoryMb));
  }

  /**
   * Wires the coordinator's parts; shared by the AWS environment and the local deployment.
   */
  public static CoordinatorFunction assemble(JobStore store, Catalog catalog, StageScheduler scheduler, S3Client s3,
      S3Presigner presigner, BufferAllocator allocator, dev.squall.coordinator.job.SelfInvoker self,
      CoordinatorSettings settings, JobSettings jobSettings, PlannerSettings plannerDefaults, DriverHooks hooks) {
    return assemble(store, catalog, scheduler, s3, presigner, allocator, self, settings, jobSettings, plannerDefaults,
        hooks, SchemaAllowList.NONE);
  }

  /** As above, with the schemas each caller may query. */
  public static CoordinatorFunction assemble(JobStore store, Catalog catalog, StageScheduler scheduler, S3Client s3,
      S3Presigner presigner, BufferAllocator allocator, dev.squall.coordinator.job.SelfInvoker self,
      CoordinatorSettings settings, JobSettings jobSettings, PlannerSettings plannerDefaults, DriverHooks hooks,
      SchemaAllowList allowList) {
    return assemble(store, catalog, scheduler, s3, presigner, allocator, self, settings, jobSettings, plannerDefaults,
        hooks, allowList, CostSettings.DEFAULT);
  }

  /**
   * As above, with what query costs are computed with. The coordinator's S3 client and job store are
   * wrapped here so that each request counts for the job it serves ({@link JobMeters}).
   */
  public static CoordinatorFunction assemble(JobStore rawStore, Catalog catalog, StageScheduler scheduler,
      S3Client rawS3, S3Presigner presigner, BufferAllocator allocator, dev.squall.coordinator.job.SelfInvoker self,
      CoordinatorSettings settings, JobSettings jobSettings, PlannerSettings plannerDefaults, DriverHooks hooks,
      SchemaAllowList allowList, CostSettings costs) {
    Clock clock = Clock.systemUTC();
    JobMeters meters = new JobMeters();
    JobStore store = meters.counting(rawStore);
    S3Client s3 = meters.counting(rawS3);
    ResultStore results = new ResultStore(s3, presigner, settings.shuffleBucket(), settings.resultUrlTtl());
    JobPlanner planner = new JobPlanner(catalog, settings, plannerDefaults, allowList)
        .withShuffleCombineMinRequests(shuffleCombineMinRequests(System.getenv()));
    JobDriver driver = new JobDriver(store, planner,
        new PlanStore(s3, settings.shuffleBucket()), results, scheduler, s3, allocator, settings.shuffleBucket(), self,
        jobSettings, settings.jobTimeout(), clock, hooks, new WriteFinalizer(catalog), meters, new QueryCosts(costs),
        JobDataDeleter.background(s3, settings.shuffleBucket(), jobDataDeletionMaxPending(System.getenv())));
    return new CoordinatorFunction(new QueryCoordinator(store, driver, results, self, s3, settings, jobSettings, clock));
  }

  /**
   * The task-size tiers: {@code SQUALL_TASK_TIERS} (a JSON array of {@code {"function", "memoryMb"}},
   * 1 to 4, {@link TaskTiers#parse}) when set, else the one task function {@code SQUALL_TASK_FUNCTION}
   * of {@code SQUALL_TASK_MEMORY_MB}.
   *
   * @throws IllegalArgumentException naming the setting for a malformed value
   */
  public static TaskTiers taskTiers(Map<String, String> env, String taskFunction, long taskMemoryMb) {
    String tiers = env.get("SQUALL_TASK_TIERS");
    return tiers == null || tiers.isBlank() ? TaskTiers.single(taskFunction, (int) taskMemoryMb) : TaskTiers.parse(tiers);
  }

  /**
   * How long a synchronous task Invoke may wait for its answer: the task function's timeout
   * ({@code SQUALL_TASK_TIMEOUT_SECONDS}, default 300, 1-900) plus {@link #TASK_INVOKE_MARGIN}, so
   * that a slow task ends as the function's own timeout error rather than a client read timeout.
   *
   * @throws IllegalArgumentException for a value that is not a whole number of seconds in range
   */
  public static Duration taskInvokeTimeout(Map<String, String> env) {
    return TaskLambdaClients.readTimeout(taskTimeout(env));
  }

  /** The task function's timeout, {@code SQUALL_TASK_TIMEOUT_SECONDS} (default 300, 1-900). */
  static Duration taskTimeout(Map<String, String> env) {
    return Duration.ofSeconds(setting(env, "SQUALL_TASK_TIMEOUT_SECONDS", 300, 1, 900));
  }

  /**
   * {@code SQUALL_SHUFFLE_COMBINE_MIN_REQUESTS}: the direct S3 requests ({@code M + M·R}) from which
   * an exchange goes through a combiner stage, 0 to 10^12 (default 20,000).
   */
  static long shuffleCombineMinRequests(Map<String, String> env) {
    return setting(env, "SQUALL_SHUFFLE_COMBINE_MIN_REQUESTS", CombiningExchanges.Settings.DEFAULT_MIN_REQUESTS, 0,
        1_000_000_000_000L);
  }

  /**
   * How many finished queries' data may wait for deletion off the answer's path: {@code
   * SQUALL_JOB_DATA_DELETION_MAX_PENDING}, default {@link JobDataDeleter#DEFAULT_MAX_PENDING}, 0 – 100,000
   * (0: deleted before the answer is returned).
   *
   * @throws IllegalArgumentException naming the setting for a malformed value
   */
  static int jobDataDeletionMaxPending(Map<String, String> env) {
    return (int) setting(env, "SQUALL_JOB_DATA_DELETION_MAX_PENDING", JobDataDeleter.DEFAULT_MAX_PENDING, 0, 100_000);
  }

  /**
   * A whole-number setting from the environment, its default when unset, within {@code [min, max]}
   * (the ranges docs/configuration.md lists).
   *
   * @throws IllegalArgumentException naming the variable and its range for a value that is not a
   *     whole number or lies outside the range
   */
  static long setting(Map<String, String> env, String name, long defaultValue, long min, long max) {
    String raw = env.get(name);
    if (raw == null || raw.isBlank()) {
      return defaultValue;
    }
    long value;
    try {
      value = Long.parseLong(raw.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a whole number within " + min + "-" + max + ", not '" + raw + "'");
    }
    if (value < min || value > max) {
      throw new IllegalArgumentException(name + " must be within " + min + "-" + max + ", not " + value);
    }
    return value;
  }



  static String required(Map<String, String> env, String name) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException("environment variable " + name + " is not set");
    }
    return v;
  }
}

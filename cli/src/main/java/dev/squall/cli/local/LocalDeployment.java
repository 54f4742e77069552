package dev.squall.cli.local;

import dev.squall.coordinator.CoordinatorEnvironment;
import dev.squall.coordinator.CoordinatorFunction;
import dev.squall.coordinator.CoordinatorSettings;
import dev.squall.coordinator.QueryProperties;
import dev.squall.coordinator.SchemaAllowList;
import dev.squall.coordinator.cost.CostSettings;
import dev.squall.coordinator.cost.PriceTable;
import dev.squall.coordinator.job.CoordinatorActions;
import dev.squall.coordinator.job.DriverHooks;
import dev.squall.coordinator.job.JobSettings;
import dev.squall.coordinator.job.LambdaSelfInvoker;
import dev.squall.coordinator.scheduler.FanOutTaskInvoker;
import dev.squall.coordinator.scheduler.LambdaTaskInvoker;
import dev.squall.coordinator.scheduler.RetryPolicy;
import dev.squall.coordinator.scheduler.StageScheduler;
import dev.squall.coordinator.scheduler.TaskInvoker;
import dev.squall.coordinator.scheduler.TaskPayloadStore;
import dev.squall.coordinator.scheduler.TaskTiers;
import dev.squall.engine.io.HedgeSettings;
import dev.squall.engine.spill.SpillSettings;
import dev.squall.invoke.TaskLambdaClients;
import dev.squall.jobstore.JobStore;
import dev.squall.jobstore.sqlite.SqliteJobStore;
import dev.squall.local.catalog.LocalCatalog;
import dev.squall.local.faults.FaultPlan;
import dev.squall.local.faults.Faults;
import dev.squall.local.faults.S3FaultInterceptor;
import dev.squall.local.gateway.Gateway;
import dev.squall.local.lambda.FunctionDefinition;
import dev.squall.local.lambda.LambdaEmulator;
import dev.squall.local.lambda.LambdaHandler;
import dev.squall.local.s3.EmbeddedS3;
import dev.squall.local.tpcds.TpcdsLoader;
import dev.squall.local.tpch.TpchLoader;
import dev.squall.planner.PlannerSettings;
import dev.squall.shuffle.requests.CountingS3Client;
import dev.squall.task.TaskEnvironment;
import dev.squall.task.TaskFunction;
import dev.squall.task.TaskRunner;
import dev.squall.task.fanout.TaskFanOut;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.lambda.model.InvocationType;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * The whole of Squall on one machine, in this JVM: S3Proxy (blobs under {@code DATA/s3}), the
 * Iceberg JDBC catalog on SQLite ({@code DATA/catalog}) with its warehouse on that S3, the Lambda
 * Invoke API emulator running the coordinator and task functions' cores, and the gateway that turns
 * HTTP requests into API Gateway events for the coordinator. Every AWS call goes over real HTTP on
 * 127.0.0.1 through the AWS SDK, as it would on AWS.
 */
public final class LocalDeployment implements AutoCloseable {
  public static final String WAREHOUSE_BUCKET = "squall-warehouse";
  public static final String SHUFFLE_BUCKET = "squall-shuffle";
  public static final String COORDINATOR_FUNCTION = "squall-coordinator";
  public static final String TASK_FUNCTION = "squall-task";
  /**
   * The identities the local functions call Lambda with (the emulator names callers by access key
   * id, as CloudTrail names roles): the coordinator's role and the task function's role. The
   * emulator does not check signatures; these open nothing.
   */
  public static final AwsBasicCredentials COORDINATOR_ROLE_KEYS = AwsBasicCredentials.create("squall-coordinator-role", "local");
  public static final AwsBasicCredentials TASK_ROLE_KEYS = AwsBasicCredentials.create("squall-task-role", "local");
  /** The local coordinator function's memory, as a deployment's default (for its GB-seconds). */
  static final int COORDINATOR_MEMORY_MB = 3008;
  /** The smallest split size a local query may ask for (1 MiB on AWS). */
  static final long LOCAL_MIN_SPLIT_BYTES = 64 << 10;

  /** The name of the emulated task function of the {@code memoryMb} tier (several tiers only). */
  public static String taskFunctionName(int memoryMb) {
    return TASK_FUNCTION + "-" + memoryMb;
  }

  /** The task function's timeout, as on AWS. */
  static final Duration TASK_TIMEOUT = Duration.ofMinutes(15);

  /** The coordinator function's reserved concurrency unless given: eight running queries and two requests. */
  public static final int DEFAULT_COORDINATOR_CONCURRENCY = 10;

  /** How long finished jobs stay in the local job store. */
  static final Duration JOB_RETENTION = Duration.ofDays(1);

  /**
   * What to start.
   *
   * @param dataDir where S3 objects and the catalog live; null for a temporary directory
   * @param gatewayPort the gateway's port, 0 for any free port
   * @param taskConcurrency concurrent task invocations (the task function's reserved concurrency)
   * @param coordinatorConcurrency the coordinator function's reserved concurrency, at least 2: all but a
   *     quarter of it (at least one) for running queries, the rest for status, result and cancel
   *     requests ({@link JobSettings#runningQueriesFor})
   * @param taskMemoryMb the task function's memory size; tasks budget 60% of it for Arrow buffers
   * @param taskMemoryTiersMb task-size tiers, one task function each ({@link #withTaskMemoryTiers}); empty: one
   *     task function of {@code taskMemoryMb}
   * @param integrationTimeout the gateway's wait for the coordinator (API Gateway allows 30 s)
   * @param taskHandlerWrapper wraps the task function's handler as deployed (identity normally;
   *     tests put fault injection here, at the Lambda boundary)
   */
  public record Options(Path dataDir, int gatewayPort, int taskConcurrency, int taskMemoryMb, Duration integrationTimeout,
      UnaryOperator<LambdaHandler> taskHandlerWrapper, JobSettings jobSettings, Duration coordinatorTimeout,
      DriverHooks coordinatorHooks, Duration sweepInterval, JobStore jobStore, Duration objectRetention,
      FaultPlan faultPlan, Duration taskTimeout, Duration jobTimeout, SpillSettings spill, ScaleEmulation scale,
      int coordinatorConcurrency, List<Integer> taskMemoryTiersMb) {
    public static Options defaults() {
      return new Options(null, 0, 8, 2048, Duration.ofSeconds(30), UnaryOperator.identity(), JobSettings.defaults(),
          Duration.ofMinutes(15), DriverHooks.NONE, Duration.ofSeconds(30), null, JOB_RETENTION, FaultPlan.none(),
          TASK_TIMEOUT, Duration.ofHours(1), null, ScaleEmulation.OFF, DEFAULT_COORDINATOR_CONCURRENCY, List.of());
    }

    /** The fault plan the stack starts with (docs/faults.md); {@code PUT /_local/faults} replaces it. */
    public Options withFaultPlan(FaultPlan plan) {
      return new Options(dataDir, gatewayPort, taskConcurrency, taskMemoryMb, integrationTimeout, taskHandlerWrapper,
          jobSettings, coordinatorTimeout, coordinatorHooks, sweepInterval, jobStore, objectRetention, plan, taskTimeout, jobTimeout, spill, scale, coordinatorConcurrency, taskMemoryTiersMb);
    }

    /** How long a job may run from its submission, over every coordinator invocation (1 h unless given). */
    public Options withJobTimeout(Duration timeout) {
      return new Options(dataDir, gatewayPort, taskConcurrency, taskMemoryMb, integrationTimeout, taskHandlerWrapper,
          jobSettings, coordinatorTimeout, coordinatorHooks, sweepInterval, jobStore, objectRetention, faultPlan, taskTimeout,
          timeout, spill, scale, coordinatorConcurrency, taskMemoryTiersMb);
    }

    /** The task function's timeout (15 minutes, as the most Lambda allows, unless a test wants less). */
    public Options withTaskTimeout(Duration timeout) {
      return new Options(dataDir, gatewayPort, taskConcurrency, taskMemoryMb, integrationTimeout, taskHandlerWrapper,
          jobSettings, coordinatorTimeout, coordinatorHooks, sweepInterval, jobStore, objectRetention, faultPlan, timeout, jobTimeout, spill, scale, coordinatorConcurrency, taskMemoryTiersMb);
    }

    /** How long the sweep keeps answers and job objects (the job retention unless a test wants less). */
    public Options withObjectRetention(Duration retention) {
      return new Options(dataDir, gatewayPort, taskConcurrency, taskMemoryMb, integrationTimeout, taskHandlerWrapper,
          jobSettings, coordinatorTimeout, coordinatorHooks, sweepInterval, jobStore, retention, faultPlan, taskTimeout, jobTimeout, spill, scale, coordinatorConcurrency, taskMemoryTiersMb);
    }

    /**
     * The job store the coordinator uses instead of the embedded SQLite store (e.g. DynamoDB
     * through a local endpoint); owned by the caller, not closed with the deployment.
     */
    public Options withJobStore(JobStore store) {
      return new Options(dataDir, gatewayPort, taskConcurrency, taskMemoryMb, integrationTimeout, taskHandlerWrapper,
          jobSettings, coordinatorTimeout, coordinatorHooks, sweepInterval, store, objectRetention, faultPlan, taskTimeout, jobTimeout, spill, scale, coordinatorConcurrency, taskMemoryTiersMb);
    }

    public Options withDataDir(Path dir) {
      return new Options(dir, gatewayPort, taskConcurrency, taskMemoryMb, integrationTimeout, taskHandlerWrapper,
          jobSettings, coordinatorTimeout, coordinatorHooks, sweepInterval, jobStore, objectRetention, faultPlan, taskTimeout, jobTimeout, spill, scale, coordinatorConcurrency, taskMemoryTiersMb);
    }

    public Options withGatewayPort(int port) {
      return new Options(dataDir, port, taskConcurrency, taskMemoryMb, integrationTimeout, taskHandlerWrapper,
          jobSettings, coordinatorTimeout, coordinatorHooks, sweepInterval, jobStore, objectRetention, faultPlan, taskTimeout, jobTimeout, spill, scale, coordinatorConcurrency, taskMemoryTiersMb);
    }

    public Options withTaskConcurrency(int n) {
      return new Options(dataDir, gatewayPort, n, taskMemoryMb, integrationTimeout, taskHandlerWrapper,
          jobSettings, coordinatorTimeout, coordinatorHooks, sweepInterval, jobStore, objectRetention, faultPlan, taskTimeout, jobTimeout, spill, scale, coordinatorConcurrency, taskMemoryTiersMb);
    }

    public Options withIntegrationTimeout(Duration timeout) {
      return new Options(dataDir, gatewayPort, taskConcurrency, taskMemoryMb, timeout, taskHandlerWrapper,
          jobSettings, coordinatorTimeout, coordinatorHooks, sweepInterval, jobStore, objectRetention, faultPlan, taskTimeout, jobTimeout, spill, scale, coordinatorConcurrency, taskMemoryTiersMb);
    }

    public Options withTaskHandlerWrapper(UnaryOperator<LambdaHandler> wrapper) {
      return new Options(dataDir, gatewayPort, taskConcurrency, taskMemoryMb, integrationTimeout, wrapper,
          jobSettings, coordinatorTimeout, coordinatorHooks, sweepInterval, jobStore, objectRetention, faultPlan, taskTimeout, jobTimeout, spill, scale, coordinatorConcurrency, taskMemoryTiersMb);
    }

    /** Sync wait, lease and hand-off settings of the coordinator. */
    public Options withJobSettings(JobSettings settings) {
      return new Options(dataDir, gatewayPort, taskConcurrency, taskMemoryMb, integrationTimeout, taskHandlerWrapper,
          settings, coordinatorTimeout, coordinatorHooks, sweepInterval, jobStore, objectRetention, faultPlan, taskTimeout, jobTimeout, spill, scale, coordinatorConcurrency, taskMemoryTiersMb);
    }

    /** The coordinator function's time limit (Lambda's is at most 15 minutes). */
    public Options withCoordinatorTimeout(Duration timeout) {
      return new Options(dataDir, gatewayPort, taskConcurrency, taskMemoryMb, integrationTimeout, taskHandlerWrapper,
          jobSettings, timeout, coordinatorHooks, sweepInterval, jobStore, objectRetention, faultPlan, taskTimeout, jobTimeout, spill, scale, coordinatorConcurrency, taskMemoryTiersMb);
    }

    /** Fault injection points inside the coordinator (tests). */
    public Options withCoordinatorHooks(DriverHooks hooks) {
      return new Options(dataDir, gatewayPort, taskConcurrency, taskMemoryMb, integrationTimeout, taskHandlerWrapper,
          jobSettings, coordinatorTimeout, hooks, sweepInterval, jobStore, objectRetention, faultPlan, taskTimeout, jobTimeout, spill, scale, coordinatorConcurrency, taskMemoryTiersMb);
    }

    /**
     * The task function's memory size in MB (tasks budget 60% of it, as on AWS). Locally it may be
     * below Lambda's 128 MB floor (the emulated function still reports 128), so that small data
     * can be run with a budget small enough for operators to spill.
     */
    public Options withTaskMemoryMb(int mb) {
      if (mb < 1 || mb > 10_240) {
        throw new IllegalArgumentException("task memory must be 1 to 10240 MB, not " + mb);
      }
      return new Options(dataDir, gatewayPort, taskConcurrency, mb, integrationTimeout, taskHandlerWrapper,
          jobSettings, coordinatorTimeout, coordinatorHooks, sweepInterval, jobStore, objectRetention, faultPlan, taskTimeout, jobTimeout, spill, scale, coordinatorConcurrency, taskMemoryTiersMb);
    }

    /**
     * Task-size tiers: one emulated task function per memory size (MB, 1-10240, at most {@value
     * TaskTiers#MAX_TIERS}), each with its own task budget (60% of it); the coordinator sends each stage
     * to the smallest tier its estimated memory fits and an attempt that fails for memory to the next
     * larger one. Tier {@code N} is the function {@link #taskFunctionName squall-task-N}. Empty (the
     * default): one task function of {@link #taskMemoryMb}, {@value #TASK_FUNCTION}.
     */
    public Options withTaskMemoryTiers(List<Integer> tiersMb) {
      List<Integer> sorted = tiersMb.stream().sorted().distinct().toList();
      if (sorted.size() != tiersMb.size() || sorted.size() > TaskTiers.MAX_TIERS) {
        throw new IllegalArgumentException("task memory tiers must be 1 to " + TaskTiers.MAX_TIERS
            + " different sizes, not " + tiersMb);
      }
      for (int mb : sorted) {
        if (mb < 1 || mb > 10_240) {
          throw new IllegalArgumentException("task memory tiers must be 1 to 10240 MB, not " + mb);
        }
      }
      return new Options(dataDir, gatewayPort, taskConcurrency, taskMemoryMb, integrationTimeout, taskHandlerWrapper,
          jobSettings, coordinatorTimeout, coordinatorHooks, sweepInterval, jobStore, objectRetention, faultPlan, taskTimeout,
          jobTimeout, spill, scale, coordinatorConcurrency, sorted);
    }

    /** The task functions this stack deploys: its tiers, or the one task function. */
    public TaskTiers taskTiers() {
      if (taskMemoryTiersMb == null || taskMemoryTiersMb.size() <= 1) {
        int mb = taskMemoryTiersMb == null || taskMemoryTiersMb.isEmpty() ? taskMemoryMb : taskMemoryTiersMb.get(0);
        return TaskTiers.single(TASK_FUNCTION, mb);
      }
      return new TaskTiers(taskMemoryTiersMb.stream().map(mb -> new TaskTiers.Tier(taskFunctionName(mb), mb)).toList());
    }

    /** Where tasks spill and their disk budget (unless given: {@code <data dir>/spill}, {@value #DEFAULT_SPILL_DISK_MB} MB). */
    public Options withSpill(SpillSettings settings) {
      return new Options(dataDir, gatewayPort, taskConcurrency, taskMemoryMb, integrationTimeout, taskHandlerWrapper,
          jobSettings, coordinatorTimeout, coordinatorHooks, sweepInterval, jobStore, objectRetention, faultPlan, taskTimeout, jobTimeout, settings, scale, coordinatorConcurrency, taskMemoryTiersMb);
    }

    /** The disk budget of a task's spill files locally, where disk is not Lambda's /tmp. */
    public static final long DEFAULT_SPILL_DISK_MB = 4096;

    /** The spill settings in force: those given, or the defaults under the data directory. */
    public SpillSettings spillSettings() {
      if (spill != null) {
        return spill;
      }
      Path base = dataDir != null ? dataDir : Path.of(System.getProperty("java.io.tmpdir"));
      return new SpillSettings(base.resolve("spill"), DEFAULT_SPILL_DISK_MB * 1024 * 1024);
    }

    /**
     * Models Lambda and S3 at scale (cold starts, latency, concurrency and scaling limits, 503
     * SlowDown) and sets two-level invocation ({@link ScaleEmulation}).
     */
    public Options withScale(ScaleEmulation emulation) {
      return new Options(dataDir, gatewayPort, taskConcurrency, taskMemoryMb, integrationTimeout, taskHandlerWrapper,
          jobSettings, coordinatorTimeout, coordinatorHooks, sweepInterval, jobStore, objectRetention, faultPlan, taskTimeout, jobTimeout, spill, emulation, coordinatorConcurrency, taskMemoryTiersMb);
    }

    /** The coordinator function's reserved concurrency ({@value #DEFAULT_COORDINATOR_CONCURRENCY} unless given). */
    public Options withCoordinatorConcurrency(int n) {
      JobSettings.runningQueriesFor(n); // refuses a reservation without room for a query and a request
      return new Options(dataDir, gatewayPort, taskConcurrency, taskMemoryMb, integrationTimeout, taskHandlerWrapper,
          jobSettings, coordinatorTimeout, coordinatorHooks, sweepInterval, jobStore, objectRetention, faultPlan, taskTimeout, jobTimeout, spill, scale, n, taskMemoryTiersMb);
    }

    /** How often the schedule invokes the coordinator's sweep (zero: never). */
    public Options withSweepInterval(Duration interval) {
      return new Options(dataDir, gatewayPort, taskConcurrency, taskMemoryMb, integrationTimeout, taskHandlerWrapper,
          jobSettings, coordinatorTimeout, coordinatorHooks, interval, jobStore, objectRetention, faultPlan, taskTimeout, jobTimeout, spill, scale, coordinatorConcurrency, taskMemoryTiersMb);
    }
  }

  private final List<AutoCloseable> parts = new ArrayList<>();
  private final EmbeddedS3 s3;
  private final LocalCatalog catalog;
  private final LambdaEmulator lambda;
  private final Gateway gateway;
  private final JobStore jobs;
  private final Faults faults = new Faults();

  private LocalDeployment(Options options) throws Exception {
    try {
      ScaleEmulation scale = options.scale();
      s3 = track(EmbeddedS3.start(options.dataDir() == null ? null : options.dataDir().resolve("s3"), 0,
          List.of(WAREHOUSE_BUCKET, SHUFFLE_BUCKET), scale.s3()));
      faults.install(options.faultPlan());
      LocalFaults localFaults = new LocalFaults(faults);
      catalog = track(LocalCatalog.open(s3, options.dataDir(), WAREHOUSE_BUCKET, faults));
      // S3 requests of the coordinator and the tasks pass the fault plan's S3 rules.
      S3Client direct = track(s3.newClient());
      S3FaultInterceptor s3Faults = new S3FaultInterceptor(faults, direct);
      BufferAllocator allocator = track(new RootAllocator());
      AwsBasicCredentials keys = AwsBasicCredentials.create(EmbeddedS3.ACCESS_KEY, EmbeddedS3.SECRET_KEY);

      // Task function: S3 and data files only, no catalog.
      TaskEnvironment taskEnv = new TaskEnvironment(EmbeddedS3.REGION, s3.endpoint(), true, keys);
      // As taskEnv.newS3Client(), with the S3 faults; requests count as they are sent.
      S3Client taskS3 = track(s3.newClient(s3Faults, CountingS3Client.interceptor()));
      // Data files are read over a client without the fault plan, through one FileIO per attempt
      // that counts its requests.
      S3Client dataFileS3 = track(s3.newClient(CountingS3Client.interceptor()));
      // Task-size tiers: one emulated task function per tier, each with its own memory and so its
      // own task budget (60% of it); one tier (the task function, --task-memory-mb) unless given.
      TaskTiers tiers = options.taskTiers();
      List<FunctionDefinition> taskDefinitions = new ArrayList<>();
      List<AtomicReference<TaskFanOut>> fanOuts = new ArrayList<>();
      for (TaskTiers.Tier tier : tiers.tiers()) {
        TaskFunction taskFunction = new TaskFunction(new TaskRunner(taskS3,
            counting -> taskEnv.newFileIO(CountingS3Client.wrap(dataFileS3, counting)), allocator,
            HedgeSettings.DEFAULT, options.spillSettings()), taskS3, Math.max(128, tier.memoryMb()), 0);
        if (tiers.tiered()) {
          taskFunction.withMemoryBudgetCap(tier.budgetBytes());
        }
        // The invoker role of two-level invocation: the task function invokes tasks with its role's identity.
        AtomicReference<TaskFanOut> fanOut = new AtomicReference<>();
        fanOuts.add(fanOut);
        taskFunction.withFanOut(fanOut::get);
        LambdaHandler taskHandler = (payload, ctx) -> taskFunction.handle(payload, ctx::isCancelled);
        taskDefinitions.add(FunctionDefinition.of(tier.function(),
                options.taskHandlerWrapper().apply(localFaults.task(taskHandler)))
            .withMemoryMb(Math.max(128, tier.memoryMb()))
            .withTimeout(options.taskTimeout())
            // Under an account model the task function shares the account's limit with its invokers.
            .withReservedConcurrency(scale.accountConcurrency() > 0 ? FunctionDefinition.UNRESERVED : options.taskConcurrency()));
      }
      lambda = track(LambdaEmulator.start(0, taskDefinitions, scale.emulatorAccountConcurrency(), scale.lambda()));
      LambdaClient invokerLambdaClient = track(TaskLambdaClients.configure(LambdaClient.builder()
          .endpointOverride(lambda.endpoint())
          .region(EmbeddedS3.REGION)
          .credentialsProvider(StaticCredentialsProvider.create(TASK_ROLE_KEYS)), options.taskTimeout())
          .build());
      for (int i = 0; i < fanOuts.size(); i++) {
        // An invoker invokes tasks on its own tier's function.
        fanOuts.get(i).set(track(new TaskFanOut(invokerLambdaClient, tiers.tiers().get(i).function())));
      }

      // Coordinator: catalog, Lambda and S3 clients; the same core as on AWS.
      LambdaClient lambdaClient = track(LambdaClient.builder()
          .endpointOverride(lambda.endpoint())
          .region(EmbeddedS3.REGION)
          .credentialsProvider(StaticCredentialsProvider.create(COORDINATOR_ROLE_KEYS))
          .httpClientBuilder(UrlConnectionHttpClient.builder().socketTimeout(Duration.ofMinutes(15)))
          .build());
      // Task invocations go through a client set up as on AWS: long read timeout, no SDK retries.
      LambdaClient taskLambdaClient = track(TaskLambdaClients.configure(LambdaClient.builder()
          .endpointOverride(lambda.endpoint())
          .region(EmbeddedS3.REGION)
          .credentialsProvider(StaticCredentialsProvider.create(COORDINATOR_ROLE_KEYS))
          .overrideConfiguration(c -> c.addExecutionInterceptor(localFaults.invokeThrottling())), options.taskTimeout())
          .build());
      S3Client coordinatorS3 = track(s3.newClient(s3Faults, CountingS3Client.interceptor()));
      S3Presigner presigner = track(S3Presigner.builder()
          .endpointOverride(s3.endpoint())
          .region(EmbeddedS3.REGION)
          .credentialsProvider(StaticCredentialsProvider.create(keys))
          .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build())
          .build());
      CoordinatorSettings settings = CoordinatorSettings.defaults(TASK_FUNCTION, SHUFFLE_BUCKET)
          .withMaxConcurrentTasks(options.taskConcurrency())
          .withTaskFunctionMemoryMb(tiers.smallest().memoryMb())
          // Locally a Lambda costs nothing: splits down to 64 KiB let tiny data run as many tasks.
          .withQueryLimits(QueryProperties.Limits.defaults().withMinSplitSizeBytes(scale.minSplitBytes()))
          // No lifecycle rule here: the sweep deletes answers and job objects past the job retention.
          .withObjectRetention(options.objectRetention())
          .withJobTimeout(options.jobTimeout());
      TaskPayloadStore payloads = new TaskPayloadStore(coordinatorS3);
      LambdaTaskInvoker directInvoker = track(new LambdaTaskInvoker(taskLambdaClient, tiers.smallest().function(),
          options.taskConcurrency(), payloads));
      if (tiers.tiered()) {
        directInvoker.withTiers(tiers);
      }
      TaskInvoker invoker = scale.fanOut().enabled()
          ? track(new FanOutTaskInvoker(directInvoker, taskLambdaClient, tiers.smallest().function(), payloads, scale.fanOut()))
          : directInvoker;
      jobs = options.jobStore() != null ? options.jobStore()
          : track(options.dataDir() == null ? SqliteJobStore.temporary(JOB_RETENTION)
              : SqliteJobStore.open(options.dataDir().resolve("jobs.db"), JOB_RETENTION));
      // Tracked so that stopping the stack finishes the job data deletions queued after answers.
      CoordinatorFunction coordinator = track(CoordinatorEnvironment.assemble(jobs, catalog.catalog(),
          new StageScheduler(invoker, RetryPolicy.defaults()), coordinatorS3, presigner, allocator,
          new LambdaSelfInvoker(lambdaClient, COORDINATOR_FUNCTION), settings, localJobSettings(options),
          PlannerSettings.defaults(), localFaults.coordinator(options.coordinatorHooks()), SchemaAllowList.NONE,
          new CostSettings(PriceTable.DEFAULT, COORDINATOR_MEMORY_MB, Math.max(128, tiers.smallest().memoryMb()))));
      // Reserved, as on AWS: coordinators never take the concurrency their own tasks need.
      lambda.register(FunctionDefinition.of(COORDINATOR_FUNCTION,
              (payload, ctx) -> coordinator.handle(payload, Duration.ofMillis(ctx.remainingTimeMillis())))
          .withMemoryMb(COORDINATOR_MEMORY_MB)
          .withTimeout(options.coordinatorTimeout())
          .withReservedConcurrency(options.coordinatorConcurrency()));
      if (!options.sweepInterval().isZero()) {
        // The schedule that, on AWS, is an EventBridge rule invoking the coordinator.
        ScheduledExecutorService sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
          Thread t = new Thread(r, "squall-sweep");
          t.setDaemon(true);
          return t;
        });
        track(sweeper::shutdownNow);
        long every = options.sweepInterval().toMillis();
        sweeper.scheduleWithFixedDelay(() -> {
          try {
            lambdaClient.invoke(b -> b.functionName(COORDINATOR_FUNCTION).invocationType(InvocationType.EVENT)
                .payload(SdkBytes.fromByteArray(CoordinatorActions.sweep())));
          } catch (RuntimeException e) {
            System.err.println("sweep invocation failed: " + e.getMessage());
          }
        }, every, every, TimeUnit.MILLISECONDS);
      }

      gateway = track(Gateway.start(options.gatewayPort(), lambda.endpoint(), COORDINATOR_FUNCTION,
          options.integrationTimeout(), localFaults.route()));
    } catch (Exception | Error e) {
      close();
      throw e;
    }
  }

  /** The fault plan in force (install another to change the faults of a running stack). */
  public Faults faults() {
    return faults;
  }

  /** Starts everything; on failure, stops what was started and rethrows. */
  public static LocalDeployment start(Options options) throws Exception {
    return new LocalDeployment(options);
  }

  private <T extends AutoCloseable> T track(T part) {
    parts.add(part);
    return part;
  }

  /**
   * Loads TPC-H at the scale factor into namespace {@code tpch} (nothing happens when it is there).
   *
   * @param progressBar whether to draw a progress bar on standard error
   */
  public TpchLoader.LoadReport loadTpch(double scaleFactor, boolean progressBar) {
    return new TpchLoader(catalog.catalog()).withProgressBar(progressBar).load(scaleFactor);
  }

  /** As {@link #loadTpch(double, boolean)}, with at most {@code rowsPerFile} rows per data file. */
  public TpchLoader.LoadReport loadTpch(double scaleFactor, boolean progressBar, long rowsPerFile) {
    return new TpchLoader(catalog.catalog()).withProgressBar(progressBar).withRowsPerFile(rowsPerFile).load(scaleFactor);
  }

  /**
   * Loads TPC-DS at the scale factor into namespace {@code tpcds} (nothing happens when it is there).
   *
   * @param progressBar whether to draw a progress bar on standard error
   */
  public TpcdsLoader.LoadReport loadTpcds(double scaleFactor, boolean progressBar) {
    return new TpcdsLoader(catalog.catalog()).withProgressBar(progressBar).load(scaleFactor);
  }

  /** As {@link #loadTpcds(double, boolean)}, with at most about {@code rowsPerFile} rows per data file. */
  public TpcdsLoader.LoadReport loadTpcds(double scaleFactor, boolean progressBar, long rowsPerFile) {
    return new TpcdsLoader(catalog.catalog()).withProgressBar(progressBar).withRowsPerFile(rowsPerFile).load(scaleFactor);
  }

  /** The HTTP endpoint, {@code http://127.0.0.1:PORT}. */
  public URI gatewayEndpoint() {
    return gateway.endpoint();
  }

  public EmbeddedS3 s3() {
    return s3;
  }

  public LocalCatalog catalog() {
    return catalog;
  }

  public LambdaEmulator lambda() {
    return lambda;
  }

  /** The coordinator's job store (SQLite under {@code DATA/jobs.db}). */
  public JobStore jobStore() {
    return jobs;
  }

  @Override
  public void close() {
    for (int i = parts.size() - 1; i >= 0; i--) {
      try {
        parts.get(i).close();
      } catch (Exception e) {
        System.err.println("stopping " + parts.get(i).getClass().getSimpleName() + " failed: " + e);
      }
    }
    parts.clear();
  }

  /**
   * The job settings of this stack: the account-wide task cap is what the emulator gives tasks
   * before it answers 429 as Lambda does (the task function's reserved concurrency, or under an
   * account model the account's unreserved concurrency if that is less), so that a waiting task
   * waits for a slot in the job store instead of being throttled; slots are leased for the task
   * Invoke timeout plus a minute. Running queries are capped by the coordinator's reserved
   * concurrency ({@link JobSettings#runningQueriesFor}).
   */
  private static JobSettings localJobSettings(Options options) {
    int account = options.scale().accountConcurrency();
    int tasks = account > 0 ? Math.min(options.taskConcurrency(), account) : options.taskConcurrency();
    return options.jobSettings().withAccountConcurrency(tasks,
            TaskLambdaClients.readTimeout(options.taskTimeout()).plus(Duration.ofMinutes(1)))
        .withRunningQueries(JobSettings.runningQueriesFor(options.coordinatorConcurrency()));
  }
}

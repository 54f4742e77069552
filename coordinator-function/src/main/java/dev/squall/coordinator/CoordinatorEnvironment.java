package dev.squall.coordinator;

import dev.squall.coordinator.commit.WriteFinalizer;
import dev.squall.coordinator.job.JobDriver;
import dev.squall.coordinator.job.JobPlanner;
import dev.squall.coordinator.job.JobSettings;
import dev.squall.coordinator.job.LambdaSelfInvoker;
import dev.squall.coordinator.job.PlanStore;
import dev.squall.coordinator.job.ResultStore;
import dev.squall.coordinator.job.DriverHooks;
import dev.squall.coordinator.scheduler.LambdaTaskInvoker;
import dev.squall.coordinator.scheduler.TaskLambdaClients;
import dev.squall.coordinator.scheduler.TaskPayloadStore;
import dev.squall.coordinator.scheduler.RetryPolicy;
import dev.squall.coordinator.scheduler.StageScheduler;
import dev.squall.jobstore.JobStore;
import dev.squall.planner.PlannerSettings;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * Builds the coordinator's core from its Lambda environment:
 * {@code SQUALL_TASK_FUNCTION} (task function name or ARN), {@code SQUALL_SHUFFLE_BUCKET},
 * {@code SQUALL_JOB_TABLE} (the DynamoDB job table), {@code SQUALL_MAX_CONCURRENT_TASKS} (default
 * 64), {@code SQUALL_TASK_MEMORY_MB} (the task function's memory size, default 2048; tasks budget
 * 60% of it), {@code SQUALL_TASK_TIMEOUT_SECONDS} (the task function's timeout, default 900: task
 * invocations wait this long plus a margin, without SDK retries), {@code SQUALL_SYNC_WAIT_SECONDS} (default 25), {@code SQUALL_JOB_RETENTION_HOURS}
 * (default 24), and the Iceberg catalog: {@code SQUALL_CATALOG_TYPE} ({@code glue} or {@code rest}),
 * {@code SQUALL_CATALOG_URI} (REST), {@code SQUALL_CATALOG_WAREHOUSE}. The function's own name
 * ({@code AWS_LAMBDA_FUNCTION_NAME}, set by Lambda) is where it sends its asynchronous
 * continuations. Credentials come from the function's role through the AWS SDK's default provider
 * chain; none is read from or written to any plan.
 */
public final class CoordinatorEnvironment {
  private CoordinatorEnvironment() {}

  /**
   * @throws IllegalArgumentException naming the first missing or malformed variable
   */
  public static CoordinatorFunction build(Map<String, String> env) {
    String taskFunction = required(env, "SQUALL_TASK_FUNCTION");
    String bucket = required(env, "SQUALL_SHUFFLE_BUCKET");
    String self = required(env, "AWS_LAMBDA_FUNCTION_NAME");
    int concurrency = Integer.parseInt(env.getOrDefault("SQUALL_MAX_CONCURRENT_TASKS", "64"));
    long taskMemoryMb = Long.parseLong(env.getOrDefault("SQUALL_TASK_MEMORY_MB", "2048"));
    CoordinatorSettings settings = CoordinatorSettings.defaults(taskFunction, bucket)
        .withMaxConcurrentTasks(concurrency)
        .withTaskFunctionMemoryMb(taskMemoryMb);
    JobSettings jobSettings = JobSettings.defaults()
        .withSyncWait(Duration.ofSeconds(Long.parseLong(env.getOrDefault("SQUALL_SYNC_WAIT_SECONDS", "25"))));
    Duration retention = Duration.ofHours(Long.parseLong(env.getOrDefault("SQUALL_JOB_RETENTION_HOURS", "24")));
    JobStore store = JobStores.dynamoDb(required(env, "SQUALL_JOB_TABLE"), retention);
    Duration taskTimeout = Duration.ofSeconds(Long.parseLong(env.getOrDefault("SQUALL_TASK_TIMEOUT_SECONDS", "900")));
    LambdaClient taskLambda = TaskLambdaClients.configure(LambdaClient.builder(), taskTimeout).build();
    LambdaClient lambda = LambdaClient.builder().httpClientBuilder(UrlConnectionHttpClient.builder()).build();
    S3Client s3 = S3Client.builder().httpClientBuilder(UrlConnectionHttpClient.builder()).build();
    StageScheduler scheduler = new StageScheduler(new LambdaTaskInvoker(taskLambda, taskFunction, concurrency,
        new TaskPayloadStore(s3)), RetryPolicy.defaults());
    return assemble(store, catalog(env), scheduler, s3, S3Presigner.create(), new RootAllocator(),
        new LambdaSelfInvoker(lambda, self), settings, jobSettings, PlannerSettings.defaults(), DriverHooks.NONE);
  }

  /**
   * Wires the coordinator's parts; shared by the AWS environment and the local deployment.
   */
  public static CoordinatorFunction assemble(JobStore store, Catalog catalog, StageScheduler scheduler, S3Client s3,
      S3Presigner presigner, BufferAllocator allocator, dev.squall.coordinator.job.SelfInvoker self,
      CoordinatorSettings settings, JobSettings jobSettings, PlannerSettings plannerDefaults, DriverHooks hooks) {
    Clock clock = Clock.systemUTC();
    ResultStore results = new ResultStore(s3, presigner, settings.shuffleBucket(), settings.resultUrlTtl());
    JobDriver driver = new JobDriver(store, new JobPlanner(catalog, settings, plannerDefaults),
        new PlanStore(s3, settings.shuffleBucket()), results, scheduler, s3, allocator, settings.shuffleBucket(), self,
        jobSettings, settings.jobTimeout(), clock, hooks, new WriteFinalizer(catalog));
    return new CoordinatorFunction(new QueryCoordinator(store, driver, results, self, s3, settings, jobSettings, clock));
  }

  static Catalog catalog(Map<String, String> env) {
    String type = env.getOrDefault("SQUALL_CATALOG_TYPE", "glue");
    Map<String, String> props = new HashMap<>();
    switch (type) {
      case "glue" -> props.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_GLUE);
      case "rest" -> {
        props.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_REST);
        props.put("uri", required(env, "SQUALL_CATALOG_URI"));
      }
      default -> throw new IllegalArgumentException("SQUALL_CATALOG_TYPE must be glue or rest, not '" + type + "'");
    }
    if (env.containsKey("SQUALL_CATALOG_WAREHOUSE")) {
      props.put("warehouse", env.get("SQUALL_CATALOG_WAREHOUSE"));
    }
    props.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
    props.put("http-client.type", "urlconnection");
    return CatalogUtil.buildIcebergCatalog("squall", props, null);
  }

  static String required(Map<String, String> env, String name) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException("environment variable " + name + " is not set");
    }
    return v;
  }
}

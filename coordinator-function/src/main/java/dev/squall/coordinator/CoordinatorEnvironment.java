package dev.squall.coordinator;

import dev.squall.coordinator.scheduler.LambdaTaskInvoker;
import dev.squall.coordinator.scheduler.RetryPolicy;
import dev.squall.coordinator.scheduler.StageScheduler;
import dev.squall.planner.PlannerSettings;
import java.util.HashMap;
import java.util.Map;
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
 * {@code SQUALL_MAX_CONCURRENT_TASKS} (default 64), {@code SQUALL_TASK_MEMORY_MB} (the task
 * function's memory size, default 2048; tasks budget 60% of it), and the Iceberg catalog:
 * {@code SQUALL_CATALOG_TYPE} ({@code glue} or {@code rest}), {@code SQUALL_CATALOG_URI} (REST),
 * {@code SQUALL_CATALOG_WAREHOUSE}. Credentials come from the function's role through the AWS SDK's
 * default provider chain; none is read from or written to any plan.
 */
public final class CoordinatorEnvironment {
  private CoordinatorEnvironment() {}

  /**
   * @throws IllegalArgumentException naming the first missing variable
   */
  public static QueryCoordinator build(Map<String, String> env) {
    String taskFunction = required(env, "SQUALL_TASK_FUNCTION");
    String bucket = required(env, "SQUALL_SHUFFLE_BUCKET");
    int concurrency = Integer.parseInt(env.getOrDefault("SQUALL_MAX_CONCURRENT_TASKS", "64"));
    long taskMemoryMb = Long.parseLong(env.getOrDefault("SQUALL_TASK_MEMORY_MB", "2048"));
    CoordinatorSettings settings = CoordinatorSettings.defaults(taskFunction, bucket)
        .withMaxConcurrentTasks(concurrency)
        .withTaskFunctionMemoryMb(taskMemoryMb);
    LambdaClient lambda = LambdaClient.builder().httpClientBuilder(UrlConnectionHttpClient.builder()).build();
    StageScheduler scheduler = new StageScheduler(new LambdaTaskInvoker(lambda, taskFunction, concurrency), RetryPolicy.defaults());
    return new QueryCoordinator(catalog(env), scheduler,
        S3Client.builder().httpClientBuilder(UrlConnectionHttpClient.builder()).build(), S3Presigner.create(),
        new RootAllocator(), settings, PlannerSettings.defaults());
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

  private static String required(Map<String, String> env, String name) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException("environment variable " + name + " is not set");
    }
    return v;
  }
}

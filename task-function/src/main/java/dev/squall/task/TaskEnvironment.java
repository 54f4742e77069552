package dev.squall.task;

import dev.squall.engine.io.HedgeSettings;
import dev.squall.engine.spill.SpillSettings;
import dev.squall.invoke.TaskLambdaClients;
import dev.squall.shuffle.requests.CountingS3Client;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.aws.s3.S3FileIOProperties;
import org.apache.iceberg.io.FileIO;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.lambda.LambdaClientBuilder;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * Where a task function's S3 is and how to reach it, read from its environment:
 * {@code AWS_REGION} (required on AWS; default us-east-1), {@code SQUALL_S3_ENDPOINT} (an endpoint
 * override, e.g. the local S3Proxy; unset on AWS) and {@code SQUALL_S3_PATH_STYLE} ("true" for
 * path-style addressing). Credentials come from the AWS SDK's default provider chain (the
 * function's role on AWS) unless static ones are given (the local stack's loopback keys); they are
 * never part of a task spec. Hedged reads are set by {@link #hedging}.
 *
 * @param region AWS region
 * @param endpoint S3 endpoint override, or null
 * @param pathStyle whether to use path-style addressing
 * @param credentials static credentials, or null for the default provider chain
 */
public record TaskEnvironment(Region region, URI endpoint, boolean pathStyle, AwsBasicCredentials credentials) {

  /** Reads the environment variables above. */
  public static TaskEnvironment fromEnv(Map<String, String> env) {
    String endpoint = env.get("SQUALL_S3_ENDPOINT");
    return new TaskEnvironment(
        Region.of(env.getOrDefault("AWS_REGION", "us-east-1")),
        endpoint == null || endpoint.isBlank() ? null : URI.create(endpoint),
        Boolean.parseBoolean(env.getOrDefault("SQUALL_S3_PATH_STYLE", "false")),
        null);
  }

  /** An S3 client for shuffle objects; checksums only where an operation requires them. */
  public S3Client newS3Client() {
    S3ClientBuilder b = S3Client.builder()
        .region(region)
        .forcePathStyle(pathStyle)
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .httpClientBuilder(UrlConnectionHttpClient.builder())
        // Task attempts count their requests as they are sent (CountingS3Client).
        .overrideConfiguration(c -> c.addExecutionInterceptor(CountingS3Client.interceptor()));
    if (endpoint != null) {
      b.endpointOverride(endpoint);
    }
    if (credentials != null) {
      b.credentialsProvider(StaticCredentialsProvider.create(credentials));
    }
    return b.build();
  }

  /**
   * The invoker role's Lambda client for task invocations: a read timeout above the task
   * function's timeout ({@link #TASK_INVOKE_WAIT}: Lambda's 15-minute maximum plus 30 s) and no SDK
   * retries, since a re-sent spec after a timeout would run one attempt twice. Credentials come from
   * the default provider chain (the function's role), as for S3.
   */
  public LambdaClient newTaskLambdaClient() {
    LambdaClientBuilder b = LambdaClient.builder().region(region);
    if (credentials != null) {
      b.credentialsProvider(StaticCredentialsProvider.create(credentials));
    }
    return TaskLambdaClients.configure(b, LAMBDA_MAX_TIMEOUT).build();
  }

  /** Lambda's largest function timeout: the invoker waits that long (plus a margin) for a task's answer. */
  static final Duration LAMBDA_MAX_TIMEOUT = Duration.ofMinutes(15);

  /** Iceberg's S3FileIO for reading data files, configured like {@link #newS3Client()}. */
  public FileIO newFileIO() {
    Map<String, String> props = new HashMap<>();
    props.put("client.region", region.id());
    if (endpoint != null) {
      props.put(S3FileIOProperties.ENDPOINT, endpoint.toString());
    }
    props.put(S3FileIOProperties.PATH_STYLE_ACCESS, Boolean.toString(pathStyle));
    if (credentials != null) {
      props.put(S3FileIOProperties.ACCESS_KEY_ID, credentials.accessKeyId());
      props.put(S3FileIOProperties.SECRET_ACCESS_KEY, credentials.secretAccessKey());
    }
    props.put(CatalogProperties.FILE_IO_IMPL, S3FileIO.class.getName());
    // The SDK's URL-connection client: small, no Apache HTTP client on the classpath.
    props.put("http-client.type", "urlconnection");
    S3FileIO io = new S3FileIO();
    io.initialize(props);
    return io;
  }

  /**
   * Iceberg's S3FileIO over {@code client} (a task attempt's request-counting client, whose close
   * leaves the wrapped client open), so that its data-file reads and writes are counted with the
   * attempt's other requests.
   */
  public FileIO newFileIO(S3Client client) {
    S3FileIO io = new S3FileIO(() -> client);
    io.initialize(Map.of());
    return io;
  }

  /**
   * The function's configured memory in MB, from Lambda's {@code AWS_LAMBDA_FUNCTION_MEMORY_SIZE};
   * 0 when it is not set.
   */
  public static int memoryMb(Map<String, String> env) {
    try {
      return Integer.parseInt(env.getOrDefault("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "0").trim());
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /**
   * When the task's ranged reads (data files, shuffle objects) are sent a second time, from the
   * environment: {@code SQUALL_HEDGE_PERCENTILE} (latency percentile of recent reads, default 95,
   * 50-99), {@code SQUALL_HEDGE_MIN_DELAY_MS} (floor, default 50, 1-10,000), {@code
   * SQUALL_HEDGE_MAX_DELAY_MS} (cap, default 2,000, 1-60,000, at least the floor) and {@code
   * SQUALL_HEDGE_BUDGET_PERCENT} (largest share of reads sent twice, default 5, 0-50; 0 turns
   * hedging off).
   *
   * @throws IllegalArgumentException naming the variable and its range for a bad value
   */
  public static HedgeSettings hedging(Map<String, String> env) {
    long percentile = setting(env, "SQUALL_HEDGE_PERCENTILE", 95, 50, 99);
    long min = setting(env, "SQUALL_HEDGE_MIN_DELAY_MS", 50, 1, 10_000);
    long max = setting(env, "SQUALL_HEDGE_MAX_DELAY_MS", 2_000, 1, 60_000);
    long budget = setting(env, "SQUALL_HEDGE_BUDGET_PERCENT", 5, 0, 50);
    if (max < min) {
      throw new IllegalArgumentException("SQUALL_HEDGE_MAX_DELAY_MS (" + max + ") must be at least"
          + " SQUALL_HEDGE_MIN_DELAY_MS (" + min + ")");
    }
    return new HedgeSettings(percentile, Duration.ofMillis(min), Duration.ofMillis(max), budget / 100.0);
  }

  /**
   * Where operators spill and how much disk a task may fill, from the environment: {@code
   * SQUALL_SPILL_DIR} (default {@code <java.io.tmpdir>/squall-spill}, i.e. {@code /tmp/squall-spill}
   * on Lambda) and {@code SQUALL_SPILL_DISK_MB} (default 400, 0-10,240; Lambda's {@code /tmp} is
   * 512 MB unless the function is given more ephemeral storage; 0 turns spilling off).
   *
   * @throws IllegalArgumentException naming the variable and its range for a bad value
   */
  public static SpillSettings spilling(Map<String, String> env) {
    long mb = setting(env, SpillSettings.DISK_BUDGET_SETTING, DEFAULT_SPILL_DISK_MB, 0, 10_240);
    String dir = env.get(SpillSettings.DIRECTORY_SETTING);
    Path directory = dir == null || dir.isBlank()
        ? Path.of(System.getProperty("java.io.tmpdir"), "squall-spill") : Path.of(dir.trim());
    return new SpillSettings(directory, mb * 1024 * 1024);
  }

  /** The default disk budget of a task's spill files: most of Lambda's default 512 MB of /tmp. */
  public static final long DEFAULT_SPILL_DISK_MB = 400;

  private static long setting(Map<String, String> env, String name, long defaultValue, long min, long max) {
    String raw = env.get(name);
    if (raw == null || raw.isBlank()) {
      return defaultValue;
    }
    try {
      long v = Long.parseLong(raw.trim());
      if (v >= min && v <= max) {
        return v;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw new IllegalArgumentException(name + " must be a whole number within " + min + "-" + max + ", not '" + raw
        + "'");
  }
}

package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.squall.coordinator.job.JobSettings;
import dev.squall.local.lambda.LambdaHandler;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The local deployment with TPC-H loaded, as the end-to-end tests use it: one per test class,
 * on a temporary data directory, with helpers to post queries through the gateway, to open DuckDB
 * over the very same data files, and to list what the job left in the shuffle bucket.
 */
public final class TestStack implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  public final LocalDeployment deployment;
  /** DuckDB connections handed out by {@link #duckDb}, closed with the stack. */
  private final List<Connection> oracles = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final Path dataDir;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  private TestStack(LocalDeployment deployment, Path dataDir) {
    this.deployment = deployment;
    this.dataDir = dataDir;
  }

  /** Starts the stack and loads TPC-H at {@code scaleFactor} with at most {@code rowsPerFile} rows per data file. */
  public static TestStack start(double scaleFactor, long rowsPerFile, UnaryOperator<LambdaHandler> taskWrapper) throws Exception {
    return startWith(scaleFactor, rowsPerFile, o -> o.withTaskHandlerWrapper(taskWrapper));
  }

  /**
   * As {@link #start(double, long, UnaryOperator)}, with the deployment's options adjusted. Synchronous
   * queries wait up to 10 minutes for their answer unless {@code options} says otherwise.
   */
  public static TestStack startWith(double scaleFactor, long rowsPerFile, UnaryOperator<LocalDeployment.Options> options)
      throws Exception {
    return startLoading(options, d -> d.loadTpch(scaleFactor, false, rowsPerFile));
  }

  /**
   * As {@link #startWith}, with TPC-DS (namespace {@code tpcds}) loaded instead of TPC-H, at most
   * about {@code rowsPerFile} rows per data file.
   */
  public static TestStack startTpcds(double scaleFactor, long rowsPerFile, UnaryOperator<LocalDeployment.Options> options)
      throws Exception {
    return startLoading(options, d -> d.loadTpcds(scaleFactor, false, rowsPerFile));
  }

  private static TestStack startLoading(UnaryOperator<LocalDeployment.Options> options,
      java.util.function.Consumer<LocalDeployment> load) throws Exception {
    Path dir = Files.createTempDirectory("squall-e2e");
    LocalDeployment d = LocalDeployment.start(options.apply(LocalDeployment.Options.defaults().withDataDir(dir)
        .withIntegrationTimeout(Duration.ofMinutes(10))
        .withJobSettings(JobSettings.defaults().withSyncWait(Duration.ofMinutes(10)))));
    try {
      load.accept(d);
    } catch (RuntimeException e) {
      d.close();
      throw e;
    }
    return new TestStack(d, dir);
  }

  /** The stack's data directory (local S3 under {@code s3/<bucket>/}, catalog, job store); deleted by {@link #close}. */
  public Path dataDir() {
    return dataDir;
  }

  /** Posts {@code {"sql", "properties"}} to {@code /v1/queries}. */
  HttpResponse<byte[]> post(String sql, Map<String, String> properties, String accept) throws Exception {
    ObjectNode body = JSON.createObjectNode().put("sql", sql);
    ObjectNode props = body.putObject("properties");
    properties.forEach(props::put);
    return postRaw(JSON.writeValueAsBytes(body), accept);
  }

  /** Posts a raw body to {@code /v1/queries}. */
  /**
   * Runs a TPC-H query (tables as {@code tpch.name}) as Arrow, checks that it succeeds with DuckDB's
   * answer over the same data files ({@code duck}, from {@link #duckDb()}), and returns its summary
   * (the {@code x-squall-summary} header).
   */
  JsonNode summaryAnsweringAsDuckDb(Connection duck, String sql, Map<String, String> properties) throws Exception {
    HttpResponse<byte[]> r = post(sql, properties, "application/vnd.apache.arrow.stream");
    assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(200);
    assertThat(ResultRows.difference(ResultRows.fromArrow(r.body()),
        ResultRows.fromDuckDb(duck, sql.replace("tpch.", "")), false)).as("differs from DuckDB: " + sql).isNull();
    return JSON.readTree(r.headers().firstValue("x-squall-summary").orElseThrow());
  }

  HttpResponse<byte[]> postRaw(byte[] body, String accept) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create(deployment.gatewayEndpoint() + "/v1/queries"))
        .timeout(Duration.ofMinutes(10))
        .header("Content-Type", "application/json")
        .header("Accept", accept)
        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
        .build();
    return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
  }

  /** Sends {@code method} to {@code path} (relative to the endpoint) without a body. */
  HttpResponse<byte[]> send(String method, String path, String accept) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create(deployment.gatewayEndpoint() + path))
        .timeout(Duration.ofMinutes(10))
        .header("Accept", accept)
        .method(method, HttpRequest.BodyPublishers.noBody())
        .build();
    return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
  }

  /** Posts {@code {"sql", "mode": "async"}}; returns the query id from the 202 answer. */
  String submitAsync(String sql) throws Exception {
    return submitAsync(sql, Map.of());
  }

  /** Installs a fault plan ({@code PUT /_local/faults}, docs/faults.md); fails the test unless it is accepted. */
  public void installFaults(String planJson) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create(deployment.gatewayEndpoint() + "/_local/faults"))
        .timeout(Duration.ofMinutes(1))
        .PUT(HttpRequest.BodyPublishers.ofString(planJson))
        .build();
    HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new AssertionError("fault plan refused (" + r.statusCode() + "): " + r.body());
    }
  }

  /** Runs a query to its answer as rows (Arrow), failing unless it answers 200. */
  List<List<Object>> rows(String sql, Map<String, String> properties) throws Exception {
    HttpResponse<byte[]> response = post(sql, properties, "application/vnd.apache.arrow.stream");
    if (response.statusCode() != 200) {
      throw new AssertionError(sql + " answered " + response.statusCode() + ": " + new String(response.body()));
    }
    return ResultRows.fromArrow(response.body());
  }

  /** Posts {@code {"sql", "properties", "mode": "async"}}; returns the query id from the 202 answer. */
  String submitAsync(String sql, Map<String, String> properties) throws Exception {
    ObjectNode body = JSON.createObjectNode().put("sql", sql).put("mode", "async");
    ObjectNode props = body.putObject("properties");
    properties.forEach(props::put);
    HttpResponse<byte[]> r = postRaw(JSON.writeValueAsBytes(body), "application/json");
    if (r.statusCode() != 202) {
      throw new AssertionError("async submission answered " + r.statusCode() + ": " + new String(r.body()));
    }
    return JSON.readTree(r.body()).get("queryId").asText();
  }

  /** The JSON status of a query (GET /v1/queries/{id}). */
  com.fasterxml.jackson.databind.JsonNode status(String queryId) throws Exception {
    HttpResponse<byte[]> r = send("GET", "/v1/queries/" + queryId, "application/json");
    if (r.statusCode() != 200) {
      throw new AssertionError("status answered " + r.statusCode() + ": " + new String(r.body()));
    }
    return JSON.readTree(r.body());
  }

  /** Polls the status until the query's state is terminal or {@code timeout} passes; returns the last status. */
  com.fasterxml.jackson.databind.JsonNode awaitTerminal(String queryId, Duration timeout) throws Exception {
    long until = System.nanoTime() + timeout.toNanos();
    while (true) {
      var s = status(queryId);
      String state = s.get("state").asText();
      if (state.equals("SUCCEEDED") || state.equals("FAILED") || state.equals("CANCELLED") || System.nanoTime() > until) {
        return s;
      }
      Thread.sleep(100);
    }
  }

  /**
   * A DuckDB connection with one view per TPC-H table over the table's current data files. The
   * stack closes it when it closes (closing it earlier is fine).
   */
  public Connection duckDb() throws Exception {
    Connection duck = DriverManager.getConnection("jdbc:duckdb:");
    oracles.add(duck);
    TpchDuckDbViews.create(deployment, duck);
    return duck;
  }

  /** Keys under {@code jobs/} in the shuffle bucket: what running or failed jobs left behind. */
  public List<String> shuffleObjects() {
    try (S3Client s3 = deployment.s3().newClient()) {
      return s3.listObjectsV2Paginator(b -> b.bucket(LocalDeployment.SHUFFLE_BUCKET).prefix("jobs/")).contents()
          .stream().map(S3Object::key).toList();
    }
  }

  /**
   * Keys under {@code jobs/} once there are none, or what is left after {@code timeout}: a query's
   * data is deleted on a coordinator thread after its answer is returned
   * ({@code SQUALL_JOB_DATA_DELETION_MAX_PENDING}), so a client may look before that ends.
   */
  public List<String> shuffleObjectsLeft(Duration timeout) throws InterruptedException {
    long until = System.nanoTime() + timeout.toNanos();
    while (true) {
      List<String> left = shuffleObjects();
      if (left.isEmpty() || System.nanoTime() > until) {
        return left;
      }
      Thread.sleep(50);
    }
  }

  /**
   * Objects under {@code jobs/<jobId>/} once they are gone, or what is left after {@code timeout}:
   * a query's data is deleted after SUCCEEDED is recorded, on a coordinator thread after the answer
   * is returned, so a client that saw the state may look before the deletion ends.
   */
  public List<String> objectsLeftBy(String jobId, Duration timeout) throws InterruptedException {
    long until = System.nanoTime() + timeout.toNanos();
    while (true) {
      List<String> left = shuffleObjects().stream().filter(k -> k.startsWith("jobs/" + jobId + "/")).toList();
      if (left.isEmpty() || System.nanoTime() > until) {
        return left;
      }
      Thread.sleep(50);
    }
  }

  @Override
  public void close() throws Exception {
    for (Connection oracle : oracles) {
      oracle.close();
    }
    deployment.close();
    try (var paths = Files.walk(dataDir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}

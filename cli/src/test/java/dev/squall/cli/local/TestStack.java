package dev.squall.cli.local;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
  private final Path dataDir;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  private TestStack(LocalDeployment deployment, Path dataDir) {
    this.deployment = deployment;
    this.dataDir = dataDir;
  }

  /** Starts the stack and loads TPC-H at {@code scaleFactor} with at most {@code rowsPerFile} rows per data file. */
  public static TestStack start(double scaleFactor, long rowsPerFile, UnaryOperator<LambdaHandler> taskWrapper) throws Exception {
    Path dir = Files.createTempDirectory("squall-e2e");
    LocalDeployment d = LocalDeployment.start(LocalDeployment.Options.defaults().withDataDir(dir)
        .withIntegrationTimeout(Duration.ofMinutes(10)).withTaskHandlerWrapper(taskWrapper));
    try {
      d.loadTpch(scaleFactor, false, rowsPerFile);
    } catch (RuntimeException e) {
      d.close();
      throw e;
    }
    return new TestStack(d, dir);
  }

  /** Posts {@code {"sql", "properties"}} to {@code /v1/queries}. */
  HttpResponse<byte[]> post(String sql, Map<String, String> properties, String accept) throws Exception {
    ObjectNode body = JSON.createObjectNode().put("sql", sql);
    ObjectNode props = body.putObject("properties");
    properties.forEach(props::put);
    return postRaw(JSON.writeValueAsBytes(body), accept);
  }

  /** Posts a raw body to {@code /v1/queries}. */
  HttpResponse<byte[]> postRaw(byte[] body, String accept) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create(deployment.gatewayEndpoint() + "/v1/queries"))
        .timeout(Duration.ofMinutes(10))
        .header("Content-Type", "application/json")
        .header("Accept", accept)
        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
        .build();
    return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
  }

  /** A DuckDB connection with one view per TPC-H table over the table's current data files. */
  public Connection duckDb() throws Exception {
    Connection duck = DriverManager.getConnection("jdbc:duckdb:");
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

  @Override
  public void close() throws Exception {
    deployment.close();
    try (var paths = Files.walk(dataDir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}

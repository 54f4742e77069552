package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.squall.local.tpch.TpchLoader;
import io.trino.tpch.TpchTable;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * All 22 TPC-H queries through the whole serverless path — HTTP → gateway → coordinator function →
 * Lambda Invoke API → task functions → S3 shuffle → Arrow answer — each compared with DuckDB's
 * answer over the very same Parquet data files (read from the embedded S3's directory).
 *
 * <p>Data files hold at most {@link #rowsPerFile()} rows so that scans of the larger tables split
 * over several tasks, and a tiny broadcast threshold makes every join cross hash edges.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class TpchEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  Path dataDir;
  LocalDeployment stack;
  Connection duck;
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  abstract double scaleFactor();

  abstract long rowsPerFile();

  /** Per-query properties: small splits and tasks, and joins by hash. */
  Map<String, String> properties() {
    return Map.of("default_schema", "tpch", "broadcast_threshold_bytes", "1", "target_split_size_bytes", "65536", "target_bytes_per_task", "65536");
  }

  @BeforeAll
  void startStackAndOracle() throws Exception {
    dataDir = java.nio.file.Files.createTempDirectory("squall-e2e");
    stack = LocalDeployment.start(LocalDeployment.Options.defaults().withDataDir(dataDir)
        .withIntegrationTimeout(Duration.ofMinutes(10)));
    stack.loadTpch(scaleFactor(), false, rowsPerFile());
    duck = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement st = duck.createStatement()) {
      for (TpchTable<?> t : TpchTable.getTables()) {
        Table table = stack.catalog().catalog().loadTable(TpchLoader.identifier(t));
        List<String> files = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
          for (FileScanTask task : tasks) {
            files.add("'" + stack.catalog().localPathOf(task.file().location()) + "'");
          }
        }
        st.execute("create view " + t.getTableName() + " as select * from read_parquet(["
            + String.join(", ", files) + "])");
      }
    }
  }

  @AfterAll
  void stop() throws Exception {
    if (duck != null) {
      duck.close();
    }
    if (stack != null) {
      stack.close();
    }
    if (dataDir != null) {
      try (var paths = java.nio.file.Files.walk(dataDir)) {
        paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  static List<Integer> queries() {
    List<Integer> q = new ArrayList<>();
    for (int i = 1; i <= 22; i++) {
      q.add(i);
    }
    return q;
  }

  /** Posts the SQL through the gateway; returns status, body and headers. */
  HttpResponse<byte[]> post(String sql, Map<String, String> properties) throws Exception {
    ObjectNode body = JSON.createObjectNode().put("sql", sql);
    ObjectNode props = body.putObject("properties");
    properties.forEach(props::put);
    HttpRequest request = HttpRequest.newBuilder(URI.create(stack.gatewayEndpoint() + "/v1/queries"))
        .timeout(Duration.ofMinutes(10))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
        .build();
    return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
  }

  @ParameterizedTest(name = "Q{0}")
  @MethodSource("queries")
  void answerEqualsDuckDb(int n) throws Exception {
    String sql = TpchQueries.text(n);
    HttpResponse<byte[]> response = post(sql, properties());
    assertThat(response.statusCode()).as("Q%d: %s", n, new String(response.body())).isEqualTo(200);
    List<List<Object>> actual = ResultRows.fromArrow(response.body());
    List<List<Object>> expected;
    try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(TpchQueries.forDuckDb(sql))) {
      expected = ResultRows.fromJdbc(rs);
    }
    String diff = ResultRows.difference(actual, expected, TpchQueries.ordered(sql));
    assertThat(diff).as("Q%d differs from DuckDB", n).isNull();

    var summary = JSON.readTree(response.headers().firstValue("x-squall-summary").orElseThrow());
    List<Integer> scanTasks = new ArrayList<>();
    List<String> edges = new ArrayList<>();
    summary.get("stageSummaries").forEach(s -> {
      if (s.get("scans").asBoolean()) {
        scanTasks.add(s.get("tasks").asInt());
      }
      edges.add(s.get("outputEdge").asText());
    });
    assertThat(scanTasks).as("Q%d scan stage task counts", n).anyMatch(t -> t > 1);
    if (n != 1 && n != 6) {
      assertThat(edges).as("Q%d joins cross a hash edge", n).contains("hash");
    }
  }

  static String describe(List<List<Object>> rows) {
    return rows.stream().map(Object::toString).collect(Collectors.joining("\n"));
  }
}

package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
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
  TestStack stack;
  Connection duck;

  abstract double scaleFactor();

  abstract long rowsPerFile();

  /** Per-query properties: small splits and tasks, and joins by hash. */
  Map<String, String> properties() {
    return Map.of("default_schema", "tpch", "broadcast_threshold_bytes", "1", "target_split_size_bytes", "65536", "target_bytes_per_task", "65536");
  }

  /** Adjusts the local deployment (e.g. the task memory). */
  UnaryOperator<LocalDeployment.Options> stackOptions() {
    return UnaryOperator.identity();
  }

  /** Whether some scan stage of every query runs as several tasks (the properties make splits small). */
  boolean scansSplitOverTasks() {
    return true;
  }

  /** Further checks of a query's summary (the {@code x-squall-summary} JSON). */
  void checkSummary(int n, JsonNode summary) { }

  @BeforeAll
  void startStackAndOracle() throws Exception {
    stack = TestStack.startWith(scaleFactor(), rowsPerFile(), stackOptions());
    duck = stack.duckDb();
  }

  @AfterAll
  void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
  }

  static List<Integer> queries() {
    List<Integer> q = new ArrayList<>();
    for (int i = 1; i <= 22; i++) {
      q.add(i);
    }
    return q;
  }

  @ParameterizedTest(name = "Q{0}")
  @MethodSource("queries")
  void answerEqualsDuckDb(int n) throws Exception {
    String sql = dev.squall.local.tpch.TpchQueries.text(n);
    HttpResponse<byte[]> response = stack.post(sql, properties(), "application/vnd.apache.arrow.stream");
    assertThat(response.statusCode()).as("Q%d: %s", n, new String(response.body())).isEqualTo(200);
    List<List<Object>> actual = ResultRows.fromArrow(response.body());
    List<List<Object>> expected;
    try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(TpchDialect.forDuckDb(sql))) {
      expected = ResultRows.fromJdbc(rs);
    }
    String diff = ResultRows.difference(actual, expected, TpchDialect.ordered(sql));
    assertThat(diff).as("Q%d differs from DuckDB", n).isNull();

    var summary = JSON.readTree(response.headers().firstValue("x-squall-summary").orElseThrow());
    List<Integer> scanTasks = new ArrayList<>();
    List<String> edges = new ArrayList<>();
    List<Long> peaks = new ArrayList<>();
    summary.get("stageSummaries").forEach(s -> {
      if (s.get("scans").asBoolean()) {
        scanTasks.add(s.get("tasks").asInt());
      }
      edges.add(s.get("outputEdge").asText());
      peaks.add(s.get("maxPeakMemoryBytes").asLong());
    });
    long budget = summary.get("taskMemoryBudgetBytes").asLong();
    assertThat(budget).as("Q%d task memory budget", n).isPositive();
    assertThat(peaks).as("Q%d peak task memory per stage", n).allMatch(p -> p <= budget).anyMatch(p -> p > 0);
    if (scansSplitOverTasks()) {
      assertThat(scanTasks).as("Q%d scan stage task counts", n).anyMatch(t -> t > 1);
    }
    if (n != 1 && n != 6) {
      assertThat(edges).as("Q%d joins cross a hash edge", n).contains("hash");
    }
    checkSummary(n, summary);
  }

  static List<String> orderings() {
    return List.of(
        "select l_orderkey, l_linenumber, l_shipdate, l_quantity from lineitem"
            + " order by l_shipdate desc, l_orderkey, l_linenumber",
        "select o_custkey, o_orderkey, o_totalprice from orders order by o_custkey, o_orderkey");
  }

  /** An ORDER BY without LIMIT runs in several tasks behind a range edge; the answer is DuckDB's, row for row. */
  @ParameterizedTest
  @MethodSource("orderings")
  void orderBySortsRangesInSeveralTasks(String sql) throws Exception {
    // Task sizes scaled with the data, so that every scale factor sorts in several tasks.
    Map<String, String> properties = new java.util.HashMap<>(properties());
    properties.put("target_bytes_per_task", String.valueOf(Math.round(65_536 * scaleFactor() / 0.01)));
    HttpResponse<byte[]> response = stack.post(sql, properties, "application/vnd.apache.arrow.stream");
    assertThat(response.statusCode()).as(new String(response.body())).isEqualTo(200);
    List<List<Object>> actual = new ArrayList<>();
    JsonNode summary;
    if (response.headers().firstValue("content-type").orElse("").contains("json")) {
      // A result over the inline cap comes as presigned URLs, in order.
      JsonNode answer = JSON.readTree(response.body());
      for (JsonNode url : answer.get("resultUrls")) {
        HttpResponse<byte[]> part = java.net.http.HttpClient.newHttpClient().send(
            java.net.http.HttpRequest.newBuilder(java.net.URI.create(url.asText())).GET().build(),
            HttpResponse.BodyHandlers.ofByteArray());
        assertThat(part.statusCode()).isEqualTo(200);
        actual.addAll(ResultRows.fromArrow(part.body()));
      }
      summary = answer.get("summary");
    } else {
      actual.addAll(ResultRows.fromArrow(response.body()));
      summary = JSON.readTree(response.headers().firstValue("x-squall-summary").orElseThrow());
    }
    List<List<Object>> expected;
    try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      expected = ResultRows.fromJdbc(rs);
    }
    assertThat(actual).hasSameSizeAs(expected);
    assertThat(ResultRows.difference(actual, expected, true)).as("differs from DuckDB").isNull();
    List<String> edges = new ArrayList<>();
    summary.get("stageSummaries").forEach(stage -> edges.add(stage.get("outputEdge").asText()));
    assertThat(edges).contains("range");
    int rootTasks = 0;
    for (JsonNode stage : summary.get("stageSummaries")) {
      if (stage.get("outputEdge").asText().isEmpty()) {
        rootTasks = stage.get("tasks").asInt(); // the root stage feeds no edge: it sorts the ranges
      }
    }
    assertThat(rootTasks).as("tasks of the sorting stage").isGreaterThanOrEqualTo(4);
  }
}

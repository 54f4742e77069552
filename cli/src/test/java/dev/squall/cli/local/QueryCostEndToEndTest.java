package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.coordinator.cost.PriceTable;
import dev.squall.local.s3.S3RequestLog;
import dev.squall.local.tpch.TpchQueries;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The {@code cost} of every summary, checked against the embedded S3's own request log (what the
 * S3 server saw, counted apart from Squall's counting clients), and EXPLAIN ANALYZE of TPC-H Q9
 * checked against the answer's and the tables' row counts as DuckDB computes them over the same
 * data files. TPC-H at SF 0.01.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QueryCostEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ARROW = "application/vnd.apache.arrow.stream";
  /** Joins by hash, so that every join crosses a shuffle. */
  private static final Map<String, String> PROPERTIES = Map.of("default_schema", "tpch", "broadcast_threshold_bytes",
      "1");
  private static final String JOIN = "SELECT o_orderpriority, count(*) AS n FROM orders JOIN lineitem"
      + " ON o_orderkey = l_orderkey WHERE l_commitdate < l_receiptdate GROUP BY o_orderpriority";

  private TestStack stack;
  private Connection duck;

  @BeforeAll
  void start() throws Exception {
    // No sweep: nothing but the query under test may reach S3 while it runs.
    stack = TestStack.startWith(0.01, 20_000, o -> o.withSweepInterval(Duration.ZERO));
    duck = stack.duckDb();
  }

  @AfterAll
  void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void requestCountsEqualWhatTheEmbeddedS3Saw() throws Exception {
    S3RequestLog log = stack.deployment.s3().requestLog();
    log.clear();
    HttpResponse<byte[]> response = stack.post(JOIN, PROPERTIES, ARROW);
    assertThat(response.statusCode()).as(new String(response.body())).isEqualTo(200);
    String jobId = response.headers().firstValue("x-squall-query-id").orElseThrow();
    assertThat(ResultRows.difference(ResultRows.fromArrow(response.body()), ResultRows.fromDuckDb(duck, JOIN), false))
        .isNull();
    JsonNode summary = JSON.readTree(response.headers().firstValue("x-squall-summary").orElseThrow());
    JsonNode cost = summary.path("cost");
    assertThat(summary.path("stageSummaries").findValues("outputEdge")).extracting(JsonNode::asText).contains("hash");

    // The server's view. Left out: the catalog's table metadata (read while planning, through the
    // catalog's own FileIO) and the deletion of the job's objects, which follows its summary.
    List<S3RequestLog.Entry> seen = log.entries(e -> !e.key().contains("/metadata/"));
    Map<String, Long> byKind = new TreeMap<>();
    seen.forEach(e -> byKind.merge(e.kind(), 1L, Long::sum));
    assertThat(seen.stream().filter(e -> e.kind().equals("LIST") || e.kind().equals("DELETE")))
        .as("LIST and DELETE requests are the job's clean-up").allMatch(e -> e.key().contains(jobId)
            || e.query().contains(jobId) || e.query().startsWith("delete"));
    for (String kind : List.of("PUT", "GET", "HEAD")) {
      String field = kind.toLowerCase();
      long counted = cost.path("s3").path(field).asLong() + cost.path("coordinatorS3").path(field).asLong();
      assertThat(counted).as("%s requests in the cost (S3Proxy saw %s)", kind, byKind).isEqualTo(
          byKind.getOrDefault(kind, 0L));
    }
    assertThat(cost.path("s3").path("put").asLong()).isPositive();
    assertThat(cost.path("s3").path("get").asLong()).isPositive();
  }

  @Test
  void everySummaryCarriesANonZeroCost() throws Exception {
    HttpResponse<byte[]> sync = stack.post(JOIN, PROPERTIES, "application/json");
    assertThat(sync.statusCode()).isEqualTo(200);
    checkCost(JSON.readTree(sync.body()).path("summary"));

    HttpResponse<byte[]> arrow = stack.post(JOIN, PROPERTIES, ARROW);
    assertThat(arrow.statusCode()).isEqualTo(200);
    checkCost(JSON.readTree(arrow.headers().firstValue("x-squall-summary").orElseThrow()));

    String id = stack.submitAsync("SELECT count(*) FROM lineitem WHERE l_quantity > 10", PROPERTIES);
    JsonNode status = stack.awaitTerminal(id, Duration.ofMinutes(2));
    assertThat(status.path("state").asText()).isEqualTo("SUCCEEDED");
    checkCost(status.path("summary"));
    HttpResponse<byte[]> result = stack.send("GET", "/v1/queries/" + id + "/result", "application/json");
    assertThat(result.statusCode()).isEqualTo(200);
    checkCost(JSON.readTree(result.body()).path("summary"));
  }

  /** Non-zero figures, and dollars as docs/cost.md computes them from the figures at the default prices. */
  private static void checkCost(JsonNode summary) {
    JsonNode c = summary.path("cost");
    assertThat(c.isObject()).as("summary %s has a cost", summary).isTrue();
    assertThat(c.path("taskGbSeconds").asDouble()).isPositive();
    assertThat(c.path("coordinatorGbSeconds").asDouble()).isPositive();
    assertThat(c.path("invocations").asLong()).isEqualTo(summary.path("attempts").asLong()
        + c.path("coordinatorInvocations").asLong()).isPositive();
    assertThat(c.path("jobStoreReads").asLong()).isPositive();
    assertThat(c.path("jobStoreWrites").asLong()).isPositive();
    assertThat(c.path("dollars").asDouble()).isPositive();
    long put = 0;
    long get = 0;
    for (String side : List.of("s3", "coordinatorS3")) {
      JsonNode r = c.path(side);
      put += r.path("put").asLong() + r.path("list").asLong();
      get += r.path("get").asLong() + r.path("head").asLong();
    }
    assertThat(put + get).isPositive();
    PriceTable p = PriceTable.DEFAULT;
    double expected = (c.path("taskGbSeconds").asDouble() + c.path("coordinatorGbSeconds").asDouble())
        * 0.0000133334 + c.path("invocations").asLong() * 0.20e-6 + put * 0.005e-3 + get * 0.0004e-3
        + c.path("jobStoreReads").asLong() * 0.125e-6 + c.path("jobStoreWrites").asLong() * 0.625e-6;
    assertThat(c.path("dollars").asDouble()).isCloseTo(expected, Percentage.withPercentage(1e-6));
    assertThat(c.path("priceTable").asText()).isEqualTo(p.name());
  }

  @Test
  void explainAnalyzeOfQ9ShowsTheRowsThatRan() throws Exception {
    String q9 = TpchQueries.text(9);
    // Without runtime filters, so that each scan's rows are its table's (a filter drops rows in the scan).
    Map<String, String> unfiltered = new java.util.HashMap<>(PROPERTIES);
    unfiltered.put("runtime_filters", "false");
    HttpResponse<byte[]> response = stack.post("EXPLAIN ANALYZE " + q9, unfiltered, ARROW);
    assertThat(response.statusCode()).as(new String(response.body())).isEqualTo(200);
    String plan = ResultRows.fromArrow(response.body()).get(0).get(0).toString();
    long resultRows = duckCount("SELECT count(*) FROM (" + TpchDialect.forDuckDb(q9).replaceAll(";\\s*$", "") + ")");

    Map<Integer, Long> stageRowsOut = new TreeMap<>();
    Map<Integer, Long> shuffleReadRows = new TreeMap<>();
    Map<String, Long> scanRows = new TreeMap<>();
    long filterRows = -1;
    int rootStage = -1;
    int stage = -1;
    for (String line : plan.split("\n")) {
      Matcher m;
      if ((m = STAGE.matcher(line)).find()) {
        stage = Integer.parseInt(m.group(1));
        rootStage = m.group(2) != null ? stage : rootStage;
      } else if ((m = ACTUAL.matcher(line)).find()) {
        stageRowsOut.put(stage, Long.parseLong(m.group(2)));
      } else if ((m = OPERATOR_ROWS.matcher(line)).find()) {
        long out = Long.parseLong(m.group(2));
        Matcher read = SHUFFLE_READ.matcher(line);
        Matcher scan = SCAN.matcher(line);
        if (read.find()) {
          shuffleReadRows.merge(Integer.parseInt(read.group(1)), out, Long::sum);
        } else if (scan.find()) {
          assertThat(line).as("the scans of Q9 filter nothing themselves").doesNotContain("filter");
          scanRows.put(scan.group(1), out);
        } else if (line.contains("Filter LIKE(p_name, '%green%')")) {
          filterRows = out;
        }
      }
    }
    assertThat(rootStage).as(plan).isNotNegative();
    assertThat(stageRowsOut.get(rootStage)).as("root stage rows = Q9's row count (DuckDB)\n%s", plan)
        .isEqualTo(resultRows);
    // Every producer's rows out reach its consumer's shuffle read (hash and single edges, no broadcast).
    shuffleReadRows.forEach((producer, rows) -> assertThat(rows).as("rows read from stage %d", producer)
        .isEqualTo(stageRowsOut.get(producer)));
    assertThat(scanRows.keySet()).containsExactlyInAnyOrder("lineitem", "orders", "part", "partsupp", "supplier",
        "nation");
    for (Map.Entry<String, Long> scan : scanRows.entrySet()) {
      assertThat(scan.getValue()).as("rows scanned from %s", scan.getKey())
          .isEqualTo(duckCount("SELECT count(*) FROM " + scan.getKey()));
    }
    assertThat(filterRows).isEqualTo(duckCount("SELECT count(*) FROM part WHERE p_name LIKE '%green%'"));
    assertThat(plan).containsPattern("Cost: \\$0\\.\\d+ \\(aws-us-east-1-");
  }

  private static final Pattern STAGE = Pattern.compile("^Stage (\\d+)( \\[root\\])?:");
  private static final Pattern ACTUAL = Pattern.compile("^  actual: .* rows in=(\\d+) out=(\\d+) ");
  private static final Pattern OPERATOR_ROWS = Pattern.compile("\\[rows in=(\\d+) out=(\\d+) wall=\\d+ms[^\\]]*\\]$");
  private static final Pattern SHUFFLE_READ = Pattern.compile("^\\s+ShuffleRead input=\\d+ <- stage (\\d+) ");
  private static final Pattern SCAN = Pattern.compile("^\\s+Scan tpch\\.(\\w+) ");

  private long duckCount(String sql) throws Exception {
    try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}

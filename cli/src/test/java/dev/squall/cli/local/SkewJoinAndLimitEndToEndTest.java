package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Skew splitting of join partitions and LIMIT early stop through the whole local stack (TPC-H SF
 * 0.01, lineitem in 30 data files of 2,000 rows).
 *
 * <p>Skew: lineitem joins nation on {@code case when l_linenumber <= 6 then 0 else l_suppkey % 25
 * end}, so that key 0 holds about 95% of lineitem's rows; with hash joins only and low skew
 * settings the join's skewed partition is split across tasks by lineitem's map tasks, and the
 * answers of the inner, left (lineitem the left side) and semi joins are DuckDB's.
 *
 * <p>LIMIT: {@code select ... from lineitem limit 10} runs one scan task of the 30 (planned from
 * the manifests' record counts), with a filter the scan tasks start in waves and stop once enough
 * rows came; every row returned is a row of the table (and passes the filter), and ORDER BY ...
 * LIMIT still reads everything and answers exactly.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SkewJoinAndLimitEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ARROW = "application/vnd.apache.arrow.stream";
  /** Small tasks, hash joins only (nothing broadcast), low skew settings. */
  private static final Map<String, String> SKEWED = Map.of("target_split_size_bytes", "65536",
      "target_bytes_per_task", "65536", "broadcast_threshold_bytes", "0", "adaptive_target_partition_bytes",
      "65536", "skew_factor", "5", "skew_min_partition_bytes", "65536");
  private static final String KEY = "(case when l_linenumber <= 6 then 0 else l_suppkey % 25 end)";
  private static final String INNER = "select n_name, count(*) as n, sum(l_quantity) as q from tpch.lineitem"
      + " join tpch.nation on " + KEY + " = n_nationkey group by n_name";
  private static final String LEFT = "select nn.n_name, count(*) as n, sum(l_quantity) as q from tpch.lineitem"
      + " left join (select n_nationkey, n_name from tpch.nation where n_nationkey < 20) nn on " + KEY
      + " = nn.n_nationkey group by nn.n_name";
  private static final String SEMI = "select l_returnflag, count(*) as n, sum(l_quantity) as q from tpch.lineitem"
      + " where " + KEY + " in (select n_nationkey from tpch.nation where n_regionkey < 3) group by l_returnflag";
  private static final String COLUMNS = "l_orderkey, l_linenumber, l_quantity, l_comment";

  private TestStack stack;
  private Connection duck;

  @BeforeAll
  void start() throws Exception {
    stack = TestStack.startWith(0.01, 2_000, o -> o.withSweepInterval(Duration.ZERO));
    duck = stack.duckDb();
  }

  @AfterAll
  void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
  }

  private static Map<String, String> with(Map<String, String> base, String name, String value) {
    Map<String, String> p = new HashMap<>(base);
    p.put(name, value);
    return p;
  }

  private HttpResponse<byte[]> post(String sql, Map<String, String> properties) throws Exception {
    HttpResponse<byte[]> r = stack.post(sql, properties, ARROW);
    assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(200);
    return r;
  }

  private static JsonNode summary(HttpResponse<byte[]> r) throws Exception {
    return JSON.readTree(r.headers().firstValue("x-squall-summary").orElseThrow());
  }

  /** Runs {@code sql}, checks its answer against DuckDB's, and returns its summary. */
  private JsonNode runAsDuckDb(String sql, Map<String, String> properties, boolean ordered) throws Exception {
    HttpResponse<byte[]> r = post(sql, properties);
    assertThat(ResultRows.difference(ResultRows.fromArrow(r.body()),
        ResultRows.fromDuckDb(duck, sql.replace("tpch.", "")), ordered)).as("differs from DuckDB: " + sql).isNull();
    return summary(r);
  }

  private static int skewedPartitionsSplit(JsonNode summary) {
    int split = 0;
    for (JsonNode s : summary.get("stageSummaries")) {
      split += s.path("skewedPartitionsSplit").asInt(0);
    }
    return split;
  }

  /** Tasks of every stage that reads no scan, by stage id. */
  private static Map<Integer, Integer> shuffleReadingTasks(JsonNode summary) {
    Map<Integer, Integer> tasks = new HashMap<>();
    for (JsonNode s : summary.get("stageSummaries")) {
      if (!s.path("scans").asBoolean()) {
        tasks.put(s.get("stageId").asInt(), s.get("tasks").asInt());
      }
    }
    return tasks;
  }

  /** Tasks of the stages that scan, summed. */
  private static int scanTasks(JsonNode summary) {
    int tasks = 0;
    for (JsonNode s : summary.get("stageSummaries")) {
      tasks += s.path("scans").asBoolean() ? s.get("tasks").asInt() : 0;
    }
    return tasks;
  }

  @Test
  void theSkewedPartitionOfInnerLeftAndSemiJoinsIsSplitAndTheAnswersAreDuckDbs() throws Exception {
    for (String sql : List.of(INNER, LEFT, SEMI)) {
      JsonNode split = runAsDuckDb(sql, SKEWED, false);
      JsonNode unsplit = runAsDuckDb(sql, with(SKEWED, "skew_factor", "0"), false);

      assertThat(skewedPartitionsSplit(split)).as("%s: %s", sql, split).isGreaterThanOrEqualTo(1);
      assertThat(skewedPartitionsSplit(unsplit)).isZero();
      int splitTasks = shuffleReadingTasks(split).values().stream().mapToInt(Integer::intValue).sum();
      int unsplitTasks = shuffleReadingTasks(unsplit).values().stream().mapToInt(Integer::intValue).sum();
      assertThat(splitTasks).as("%s: the pieces of the split partition run as tasks of their own", sql)
          .isGreaterThan(unsplitTasks);
    }
  }

  @Test
  void explainAnalyzeSaysHowManyPartitionsWereSplit() throws Exception {
    HttpResponse<byte[]> r = post("EXPLAIN ANALYZE " + INNER, SKEWED);
    String plan = ResultRows.fromArrow(r.body()).get(0).get(0).toString();
    assertThat(plan).contains("skewed partitions split=");
  }

  /** Every row is a distinct row of {@code source} (DuckDB), by (l_orderkey, l_linenumber). */
  private void assertRowsOf(List<List<Object>> rows, String source) throws Exception {
    Map<String, List<Object>> table = new HashMap<>();
    for (List<Object> row : ResultRows.fromDuckDb(duck, source)) {
      table.put(ResultRows.normalize(row.get(0)) + "/" + ResultRows.normalize(row.get(1)), row);
    }
    Set<String> seen = new HashSet<>();
    for (List<Object> row : rows) {
      String key = ResultRows.normalize(row.get(0)) + "/" + ResultRows.normalize(row.get(1));
      assertThat(seen.add(key)).as("row %s twice", key).isTrue();
      assertThat(table).as("row %s", row).containsKey(key);
      assertThat(ResultRows.difference(List.of(row), List.of(table.get(key)), true)).isNull();
    }
  }

  @Test
  void aLimitWithoutFilterRunsOnlyTheScanTasksItsRowsNeed() throws Exception {
    Map<String, String> small = Map.of("target_split_size_bytes", "65536");
    JsonNode all = summary(post("select " + COLUMNS + " from tpch.lineitem", small));
    HttpResponse<byte[]> r = post("select " + COLUMNS + " from tpch.lineitem limit 10", small);
    JsonNode limited = summary(r);
    List<List<Object>> rows = ResultRows.fromArrow(r.body());

    assertThat(rows).hasSize(10);
    assertRowsOf(rows, "select " + COLUMNS + " from lineitem");
    assertThat(scanTasks(all)).isGreaterThanOrEqualTo(10);
    assertThat(scanTasks(limited)).as("%s", limited).isEqualTo(1);
    assertThat(limited.get("bytesScanned").asLong() * 5).isLessThan(all.get("bytesScanned").asLong());
  }

  @Test
  void aLimitWithAFilterStopsStartingScanTasksOnceItHasItsRows() throws Exception {
    Map<String, String> small = Map.of("target_split_size_bytes", "65536");
    String where = " from tpch.lineitem where l_quantity > 10 and l_comment like '%a%'";
    JsonNode all = summary(post("select " + COLUMNS + where, small));
    for (String tail : List.of(" limit 10", " limit 3000 offset 500")) {
      HttpResponse<byte[]> r = post("select " + COLUMNS + where + tail, small);
      JsonNode limited = summary(r);
      List<List<Object>> rows = ResultRows.fromArrow(r.body());

      assertThat(rows).hasSize(tail.contains("3000") ? 3000 : 10);
      assertRowsOf(rows, "select " + COLUMNS + where.replace("tpch.", ""));
      assertThat(scanTasks(limited)).as("%s: %s", tail, limited).isLessThan(scanTasks(all) / 2);
      assertThat(limited.get("bytesScanned").asLong() * 2).isLessThan(all.get("bytesScanned").asLong());
    }
  }

  @Test
  void orderByLimitStillReadsEveryTaskAndAnswersExactly() throws Exception {
    Map<String, String> small = Map.of("target_split_size_bytes", "65536");
    String sql = "select " + COLUMNS + " from tpch.lineitem where l_quantity > 10 order by l_orderkey desc,"
        + " l_linenumber limit 10";
    JsonNode summary = runAsDuckDb(sql, small, true);
    JsonNode all = summary(post("select count(l_comment) from tpch.lineitem where l_quantity > 10", small));
    assertThat(scanTasks(summary)).isEqualTo(scanTasks(all));
  }
}

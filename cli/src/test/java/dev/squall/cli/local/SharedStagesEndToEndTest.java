package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A subquery the plan holds twice runs once, through the whole local stack: its stage feeds both
 * consumers from one shuffle output, and the answers equal DuckDB's over the same data files.
 * Lineitem is split into several files, so that the shared stage runs several tasks.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SharedStagesEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ARROW = "application/vnd.apache.arrow.stream";
  /** TPC-H Q15's shape: the view joined to supplier and under its own maximum. */
  private static final String VIEW_TWICE = "with revenue as (select l_suppkey as supplier_no,"
      + " sum(l_extendedprice * (1 - l_discount)) as total from tpch.lineitem"
      + " where l_shipdate >= date '1996-01-01' and l_shipdate < date '1996-04-01' group by l_suppkey)"
      + " select s_suppkey, s_name, total from tpch.supplier, revenue"
      + " where s_suppkey = supplier_no and total = (select max(total) from revenue) order by s_suppkey";
  /** One grouped subquery joined to itself, and read a third time under a count. */
  private static final String SELF_JOIN = "with q as (select l_orderkey as k, sum(l_quantity) as n"
      + " from tpch.lineitem group by l_orderkey)"
      + " select count(*) as pairs, sum(a.n - b.n) as diff, (select count(*) from q) as keys"
      + " from q a join q b on a.k = b.k + 1";

  private TestStack stack;
  private Connection duck;

  @BeforeAll
  void start() throws Exception {
    stack = TestStack.start(0.01, 10_000, UnaryOperator.identity());
    duck = stack.duckDb();
  }

  @AfterAll
  void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
  }

  private void assertAnswersAsDuckDb(String sql) throws Exception {
    HttpResponse<byte[]> r = stack.post(sql, Map.of(), ARROW);
    assertThat(r.statusCode()).as(new String(r.body(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo(200);
    assertThat(ResultRows.difference(ResultRows.fromArrow(r.body()),
        ResultRows.fromDuckDb(duck, sql.replace("tpch.", "")), false)).as("differs from DuckDB").isNull();
  }

  private String explain(String sql) throws Exception {
    HttpResponse<byte[]> r = stack.post("explain " + sql, Map.of(), ARROW);
    assertThat(r.statusCode()).isEqualTo(200);
    return String.valueOf(ResultRows.fromArrow(r.body()).get(0).get(0));
  }

  /** The number of edges out of each stage that feeds more than one, from EXPLAIN's edge list. */
  private static Map<Integer, Integer> sharedStages(String explain) {
    Map<Integer, Integer> out = new java.util.HashMap<>();
    Matcher m = Pattern.compile("(?m)^  stage (\\d+) -> stage \\d+ input").matcher(explain);
    while (m.find()) {
      out.merge(Integer.parseInt(m.group(1)), 1, Integer::sum);
    }
    out.values().removeIf(n -> n < 2);
    return out;
  }

  @Test
  void aViewReadTwiceScansLineitemOnceAndAnswersAsDuckDb() throws Exception {
    String plan = explain(VIEW_TWICE);
    assertThat(plan.split("Scan tpch.lineitem", -1)).as(plan).hasSize(2);
    assertThat(sharedStages(plan)).as(plan).hasSize(1).containsValue(2);
    assertAnswersAsDuckDb(VIEW_TWICE);
  }

  @Test
  void aGroupedSubqueryJoinedToItselfAndCountedAnswersAsDuckDb() throws Exception {
    String plan = explain(SELF_JOIN);
    assertThat(sharedStages(plan)).as(plan).isNotEmpty();
    assertAnswersAsDuckDb(SELF_JOIN);
    HttpResponse<byte[]> r = stack.post(SELF_JOIN, Map.of(), ARROW);
    JsonNode summary = JSON.readTree(r.headers().firstValue("x-squall-summary").orElseThrow());
    // Every stage ran: none waits for a consumer that never reads it.
    assertThat(summary.get("stages").asInt()).isEqualTo(summary.get("stageSummaries").size());
  }
}

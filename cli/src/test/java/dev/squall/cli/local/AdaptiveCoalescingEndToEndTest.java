package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Adaptive coalescing through the whole local stack (TPC-H SF 0.01): queries planned with tiny
 * tasks ({@code target_bytes_per_task} 64 KiB) run their hash-reading stages in as few tasks as
 * their measured shuffle bytes need, and answer as DuckDB does over the same data files; with
 * {@code adaptive_target_partition_bytes = 0} the same queries run the planned tasks.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdaptiveCoalescingEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ARROW = "application/vnd.apache.arrow.stream";
  private static final String JSON_TYPE = "application/json";
  /** Many small planned tasks, and hash joins (nothing is broadcast). */
  private static final Map<String, String> SMALL = Map.of("target_split_size_bytes", "65536",
      "target_bytes_per_task", "65536", "broadcast_threshold_bytes", "0");
  private static final String AGGREGATE = "select l_returnflag, l_linestatus, count(*) as n, sum(l_quantity) as q,"
      + " avg(l_discount) as d from tpch.lineitem group by l_returnflag, l_linestatus";
  private static final String JOIN = "select o_orderstatus, count(*) as n, sum(l_quantity) as q"
      + " from tpch.lineitem join tpch.orders on l_orderkey = o_orderkey group by o_orderstatus";
  private static final Pattern STAGE = Pattern.compile("^Stage (\\d+)( \\[root\\])?: tasks=(\\d+)");
  private static final Pattern ACTUAL = Pattern.compile("^  actual: tasks=(\\d+) ");

  private TestStack stack;
  private Connection duck;

  @BeforeAll
  void start() throws Exception {
    stack = TestStack.startWith(0.01, 5_000, o -> o.withSweepInterval(Duration.ZERO));
    duck = stack.duckDb();
  }

  @AfterEach
  void noFaultsLeft() throws Exception {
    stack.installFaults("{\"rules\": []}");
  }

  @AfterAll
  void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
  }

  private static Map<String, String> with(String name, String value) {
    Map<String, String> p = new HashMap<>(SMALL);
    p.put(name, value);
    return p;
  }

  /** Runs {@code sql}, checks its answer against DuckDB's, and returns its summary. */
  private JsonNode runAsDuckDb(String sql, Map<String, String> properties) throws Exception {
    HttpResponse<byte[]> r = stack.post(sql, properties, ARROW);
    assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(200);
    assertThat(ResultRows.difference(ResultRows.fromArrow(r.body()),
        ResultRows.fromDuckDb(duck, sql.replace("tpch.", "")), false)).as("differs from DuckDB").isNull();
    return JSON.readTree(r.headers().firstValue("x-squall-summary").orElseThrow());
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

  @Test
  void anAggregationOverTinyPartitionsRunsItsFinalStageInOneTask() throws Exception {
    Map<Integer, Integer> planned = shuffleReadingTasks(runAsDuckDb(AGGREGATE,
        with("adaptive_target_partition_bytes", "0")));
    Map<Integer, Integer> coalesced = shuffleReadingTasks(runAsDuckDb(AGGREGATE, SMALL));

    assertThat(planned).as("the planned final aggregation").hasSize(1).allSatisfy((stage, n) ->
        assertThat(n).isGreaterThan(1));
    assertThat(coalesced).as("four groups' partial rows fit one task").isEqualTo(Map.of(
        planned.keySet().iterator().next(), 1));
  }

  @Test
  void explainAnalyzeShowsThePlannedAndTheActualTasks() throws Exception {
    HttpResponse<byte[]> r = stack.post("EXPLAIN ANALYZE " + AGGREGATE, SMALL, ARROW);
    assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(200);
    String plan = ResultRows.fromArrow(r.body()).get(0).get(0).toString();
    int plannedRoot = -1;
    int actualRoot = -1;
    boolean inRoot = false;
    for (String line : plan.split("\n")) {
      Matcher m;
      if ((m = STAGE.matcher(line)).find()) {
        inRoot = m.group(2) != null;
        plannedRoot = inRoot ? Integer.parseInt(m.group(3)) : plannedRoot;
      } else if (inRoot && (m = ACTUAL.matcher(line)).find()) {
        actualRoot = Integer.parseInt(m.group(1));
      }
    }
    assertThat(plannedRoot).as(plan).isGreaterThan(1);
    assertThat(actualRoot).as(plan).isEqualTo(1);
  }

  @Test
  void aJoinOfCoalescedPartitionsAnswersAsDuckDb() throws Exception {
    Map<Integer, Integer> planned = shuffleReadingTasks(runAsDuckDb(JOIN, with("adaptive_target_partition_bytes",
        "0")));
    // A target below the join's shuffle bytes, so that the join runs in a few tasks, not one.
    Map<Integer, Integer> coalesced = shuffleReadingTasks(runAsDuckDb(JOIN, with("adaptive_target_partition_bytes",
        "131072")));

    assertThat(coalesced.keySet()).isEqualTo(planned.keySet());
    int join = planned.keySet().stream().min(Integer::compare).orElseThrow(); // the join comes before the final aggregation
    assertThat(coalesced.get(join)).as("join tasks, %s planned", planned).isGreaterThan(1)
        .isLessThan(planned.get(join));
  }

  @Test
  void aCrashedTaskOfACoalescedStageIsRetriedAndTheAnswerIsDuckDbs() throws Exception {
    Map<String, String> properties = with("adaptive_target_partition_bytes", "131072");
    JsonNode first = runAsDuckDb(JOIN, properties);
    int join = shuffleReadingTasks(first).keySet().stream().min(Integer::compare).orElseThrow();
    stack.installFaults("{\"rules\": [{\"target\": \"task\", \"stage\": " + join
        + ", \"partition\": 1, \"attempt\": 0, \"action\": \"crash\"}]}");

    JsonNode summary = runAsDuckDb(JOIN, properties);

    assertThat(stack.deployment.faults().plan().fired()).as("the fault acted").isEqualTo(1);
    assertThat(summary.get("attempts").asInt()).isEqualTo(summary.get("tasks").asInt() + 1);
    assertThat(shuffleReadingTasks(summary)).isEqualTo(shuffleReadingTasks(first));
  }

  @Test
  void aTargetOutsideItsRangeIsRefused() throws Exception {
    HttpResponse<byte[]> r = stack.post(AGGREGATE, with("adaptive_target_partition_bytes", "-1"), JSON_TYPE);
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(new String(r.body())).contains("adaptive_target_partition_bytes");
  }
}

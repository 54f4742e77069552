package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The adaptive broadcast join through the whole local stack (TPC-H SF 0.01, 1,000 rows a data
 * file): with a broadcast threshold of 1 KiB the planner partitions the join of lineitem with the
 * orders of one day (its estimate of those orders is far above that), but the orders side measures a
 * few hundred bytes once written, so lineitem's stage takes the join over and is never shuffled;
 * with {@code adaptive_broadcast_join_bytes} 0 the partitioned join runs. Both answer as DuckDB does,
 * as do joins the switch must refuse (FULL, an aggregation needing every row of a key).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdaptiveBroadcastJoinEndToEndTest {
  private static final String ARROW = "application/vnd.apache.arrow.stream";
  private static final String ONE_DAY = "(select * from tpch.orders where o_orderdate = date '1995-03-15') o";

  private TestStack stack;
  private Connection duck;

  @BeforeAll
  void start() throws Exception {
    stack = TestStack.startWith(0.01, 1_000, o -> o.withSweepInterval(Duration.ZERO));
    duck = stack.duckDb();
  }

  @AfterAll
  void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
  }

  /** Properties that make the planner partition the join; {@code adaptive}: the switch's threshold. */
  private static Map<String, String> props(long adaptive) {
    Map<String, String> p = new HashMap<>(Map.of("target_split_size_bytes", "65536",
        "target_bytes_per_task", "1048576", "broadcast_threshold_bytes", "1024"));
    p.put("adaptive_broadcast_join_bytes", Long.toString(adaptive));
    return p;
  }

  /** Runs {@code sql}, checks its answer against DuckDB's, and returns its summary. */
  private JsonNode runAsDuckDb(String sql, Map<String, String> properties) throws Exception {
    return stack.summaryAnsweringAsDuckDb(duck, sql, properties);
  }

  private static int switched(JsonNode summary) {
    int n = 0;
    for (JsonNode s : summary.get("stageSummaries")) {
      n += s.path("broadcastSwitched").asBoolean() ? 1 : 0;
    }
    return n;
  }

  private static long tasks(JsonNode summary) {
    long n = 0;
    for (JsonNode s : summary.get("stageSummaries")) {
      n += s.path("attempts").asLong();
    }
    return n;
  }

  /**
   * Runs the query switched and not; asserts one stage fewer and fewer tasks, and with
   * {@code runtimeFilters} false (a runtime filter would already shrink the probe side's shuffle to
   * its few matching rows) far fewer shuffled bytes.
   */
  private void switchesAndSavesTheProbeShuffle(String sql, boolean runtimeFilters) throws Exception {
    Map<String, String> off = props(0);
    Map<String, String> on = props(1L << 20);
    off.put("runtime_filters", Boolean.toString(runtimeFilters));
    on.put("runtime_filters", Boolean.toString(runtimeFilters));
    switchesAndSavesTheProbeShuffle(sql, runAsDuckDb(sql, off), runAsDuckDb(sql, on), !runtimeFilters);
  }

  private static void switchesAndSavesTheProbeShuffle(String sql, JsonNode off, JsonNode on, boolean probeShuffled) {
    System.out.printf("adaptive broadcast join: stages %d -> %d, task attempts %d -> %d, bytes shuffled %d -> %d: %s%n",
        off.get("stages").asInt(), on.get("stages").asInt(), tasks(off), tasks(on), off.get("bytesShuffled").asLong(),
        on.get("bytesShuffled").asLong(), sql);
    assertThat(switched(off)).isZero();
    assertThat(switched(on)).isEqualTo(1);
    assertThat(on.get("stages").asInt()).isEqualTo(off.get("stages").asInt() - 1);
    assertThat(tasks(on)).isLessThan(tasks(off));
    // Off, lineitem's rows cross a hash edge; on, only the join's aggregated output leaves its stage.
    if (probeShuffled) {
      assertThat(on.get("bytesShuffled").asLong() * 4).isLessThan(off.get("bytesShuffled").asLong());
    }
    for (JsonNode s : on.get("stageSummaries")) {
      if (s.path("broadcastSwitched").asBoolean()) {
        assertThat(s.get("scans").asBoolean()).as("the probe scan's stage took the join over").isTrue();
      }
    }
  }

  /** Both aggregates over the join: the join stage holds the partial aggregation (a count alone runs in one task). */
  private static final String INNER = "select count(*) as n, sum(l_extendedprice * (1 - l_discount)) as revenue"
      + " from tpch.lineitem join " + ONE_DAY + " on l_orderkey = o_orderkey";

  @Test
  void anInnerJoinWithASmallFilteredBuildSideRunsAsABroadcastJoin() throws Exception {
    switchesAndSavesTheProbeShuffle(INNER, false);
    // With its runtime filter the probe stage waits for the build stage anyway; it still switches.
    switchesAndSavesTheProbeShuffle(INNER, true);
  }

  @Test
  void aLeftJoinBroadcastsItsSmallRightSide() throws Exception {
    switchesAndSavesTheProbeShuffle("select count(*) as n, count(o_orderkey) as matched, sum(l_quantity) as q"
        + " from tpch.lineitem left join " + ONE_DAY + " on l_orderkey = o_orderkey", false);
  }

  @Test
  void explainAnalyzeSaysWhichJoinWasSwitched() throws Exception {
    HttpResponse<byte[]> r = stack.post("EXPLAIN ANALYZE " + INNER, props(1L << 20), ARROW);
    assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(200);
    String plan = ResultRows.fromArrow(r.body()).get(0).get(0).toString();
    assertThat(plan).contains("broadcast switched: runs the partitioned join planned as stage");
  }

  @Test
  void joinsTheSwitchMustRefuseStayPartitionedAndAnswerAsDuckDb() throws Exception {
    // FULL: the build side's unmatched rows would be emitted by every probe task.
    JsonNode full = runAsDuckDb("select count(*) as n, count(o_orderkey) as o, count(l_orderkey) as l"
        + " from tpch.lineitem full join " + ONE_DAY + " on l_orderkey = o_orderkey", props(1L << 20));
    assertThat(switched(full)).isZero();
    // A window over the join needs every row of its partition in one task.
    JsonNode window = runAsDuckDb("select l_orderkey, l_linenumber, count(*) over (partition by l_orderkey) as c"
        + " from tpch.lineitem join " + ONE_DAY + " on l_orderkey = o_orderkey", props(1L << 20));
    assertThat(switched(window)).isZero();
    // A count alone over the join: planned as one task whose single-step aggregation needs every row.
    JsonNode count = runAsDuckDb("select count(*) as n from tpch.lineitem join " + ONE_DAY
        + " on l_orderkey = o_orderkey", props(1L << 20));
    assertThat(switched(count)).isZero();
  }
}

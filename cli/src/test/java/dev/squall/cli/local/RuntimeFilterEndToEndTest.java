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
 * Runtime filters through the whole local stack (TPC-H SF 0.01, 1,000 rows a data file, so lineitem
 * has 60 row groups in order of l_orderkey): a join of lineitem with the orders of one day reads a
 * small fraction of lineitem's row groups with the filter on, all of them with it off, and answers as
 * DuckDB does both ways; joins where a careless filter would be wrong answer as DuckDB too.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RuntimeFilterEndToEndTest {
  private static final String ARROW = "application/vnd.apache.arrow.stream";
  /** A star join on a filtered dimension: about six orders of one day, scattered over the key range. */
  static final String ONE_DAY = "select count(*) as n, sum(l_extendedprice * (1 - l_discount)) as revenue,"
      + " min(l_orderkey) as lo, max(l_orderkey) as hi"
      + " from tpch.lineitem join tpch.orders on l_orderkey = o_orderkey where o_orderdate = date '1995-03-15'";

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

  private static Map<String, String> props(String... kv) {
    Map<String, String> p = new HashMap<>(Map.of("target_split_size_bytes", "65536"));
    for (int i = 0; i < kv.length; i += 2) {
      p.put(kv[i], kv[i + 1]);
    }
    return p;
  }

  /** Runs {@code sql}, checks its answer against DuckDB's, and returns its summary. */
  private JsonNode runAsDuckDb(String sql, Map<String, String> properties) throws Exception {
    return stack.summaryAnsweringAsDuckDb(duck, sql, properties);
  }

  /** Row groups read by the stage that has the most row groups (the probe scan's), and that total. */
  private static long[] probeRowGroups(JsonNode summary) {
    long[] best = {0, 0, 0, 0};
    for (JsonNode s : summary.get("stageSummaries")) {
      if (s.path("rowGroups").asLong() > best[1]) {
        best = new long[] {s.path("rowGroupsRead").asLong(), s.path("rowGroups").asLong(),
            s.path("runtimeFilterRowGroupsSkipped").asLong(), s.path("runtimeFilterRowsDropped").asLong()};
      }
    }
    return best;
  }

  private void cutsTheProbeScan(Map<String, String> base) throws Exception {
    Map<String, String> off = new HashMap<>(base);
    off.put("runtime_filters", "false");
    long[] unfiltered = probeRowGroups(runAsDuckDb(ONE_DAY, off));
    long[] filtered = probeRowGroups(runAsDuckDb(ONE_DAY, base));
    System.out.printf("runtime filter %s: lineitem row groups read %d of %d (skipped by the filter %d, rows dropped %d);"
        + " off: %d of %d%n", base, filtered[0], filtered[1], filtered[2], filtered[3], unfiltered[0], unfiltered[1]);
    assertThat(unfiltered[1]).as("lineitem's row groups").isGreaterThanOrEqualTo(50);
    assertThat(unfiltered[0]).as("all read without the filter").isEqualTo(unfiltered[1]);
    assertThat(unfiltered[2]).isZero();
    assertThat(filtered[0] * 5).as("at least a 5x cut in row groups read").isLessThanOrEqualTo(unfiltered[0]);
    assertThat(filtered[2]).isEqualTo(filtered[1] - filtered[0]);
  }

  @Test
  void aBroadcastJoinOnAFilteredDimensionReadsAFractionOfTheFactsRowGroups() throws Exception {
    cutsTheProbeScan(props());
  }

  @Test
  void aPartitionedJoinWaitsForItsBuildSideAndReadsAFractionOfTheFactsRowGroups() throws Exception {
    cutsTheProbeScan(props("broadcast_threshold_bytes", "0", "target_bytes_per_task", "1048576"));
  }

  @Test
  void explainAnalyzeShowsTheFilterAndWhatItSaved() throws Exception {
    HttpResponse<byte[]> r = stack.post("EXPLAIN ANALYZE " + ONE_DAY, props(), ARROW);
    assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(200);
    String plan = ResultRows.fromArrow(r.body()).get(0).get(0).toString();
    assertThat(plan).contains("Runtime filters:").contains("runtime filter: skipped row groups=");
  }

  @Test
  void joinsWhereACarelessFilterWouldBeWrongAnswerAsDuckDb() throws Exception {
    for (Map<String, String> p : java.util.List.of(props(), props("broadcast_threshold_bytes", "0"))) {
      // The preserved side is the probe side: no filter may drop its rows.
      runAsDuckDb("select count(*) as n, count(o_orderkey) as matched, sum(l_quantity) as q from tpch.lineitem"
          + " left join (select * from tpch.orders where o_orderdate = date '1995-03-15') o on l_orderkey = o_orderkey", p);
      runAsDuckDb("select count(*) as n, count(o_orderkey) as matched from"
          + " (select * from tpch.orders where o_orderdate = date '1995-03-15') o right join tpch.lineitem"
          + " on l_orderkey = o_orderkey", p);
      // NULL build keys never match (and must not widen the filter).
      runAsDuckDb("select count(*) as n, sum(l_quantity) as q from tpch.lineitem join"
          + " (select case when o_orderkey % 3 = 0 then null else o_orderkey end as k from tpch.orders"
          + " where o_orderdate = date '1995-03-15') o on l_orderkey = o.k", p);
      // Semi and anti joins, an empty build side, string and date keys.
      runAsDuckDb("select count(*) as n, sum(l_quantity) as q from tpch.lineitem where l_orderkey in"
          + " (select o_orderkey from tpch.orders where o_orderdate = date '1995-03-15')", p);
      runAsDuckDb("select count(*) as n from tpch.lineitem where l_orderkey not in"
          + " (select o_orderkey from tpch.orders where o_orderdate = date '1995-03-15')", p);
      runAsDuckDb("select count(*) as n from tpch.lineitem join tpch.orders on l_orderkey = o_orderkey"
          + " where o_orderdate = date '2100-01-01'", p);
      runAsDuckDb("select count(*) as n, sum(c_acctbal) as b from tpch.customer join tpch.nation on c_nationkey = n_nationkey"
          + " where n_name = 'FRANCE'", p);
      runAsDuckDb("select count(*) as n from tpch.lineitem join"
          + " (select o_orderdate as d from tpch.orders where o_orderkey < 100) o on l_shipdate = o.d", p);
      runAsDuckDb("select count(*) as n from tpch.partsupp join (select p_retailprice from tpch.part where p_size < 5) pr"
          + " on ps_supplycost = pr.p_retailprice", p);
      runAsDuckDb("select count(*) as n, sum(ps_availqty) as q from tpch.partsupp join tpch.part on ps_partkey = p_partkey"
          + " where p_brand = 'Brand#23' and p_container = 'MED BOX'", p);
      runAsDuckDb("select count(*) as n from tpch.lineitem join"
          + " (select o_orderstatus as s, o_orderkey as k from tpch.orders where o_orderdate = date '1995-03-15') o"
          + " on l_linestatus = o.s and l_orderkey = o.k", p);
    }
  }
}

package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;

/**
 * TPC-H at scale factor 0.1 through the local stack with a task memory budget of about 7 MB
 * (a 12 MB task function) and few tasks per stage, so that joins, aggregations and sorts pass
 * their budget and spill: every answer still equals DuckDB's, and the query summaries report the bytes
 * spilled.
 */
class TpchSpillingEndToEndTest extends TpchEndToEndTest {
  private final Map<Integer, Long> spilled = new TreeMap<>();

  @Override
  double scaleFactor() {
    return 0.1;
  }

  @Override
  long rowsPerFile() {
    return 100_000;
  }

  @Override
  UnaryOperator<LocalDeployment.Options> stackOptions() {
    return o -> o.withTaskMemoryMb(12);
  }

  @Override
  boolean scansSplitOverTasks() {
    return false;
  }

  @Override
  Map<String, String> properties() {
    // Hash joins everywhere, and few tasks, so each holds much of its stage's state.
    return Map.of("default_schema", "tpch", "broadcast_threshold_bytes", "1", "target_split_size_bytes", "1048576",
        "target_bytes_per_task", "67108864");
  }

  @Override
  void checkSummary(int n, JsonNode summary) {
    long bytes = summary.get("bytesSpilled").asLong();
    long byStage = 0;
    for (JsonNode s : summary.get("stageSummaries")) {
      byStage += s.get("bytesSpilled").asLong();
    }
    assertThat(byStage).as("Q%d bytes spilled by stage add up", n).isEqualTo(bytes);
    synchronized (spilled) {
      spilled.put(n, bytes);
    }
  }

  /**
   * A non-equi self-join of orders through the nested-loop join, under the 12 MB task function:
   * the answer is DuckDB's.
   */
  @org.junit.jupiter.api.Test
  void nonEquiSelfJoinOfOrdersSpillsBlocksAndEqualsDuckDb() throws Exception {
    String sql = "select o1.o_orderkey, o2.o_orderkey, o2.o_clerk, o2.o_comment from orders o1 join orders o2"
        + " on o2.o_totalprice between o1.o_totalprice - 50 and o1.o_totalprice + 50"
        + " and o2.o_orderkey <> o1.o_orderkey where o1.o_orderkey <= 200";
    java.net.http.HttpResponse<byte[]> response = stack.post(sql, properties(), "application/vnd.apache.arrow.stream");
    assertThat(response.statusCode()).as(new String(response.body())).isEqualTo(200);
    java.util.List<java.util.List<Object>> actual = ResultRows.fromArrow(response.body());
    java.util.List<java.util.List<Object>> expected;
    try (java.sql.Statement st = duck.createStatement(); java.sql.ResultSet rs = st.executeQuery(sql)) {
      expected = ResultRows.fromJdbc(rs);
    }
    assertThat(ResultRows.difference(actual, expected, false)).as(sql).isNull();
    // The plan buffers the filtered side, which fits the budget: this checks the answer through the
    // whole path; the block nested-loop join's spilling is shown by SpillingOperatorsTest.
  }

  @AfterAll
  void queriesWithTheLargestStateSpilled() {
    System.out.println("TPC-H SF 0.1, 12 MB task function: bytes spilled per query " + spilled);
    assertThat(spilled.values().stream().filter(b -> b > 0).count()).as("queries that spilled: %s", spilled)
        .isGreaterThanOrEqualTo(3);
  }
}

package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Grouping sets, ordered-set and string aggregates and scalar sub-queries through the whole local
 * stack over TPC-H SF 0.01 (small splits, so every aggregation runs over several tasks and a hash
 * edge), each answer compared with DuckDB's over the same data files. Inputs hold NULLs in keys
 * and values (so a NULL key and a rolled-up key are told apart by GROUPING), empty input and
 * groups whose values are all NULL.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GroupingEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  /**
   * Orders with NULLs: k key, s status (NULL every 7th), p priority, t DOUBLE price, sp a small
   * integer (NULL every 5th), c clerk (NULL for status 'P', so a whole group is NULL).
   */
  private static final String ORDERS = "(select o_orderkey k, case when o_orderkey % 7 = 0 then null else o_orderstatus end s,"
      + " o_orderpriority p, cast(o_totalprice as double) t, case when o_orderkey % 5 = 0 then null else o_orderkey % 13 end sp,"
      + " case when o_orderstatus = 'P' then null else o_clerk end c from orders) o";

  private TestStack stack;
  private Connection duck;

  @BeforeAll
  void start() throws Exception {
    stack = TestStack.start(0.01, 4000, UnaryOperator.identity());
    duck = stack.duckDb();
  }

  @AfterAll
  void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
  }

  static Stream<Arguments> groupingSets() {
    return Stream.of(
        Arguments.of("rollup with grouping()",
            "select s, p, count(*), sum(t), min(k), grouping(s, p), grouping(p) from " + ORDERS + " group by rollup (s, p)"),
        Arguments.of("cube over NULL keys",
            "select s, sp, count(*), count(sp), max(t), grouping(s), grouping(sp), grouping(sp, s) from " + ORDERS
                + " group by cube (s, sp)"),
        Arguments.of("grouping sets with the empty set",
            "select s, p, count(c), avg(t), grouping(s, p) from " + ORDERS + " group by grouping sets ((s), (p), ())"),
        Arguments.of("plain key beside a rollup",
            "select s, p, sp, count(*), sum(sp) from " + ORDERS + " group by s, rollup (p, sp)"),
        Arguments.of("keys as aggregate arguments",
            "select sp, count(sp), max(sp), sum(sp) from " + ORDERS + " group by rollup (sp)"),
        Arguments.of("having on grouping()",
            "select s, p, count(*) from " + ORDERS + " group by cube (s, p) having grouping(s) = 1 and count(*) > 10"),
        Arguments.of("duplicate grouping sets, grouping() in ORDER BY",
            "select s, count(*), grouping(s) from " + ORDERS + " group by grouping sets ((s), (s), ()) order by grouping(s), s"),
        Arguments.of("rollup over empty input keeps the grand total",
            "select s, count(*), sum(t), max(p), grouping(s) from " + ORDERS + " where k < 0 group by rollup (s)"),
        Arguments.of("rollup over a join",
            "select n_name, o.s, count(*), sum(o.t) from " + ORDERS + " join customer on c_custkey = o.k % 1500 + 1"
                + " join nation on n_nationkey = c_nationkey where n_regionkey = 1 group by rollup (n_name, o.s)"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("groupingSets")
  void groupingSetsEqualDuckDb(String label, String sql) throws Exception {
    assertSameAnswer(label, sql, sql);
  }

  @Test
  void groupingSetsWithoutTheEmptySetAnswerNoRowOverEmptyInput() throws Exception {
    String sql = "select s, p, count(*) from " + ORDERS + " where k < 0 group by grouping sets ((s), (p))";
    assertThat(duckDb(sql)).isEmpty();
    assertThat(squall(sql)).isEmpty();
  }

  static Stream<Arguments> orderedSetAggregates() {
    return Stream.of(
        Arguments.of("listagg and string_agg in order, NULLs skipped, an all-NULL group",
            "select s, listagg(c, ',') within group (order by k desc), string_agg(p, '|' order by t, k),"
                + " listagg(cast(sp as varchar), '') within group (order by sp desc, k) from " + ORDERS + " group by s",
            "select s, string_agg(c, ',' order by k desc), string_agg(p, '|' order by t, k),"
                + " string_agg(cast(sp as varchar), '' order by sp desc, k) from " + ORDERS + " group by s"),
        Arguments.of("percentiles, continuous and discrete",
            "select s, percentile_cont(0.25) within group (order by t), percentile_cont(0.9) within group (order by t desc),"
                + " percentile_disc(0.5) within group (order by sp), percentile_disc(0) within group (order by k),"
                + " percentile_cont(1) within group (order by sp), count(*) from " + ORDERS + " group by s",
            "select s, percentile_cont(0.25) within group (order by t), percentile_cont(0.9) within group (order by t desc),"
                + " percentile_disc(0.5) within group (order by sp), percentile_disc(0) within group (order by k),"
                + " cast(percentile_cont(1) within group (order by sp) as double), count(*) from " + ORDERS + " group by s"),
        Arguments.of("without group keys",
            "select percentile_cont(0.5) within group (order by t), percentile_disc(0.75) within group (order by t),"
                + " listagg(p, ';') within group (order by k), listagg(s) within group (order by k desc) from " + ORDERS + " where k < 200",
            "select percentile_cont(0.5) within group (order by t), percentile_disc(0.75) within group (order by t),"
                + " string_agg(p, ';' order by k), string_agg(s, '' order by k desc) from " + ORDERS + " where k < 200"),
        Arguments.of("over empty input",
            "select percentile_cont(0.5) within group (order by t), listagg(p, ',') within group (order by k), count(*)"
                + " from " + ORDERS + " where k < 0",
            "select cast(null as double), cast(null as varchar), 0"),
        Arguments.of("beside partial aggregates and grouping sets",
            "select s, p, string_agg(c, ',' order by k), percentile_cont(0.5) within group (order by t), sum(t)"
                + " from " + ORDERS + " where k < 3000 group by rollup (s, p)",
            "select s, p, string_agg(c, ',' order by k), percentile_cont(0.5) within group (order by t), sum(t)"
                + " from " + ORDERS + " where k < 3000 group by rollup (s, p)"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("orderedSetAggregates")
  void orderedSetAndStringAggregatesEqualDuckDb(String label, String squall, String duckDb) throws Exception {
    assertSameAnswer(label, squall, duckDb);
  }

  @Test
  void percentileDiscAnswersAValueOfItsOrderByColumnsType() throws Exception {
    // DuckDB's percentile_disc answers in the ORDER BY column's type; so does Squall's (a DECIMAL
    // stays DECIMAL(12, 2), not a DOUBLE).
    String sql = "select o_orderstatus, percentile_disc(0.5) within group (order by o_totalprice),"
        + " percentile_disc(0.9) within group (order by o_totalprice desc) from orders group by o_orderstatus";
    List<List<Object>> actual = squall(sql);
    assertThat(ResultRows.difference(actual, duckDb(sql), false)).isNull();
    for (List<Object> row : actual) {
      assertThat(row.get(1)).isInstanceOfSatisfying(BigDecimal.class, d -> assertThat(d.scale()).isEqualTo(2));
      assertThat(row.get(2)).isInstanceOf(BigDecimal.class);
    }
  }

  static Stream<Arguments> scalarSubQueries() {
    return Stream.of(
        Arguments.of("uncorrelated, one row",
            "select n_name from nation where n_regionkey = (select r_regionkey from region where r_name = 'ASIA')"),
        Arguments.of("uncorrelated, no row is NULL",
            "select (select r_regionkey from region where r_name = 'NOWHERE') as x, count(*) from nation"),
        Arguments.of("correlated, zero or one row",
            "select n_name, (select min(r_name) from region where r_regionkey = n_regionkey),"
                + " (select c_name from customer where c_nationkey = n_nationkey and c_acctbal > 9950) from nation"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scalarSubQueries")
  void scalarSubQueriesOfAtMostOneRowEqualDuckDb(String label, String sql) throws Exception {
    assertSameAnswer(label, sql, sql);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "select n_name from nation where n_regionkey = (select r_regionkey from region where r_regionkey < 3)",
      "select n_name, (select c_name from customer where c_nationkey = n_nationkey) from nation"})
  void scalarSubQueryOfSeveralRowsFailsWithAUserError(String sql) throws Exception {
    HttpResponse<byte[]> response = stack.post(sql, Map.of("default_schema", "tpch"), "application/json");
    String body = new String(response.body(), StandardCharsets.UTF_8);
    assertThat(response.statusCode()).as(body).isEqualTo(400);
    JsonNode error = JSON.readTree(body).get("error");
    assertThat(error.get("code").asText()).isEqualTo("USER_ERROR");
    assertThat(error.get("message").asText()).contains("scalar sub-query returned more than one row");
  }

  private List<List<Object>> squall(String sql) throws Exception {
    HttpResponse<byte[]> response = stack.post(sql, Map.of("default_schema", "tpch",
        "target_split_size_bytes", "65536", "target_bytes_per_task", "65536"), "application/vnd.apache.arrow.stream");
    assertThat(response.statusCode()).as("%s: %s", sql, new String(response.body(), StandardCharsets.UTF_8)).isEqualTo(200);
    return ResultRows.fromArrow(response.body());
  }

  private List<List<Object>> duckDb(String sql) throws Exception {
    try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      return ResultRows.fromJdbc(rs);
    }
  }

  private void assertSameAnswer(String label, String squallSql, String duckSql) throws Exception {
    List<List<Object>> expected = duckDb(duckSql);
    List<List<Object>> actual = squall(squallSql);
    assertThat(actual).as("%s: rows", label).isNotEmpty();
    assertThat(ResultRows.difference(actual, expected, false)).as("%s differs from DuckDB", label).isNull();
  }
}

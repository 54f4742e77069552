package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Correlated EXISTS and NOT EXISTS, which the planner turns into semi and anti joins where the
 * correlation is an equality, through the whole local stack over TPC-H SF 0.01, each answer
 * compared with DuckDB's over the same data files: NULL correlation keys on either side, residual
 * conditions on both sides' columns, several sub-queries in one filter, and shapes left to the
 * decorrelator (inside OR, without an equality).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExistsEndToEndTest {
  /** Customers with NULL keys (every seventh). */
  private static final String C = "(select case when c_custkey % 7 = 0 then null else c_custkey end k,"
      + " c_nationkey n, c_acctbal b from customer)";
  /** Orders with NULL customer keys (every fifth) and NULL prices (every eleventh). */
  private static final String O = "(select case when o_orderkey % 5 = 0 then null else o_custkey end k,"
      + " case when o_orderkey % 11 = 0 then null else o_totalprice end p, o_orderstatus s from orders)";

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

  static Stream<String> queries() {
    return Stream.of(
        // TPC-H Q21's shape: an EXISTS and a NOT EXISTS on the same table with a non-equi residual.
        "select s_name, count(*) from supplier, lineitem l1, orders where s_suppkey = l1.l_suppkey"
            + " and o_orderkey = l1.l_orderkey and o_orderstatus = 'F' and exists (select * from lineitem l2"
            + " where l2.l_orderkey = l1.l_orderkey and l2.l_suppkey <> l1.l_suppkey) and not exists"
            + " (select * from lineitem l3 where l3.l_orderkey = l1.l_orderkey and l3.l_suppkey <> l1.l_suppkey"
            + " and l3.l_receiptdate > l3.l_commitdate) group by s_name",
        "select count(*), sum(n), count(k) from " + C + " c where exists (select * from " + O + " o where o.k = c.k)",
        "select count(*), sum(n), count(k) from " + C + " c where not exists (select * from " + O + " o where o.k = c.k)",
        // Residuals over NULLs: a NULL price never makes the condition TRUE.
        "select count(*), sum(b) from " + C + " c where exists (select 1 from " + O + " o where o.k = c.k"
            + " and o.p > c.b * 20)",
        "select count(*), sum(b) from " + C + " c where not exists (select 1 from " + O + " o where o.k = c.k"
            + " and o.p > c.b * 20 and o.s = 'O')",
        // Two correlated equalities, the sub-query's own filter, other conjuncts beside it.
        "select count(*) from " + C + " c where c.n < 20 and exists (select * from " + O + " o, nation"
            + " where o.k = c.k and n_nationkey = c.n and n_regionkey = 1 and o.s = 'F') and c.b > 0",
        "select count(*) from " + C + " c where exists (select * from " + O + " o where o.k = c.k and o.s = 'F')"
            + " and not exists (select * from " + O + " o2 where o2.k = c.k and o2.s = 'P')",
        // TPC-DS Q69's shape: sub-queries that join two tables in their own WHERE.
        "select c.n, count(*) from " + C + " c, nation where c.n = n_nationkey and n_regionkey in (1, 3)"
            + " and exists (select * from orders, lineitem where o_custkey = c.k and o_orderkey = l_orderkey"
            + " and l_quantity > 40) and not exists (select * from orders, lineitem where o_custkey = c.k"
            + " and o_orderkey = l_orderkey and l_returnflag = 'R' and l_quantity > 45) group by c.n",
        // Right sides read as their distinct keys (a key repeated in many rows): TPC-H Q22's
        // NOT EXISTS, IN, and NOT IN over keys with NULLs (which make NOT IN answer nothing).
        "select count(*), sum(c_acctbal) from customer where not exists (select * from orders"
            + " where o_custkey = c_custkey)",
        "select count(*), sum(c_acctbal) from customer where c_nationkey in (select s_nationkey from supplier"
            + " where s_acctbal > 0)",
        "select count(*), sum(b) from " + C + " c where c.k not in (select k from " + O + " o where o.s = 'F')",
        "select count(*), sum(b) from " + C + " c where c.n not in (select c2.n from " + C + " c2 where c2.b < 0)",
        // Left to the decorrelator: inside OR, and a correlation by range only.
        "select count(*) from " + C + " c where c.n = 3 or exists (select * from " + O + " o where o.k = c.k"
            + " and o.p > 300000)",
        "select count(*) from nation n1 where exists (select * from nation n2 where n2.n_nationkey > n1.n_nationkey"
            + " and n2.n_regionkey = 2)");
  }

  @ParameterizedTest
  @MethodSource("queries")
  void existsAndNotExistsEqualDuckDb(String sql) throws Exception {
    List<List<Object>> actual = squall(sql);
    List<List<Object>> expected = duckDb(sql);
    assertThat(actual).as(sql).isNotEmpty();
    assertThat(ResultRows.difference(actual, expected, false)).as("%s differs from DuckDB", sql).isNull();
  }

  private List<List<Object>> squall(String sql) throws Exception {
    HttpResponse<byte[]> response = stack.post(sql, Map.of("default_schema", "tpch",
        "target_split_size_bytes", "65536", "target_bytes_per_task", "65536"), "application/vnd.apache.arrow.stream");
    assertThat(response.statusCode()).as("%s: %s", sql, new String(response.body())).isEqualTo(200);
    return ResultRows.fromArrow(response.body());
  }

  private List<List<Object>> duckDb(String sql) throws Exception {
    try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      return ResultRows.fromJdbc(rs);
    }
  }
}

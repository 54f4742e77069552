package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
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

/**
 * Window functions through the whole local stack over TPC-H SF 0.01 (small splits and tasks, so
 * that windows partitioned by a key run in several tasks behind a hash edge), each query's answer
 * compared with DuckDB's over the same data files. The derived columns hold NULLs (every seventh
 * price); calls whose answer depends on the order among rows order by a unique key last.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WindowFunctionsEndToEndTest {
  /** Orders with NULLs: k key, c customer, p price (NULL for every seventh key), d date, s priority. */
  private static final String ORDERS = "(select o_orderkey k, o_custkey c,"
      + " case when o_orderkey % 7 = 0 then null else o_totalprice end p, o_orderdate d, o_orderpriority s from orders) o";

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

  static Stream<Arguments> windows() {
    String byCustomer = "(partition by c order by d, k";
    return Stream.of(
        Arguments.of("rank functions, with ties among peers",
            "select k, row_number() over " + byCustomer + "), rank() over (partition by c order by d),"
                + " dense_rank() over (partition by s order by d desc), percent_rank() over (partition by c order by p),"
                + " cume_dist() over (partition by s order by d), ntile(4) over " + byCustomer + "),"
                + " ntile(3) over (partition by s order by k), rank() over (order by s desc) from " + ORDERS,
            null),
        // Trino and DuckDB read ntile's bucket count on each row: NULL where it is NULL.
        Arguments.of("ntile with a bucket count read from each row",
            "select k, ntile(case when k % 5 = 0 then null else k % 4 + 1 end) over " + byCustomer + "),"
                + " ntile(c % 3 + 1) over (partition by s order by k), ntile(c) over (order by k) from " + ORDERS,
            null),
        Arguments.of("lag, lead, first, last and nth value over NULLs",
            "select k, lag(p) over " + byCustomer + "), lead(p, 2, 0) over " + byCustomer + "),"
                + " lag(s, 1, 'none') over " + byCustomer + "), first_value(p) over " + byCustomer + "),"
                + " last_value(p) over " + byCustomer + " rows between unbounded preceding and unbounded following),"
                + " nth_value(p, 2) over " + byCustomer + "), last_value(d) over " + byCustomer + ") from " + ORDERS,
            null),
        Arguments.of("aggregates over ROWS frames at partition edges",
            "select k, sum(p) over " + byCustomer + " rows between 2 preceding and 1 following),"
                + " avg(p) over " + byCustomer + " rows between current row and 3 following),"
                + " count(p) over " + byCustomer + " rows between 1 following and 2 following),"
                + " min(p) over " + byCustomer + " rows between unbounded preceding and 1 preceding),"
                + " max(d) over " + byCustomer + " rows between 1 preceding and unbounded following),"
                + " count(*) over " + byCustomer + " rows between 3 preceding and 3 preceding) from " + ORDERS,
            null),
        Arguments.of("aggregates over RANGE frames: default, numeric and interval offsets",
            "select k, sum(p) over (partition by c order by d), count(*) over (partition by s order by d),"
                + " sum(p) over (partition by s order by d range between interval '30' day preceding and current row),"
                + " max(p) over (partition by c order by d range between interval '1' month preceding and interval '1' month following),"
                + " avg(p) over (partition by s order by k range between 100 preceding and 50 following),"
                + " min(k) over (order by p desc range between 10.5 preceding and current row),"
                + " sum(k) over (), count(p) over (partition by s) from " + ORDERS,
            "select k, sum(p) over (partition by c order by d), count(*) over (partition by s order by d),"
                + " sum(p) over (partition by s order by d range between interval 30 day preceding and current row),"
                + " max(p) over (partition by c order by d range between interval 1 month preceding and interval 1 month following),"
                + " avg(p) over (partition by s order by k range between 100 preceding and 50 following),"
                + " min(k) over (order by p desc range between 10.5 preceding and current row),"
                + " sum(k) over (), count(p) over (partition by s) from " + ORDERS),
        Arguments.of("windows over aggregates",
            "select c, sum(p), rank() over (order by sum(p) desc nulls last, c), sum(count(*)) over (partition by count(*) order by c),"
                + " avg(sum(p)) over (order by c rows between 2 preceding and 2 following) from " + ORDERS + " group by c",
            null),
        Arguments.of("windows over a join, ordered and limited by the query",
            "select c_name, o_orderkey, rank() over (partition by c_nationkey order by o_totalprice desc) r,"
                + " lag(o_orderkey) over (partition by c_custkey order by o_orderkey) from customer join orders on c_custkey = o_custkey"
                + " where c_nationkey < 3 order by r, o_orderkey limit 40",
            null),
        Arguments.of("top rows per partition, filtered above the window",
            "select * from (select c, k, p, row_number() over (partition by c order by p desc nulls last, k) rn from " + ORDERS
                + ") t where rn <= 2 and c < 700",
            null),
        Arguments.of("ranking functions without ORDER BY: every row of the partition is a peer",
            "select k, rank() over (partition by c), dense_rank() over (partition by s), percent_rank() over (),"
                + " cume_dist() over (partition by c) from " + ORDERS,
            null),
        Arguments.of("windows that read no column of their input",
            "select count(*) over (), row_number() over (), max(o_orderkey) over () from orders",
            null),
        // No column of the input is read at all: the input is a projection of zero columns.
        Arguments.of("windows over a projection of no columns",
            "select count(*) over (), rank() over (), cume_dist() over () from orders",
            null),
        Arguments.of("constants as window values",
            "select k, sum(2) over (partition by c order by k), first_value('x') over (order by k), lag(0) over (order by k),"
                + " count(1) over (), avg(1.5) over (partition by s), max(date '2020-01-01') over (), sum(k + 1) over (order by k)"
                + " from " + ORDERS,
            null),
        Arguments.of("a constant window value over a projection of no columns",
            "select sum(2) over (), min('a') over () from orders",
            null),
        // An offset written as 2.0 or 1e0 is the number, not the DECIMAL literal's digits.
        Arguments.of("offsets written as decimal and double numbers",
            "select k, lead(p, 2.0) over (order by k), lag(k, 1e0) over (order by k), nth_value(p, 3.00) over (order by k)"
                + " from " + ORDERS,
            "select k, lead(p, 2) over (order by k), lag(k, 1) over (order by k), nth_value(p, 3) over (order by k)"
                + " from " + ORDERS),
        // Trino answers NULL on every row for a NULL constant count or offset.
        Arguments.of("a NULL constant as the count of ntile, lag, lead and nth_value",
            "select k, ntile(null) over (order by k), lag(p, null) over (order by k), lead(s, cast(null as integer))"
                + " over (partition by c order by k), nth_value(p, null) over (order by k) from " + ORDERS,
            null),
        Arguments.of("line items partitioned two ways",
            "select l_orderkey, l_linenumber, sum(l_quantity) over (partition by l_orderkey order by l_linenumber),"
                + " row_number() over (partition by l_suppkey order by l_orderkey, l_linenumber),"
                + " dense_rank() over (partition by l_suppkey order by l_shipdate) from lineitem",
            null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("windows")
  void windowFunctionsEqualDuckDb(String label, String squall, String duckDb) throws Exception {
    List<List<Object>> actual = squall(squall);
    List<List<Object>> expected = duckDb(duckDb == null ? squall : duckDb);
    assertThat(actual).as("%s: rows", label).isNotEmpty();
    boolean ordered = squall.contains(" order by r,");
    assertThat(ResultRows.difference(actual, expected, ordered)).as("%s differs from DuckDB", label).isNull();
  }

  @Test
  void ntileOfACountBelowOneIsAUserErrorInTrinosWords() throws Exception {
    java.net.http.HttpResponse<byte[]> r = stack.post("select k, ntile(k % 4) over (order by k) from " + ORDERS,
        Map.of("default_schema", "tpch"), "application/json");
    String body = new String(r.body(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(r.statusCode()).as(body).isEqualTo(400);
    assertThat(body).contains("USER_ERROR").contains("Buckets must be greater than 0");
  }

  @Test
  void windowsOverNoRowsAnswerNoRows() throws Exception {
    String sql = "select k, row_number() over (order by k), sum(p) over (), lag(p) over (partition by c order by k)"
        + " from " + ORDERS + " where k < 0";
    assertThat(squall(sql)).isEmpty();
    assertThat(duckDb(sql)).isEmpty();
  }

  private List<List<Object>> squall(String sql) throws Exception {
    // Small splits make several scan tasks; 256 KiB a task puts a window's partitions in a few tasks
    // (not coalesced into one at run time).
    return stack.rows(sql, Map.of("default_schema", "tpch", "target_split_size_bytes", "65536",
        "target_bytes_per_task", "262144", "adaptive_target_partition_bytes", "0"));
  }

  private List<List<Object>> duckDb(String sql) throws Exception {
    return ResultRows.fromDuckDb(duck, sql);
  }
}

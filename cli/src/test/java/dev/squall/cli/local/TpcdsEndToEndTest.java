package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.local.tpcds.TpcdsLoader;
import dev.squall.local.tpcds.TpcdsQueries;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

/**
 * The 99 TPC-DS queries (103 statements) through the whole local stack, each compared with
 * DuckDB's answer over the very same Parquet data files, at scale factor 0.01.
 *
 * <p>The statements run a few at a time (the stack runs their tasks concurrently anyway); each is
 * then one dynamic test. Answers are compared as the TPC-H end-to-end tests do ({@link ResultRows}):
 * in order when the statement ends in ORDER BY (but for {@link #ORDER_NOT_DETERMINED}), else as
 * multisets; decimals exactly, doubles within 1e-9 relative, a decimal against DuckDB's double
 * within half a unit of its last digit.
 *
 * <p>Every statement is checked. Where a statement divides decimals, DuckDB runs its own text
 * ({@code tpcds-duckdb/qNN.sql}, computing Trino's DECIMAL quotient with {@link #HALF_UP_QUOTIENT})
 * and the answers are compared exactly as for the others. The statements of {@link #DIVIDE_BY_ZERO}
 * must fail with USER_ERROR while DuckDB finds their denominator 0 over the same data.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TpcdsEndToEndTest {
  static final double SCALE_FACTOR = 0.01;
  /** Statements that run at once. */
  static final int CONCURRENT_QUERIES = 3;

  /**
   * Statements that divide by zero at this scale factor, with a DuckDB query over the same data for
   * the denominator, which must be 0. Squall fails them with USER_ERROR "division by zero", as Trino
   * does; DuckDB's "/" answers NULL instead, so their answers cannot be compared.
   */
  static final Map<String, String> DIVIDE_BY_ZERO = Map.of(
      // revenueratio divides by the class's revenue: one class of the three categories sold for 0.00
      "q12", """
          select min(abs(class_revenue)) from (select i_class, sum(ws_ext_sales_price) as class_revenue
              from web_sales, item, date_dim
              where ws_item_sk = i_item_sk and i_category in ('Sports', 'Books', 'Home') and ws_sold_date_sk = d_date_sk
                  and d_date between cast('1999-02-22' as date) and (cast('1999-02-22' as date) + interval '30' day)
              group by i_class)""",
      // am_pm_ratio divides by pmc, the count of evening web sales
      "q90", """
          select count(*) from web_sales, household_demographics, time_dim, web_page
          where ws_sold_time_sk = t_time_sk and ws_ship_hdemo_sk = hd_demo_sk and ws_web_page_sk = wp_web_page_sk
              and t_hour between 19 and 19 + 1 and hd_dep_count = 6 and wp_char_count between 5000 and 5200""");

  /**
   * Integer division of {@code n} by {@code d} rounded half up (away from zero), for DuckDB: Trino's
   * (and Squall's) DECIMAL quotient {@code a / b} is {@code DECIMAL(p, s)} with {@code s = max(sa, sb)},
   * whose unscaled value is {@code unscaledA * 10^(s - sa + sb) / unscaledB} so rounded. The DuckDB texts
   * under {@code tpcds-duckdb/} call it where the query divides decimals; DuckDB's own "/" gives a DOUBLE.
   */
  static final String HALF_UP_QUOTIENT =
      "create macro half_up_quotient(n, d) as sign(n) * sign(d) * ((2 * abs(n) + abs(d)) // (2 * abs(d)))";

  /**
   * Statements whose ORDER BY leaves ties, compared as multisets (their answers are shorter than
   * their LIMIT, so the ties cannot change which rows are kept).
   */
  static final Map<String, String> ORDER_NOT_DETERMINED = Map.of(
      "q36", "ORDER BY lochierarchy desc, category (NULL above the class level), rank_within_parent: categories whose"
          + " margins are equal to 2 digits tie at the category level",
      "q77", "ORDER BY channel, id: the catalog channel's NULL call center and its rollup total both have a NULL id");

  TestStack stack;
  Connection duck;
  /** Per statement: null when Squall's answer equals DuckDB's, else what went wrong. */
  final Map<String, String> outcomes = new TreeMap<>();

  @BeforeAll
  void loadRunAndCompare() throws Exception {
    stack = TestStack.startTpcds(SCALE_FACTOR, 50_000, o -> o);
    duck = java.sql.DriverManager.getConnection("jdbc:duckdb:");
    try (var st = duck.createStatement()) {
      // Trino divides integers as integers (hd_dep_count / hd_vehicle_count in Q34, Q73); DuckDB's
      // "/" gives a DOUBLE unless told otherwise.
      st.execute("set integer_division = true");
      st.execute(HALF_UP_QUOTIENT);
      for (String view : TpchDuckDbViews.statements(stack.deployment,
          TpcdsLoader.tpcdsTables().stream().map(TpcdsLoader::identifier).toList())) {
        st.execute(view);
      }
    }
    ExecutorService pool = Executors.newFixedThreadPool(CONCURRENT_QUERIES);
    try {
      Map<String, Future<String>> running = new TreeMap<>();
      for (String name : TpcdsQueries.names()) {
        running.put(name, pool.submit(() -> compare(name)));
      }
      for (var e : running.entrySet()) {
        outcomes.put(e.getKey(), e.getValue().get());
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @AfterAll
  void stop() throws Exception {
    if (duck != null) {
      duck.close();
    }
    if (stack != null) {
      stack.close();
    }
  }

  /** Runs one statement through the stack and DuckDB; null when the answers agree, else the difference. */
  private String compare(String name) {
    try {
      String sql = TpcdsQueries.text(name);
      HttpResponse<byte[]> response = stack.post(sql, Map.of("default_schema", TpcdsLoader.NAMESPACE),
          "application/vnd.apache.arrow.stream");
      if (DIVIDE_BY_ZERO.containsKey(name)) {
        return dividesByZero(name, response);
      }
      List<List<Object>> expected;
      synchronized (duck) {
        expected = ResultRows.fromDuckDb(duck, TpchDialect.forDuckDb(duckDbText(name, sql)));
      }
      if (response.statusCode() != 200) {
        return "answered " + response.statusCode() + ": " + new String(response.body());
      }
      List<List<Object>> actual = ResultRows.fromArrow(response.body());
      return ResultRows.difference(actual, expected, TpchDialect.ordered(sql) && !ORDER_NOT_DETERMINED.containsKey(name));
    } catch (Exception e) {
      return "failed: " + e;
    }
  }

  /** DuckDB's text of a statement: its own under {@code tpcds-duckdb/} where decimal quotients need Trino's type. */
  private static String duckDbText(String name, String sql) throws java.io.IOException {
    try (var in = TpcdsEndToEndTest.class.getResourceAsStream("tpcds-duckdb/" + name + ".sql")) {
      return in == null ? sql : new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  /** Null when Squall failed the statement with USER_ERROR "division by zero" and DuckDB finds its denominator 0. */
  private String dividesByZero(String name, HttpResponse<byte[]> response) throws Exception {
    String body = new String(response.body(), java.nio.charset.StandardCharsets.UTF_8);
    if (response.statusCode() != 400 || !body.contains("USER_ERROR") || !body.contains("division by zero")) {
      return "expected a USER_ERROR for division by zero, answered " + response.statusCode() + ": " + body;
    }
    List<List<Object>> denominator;
    synchronized (duck) {
      denominator = ResultRows.fromDuckDb(duck, DIVIDE_BY_ZERO.get(name));
    }
    Object value = denominator.get(0).get(0);
    return value instanceof java.math.BigDecimal d && d.signum() == 0 ? null
        : "Squall divided by zero but DuckDB's denominator is " + value;
  }

  @TestFactory
  Stream<DynamicTest> everyStatementAnswersAsDuckDb() {
    return outcomes.entrySet().stream().map(e -> DynamicTest.dynamicTest(e.getKey(),
        () -> assertThat(e.getValue()).as("%s differs from DuckDB", e.getKey()).isNull()));
  }

  @Test
  void everyStatementIsChecked() {
    List<String> failing = new ArrayList<>();
    outcomes.forEach((name, outcome) -> {
      if (outcome != null) {
        failing.add(name);
      }
    });
    System.out.println("TPC-DS SF " + SCALE_FACTOR + ": " + (outcomes.size() - failing.size()) + " of "
        + outcomes.size() + " statements answer as DuckDB (" + DIVIDE_BY_ZERO.size() + " by failing as DuckDB's data says)");
    outcomes.forEach((name, outcome) -> {
      if (outcome != null) {
        System.out.println("  " + name + ": " + outcome.lines().limit(6).reduce((a, b) -> a + " | " + b).orElse(""));
      }
    });
    assertThat(outcomes).hasSize(TpcdsQueries.names().size());
    assertThat(failing).isEmpty();
  }
}

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
 * <p>{@link #KNOWN_FAILURES} names the statements Squall does not yet answer as DuckDB does, each
 * with the reason; the test asserts that exactly these fail, so a fix must shrink the list.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TpcdsEndToEndTest {
  static final double SCALE_FACTOR = 0.01;
  /** Statements that run at once. */
  static final int CONCURRENT_QUERIES = 3;

  /**
   * Statements known to fail, with the reason. Trino's decimal division keeps the larger scale of
   * its operands ({@code DECIMAL(38,2) / DECIMAL(38,2)} has scale 2) and Squall follows Trino;
   * DuckDB, the reference, divides decimals in DOUBLE.
   */
  static final Map<String, String> KNOWN_FAILURES = Map.ofEntries(
      Map.entry("q12", "one item class (mystery) has web sales that sum to 0.00 in the 30 days: the revenue ratio divides"
          + " by zero, which fails the query in Squall as in Trino; DuckDB answers NULL"),
      Map.entry("q36", "gross margin is a decimal quotient of scale 2 in Squall and Trino, a DOUBLE in DuckDB: margins"
          + " that differ only after two digits tie, so rank_within_parent and the order of rows differ"),
      Map.entry("q61", "the promotion share is a DECIMAL(15,4) quotient rounded to 4 digits before * 100 in Squall and"
          + " Trino (98.6000), a DOUBLE in DuckDB (98.5992...)"),
      Map.entry("q66", "sales per square foot is DECIMAL / INTEGER, of scale 2 in Squall and Trino (0.32), a DOUBLE in"
          + " DuckDB (0.3147...)"),
      Map.entry("q75", "the filter cast(curr as decimal(17,2)) / cast(prev as decimal(17,2)) < 0.9 compares a quotient"
          + " rounded to 2 digits in Squall and Trino (one just under 0.9 rounds to 0.90), a DOUBLE in DuckDB: one row"
          + " more in DuckDB's answer"),
      Map.entry("q90", "no evening web sales match at SF 0.01 (pmc = 0): the ratio divides by zero, which fails the query"
          + " in Squall as in Trino; DuckDB answers NULL"));

  /**
   * Statements whose ORDER BY leaves ties, compared as multisets (their answers are shorter than
   * their LIMIT, so the ties cannot change which rows are kept).
   */
  static final Map<String, String> ORDER_NOT_DETERMINED = Map.of(
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
      List<List<Object>> expected;
      synchronized (duck) {
        expected = ResultRows.fromDuckDb(duck, TpchDialect.forDuckDb(sql));
      }
      HttpResponse<byte[]> response = stack.post(sql, Map.of("default_schema", TpcdsLoader.NAMESPACE),
          "application/vnd.apache.arrow.stream");
      if (response.statusCode() != 200) {
        return "answered " + response.statusCode() + ": " + new String(response.body());
      }
      List<List<Object>> actual = ResultRows.fromArrow(response.body());
      return ResultRows.difference(actual, expected, TpchDialect.ordered(sql) && !ORDER_NOT_DETERMINED.containsKey(name));
    } catch (Exception e) {
      return "failed: " + e;
    }
  }

  @TestFactory
  Stream<DynamicTest> everyStatementAnswersAsDuckDbOrIsAKnownFailure() {
    return outcomes.entrySet().stream().map(e -> DynamicTest.dynamicTest(e.getKey(), () -> {
      if (KNOWN_FAILURES.containsKey(e.getKey())) {
        assertThat(e.getValue()).as("%s is listed as failing (%s) but now answers as DuckDB: take it off the list",
            e.getKey(), KNOWN_FAILURES.get(e.getKey())).isNotNull();
      } else {
        assertThat(e.getValue()).as("%s differs from DuckDB", e.getKey()).isNull();
      }
    }));
  }

  @Test
  void theKnownFailuresAreExactlyTheStatementsThatFail() {
    List<String> failing = new ArrayList<>();
    outcomes.forEach((name, outcome) -> {
      if (outcome != null) {
        failing.add(name);
      }
    });
    System.out.println("TPC-DS SF " + SCALE_FACTOR + ": " + (outcomes.size() - failing.size()) + " of "
        + outcomes.size() + " statements answer as DuckDB");
    outcomes.forEach((name, outcome) -> {
      if (outcome != null) {
        System.out.println("  " + name + ": " + outcome.lines().limit(6).reduce((a, b) -> a + " | " + b).orElse(""));
      }
    });
    assertThat(failing).containsExactlyInAnyOrderElementsOf(KNOWN_FAILURES.keySet());
  }
}

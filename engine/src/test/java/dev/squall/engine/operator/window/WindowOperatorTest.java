package dev.squall.engine.operator.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.engine.FragmentExecutor;
import dev.squall.engine.TaskMemoryExceededException;
import dev.squall.engine.testing.MemCheck;
import dev.squall.engine.testing.MemTable;
import dev.squall.engine.testing.Rel;
import dev.squall.engine.testing.TestInputs;
import dev.squall.engine.testing.TpchFixture;
import dev.squall.engine.testing.WindowRel;
import dev.squall.engine.testing.WindowRel.Call;
import dev.squall.engine.testing.WindowRel.Spec;
import dev.squall.engine.testing.X;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.FrameBound;
import dev.squall.proto.v1.WindowCall.Function;
import dev.squall.proto.v1.WindowFrame;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The window operator over random rows with NULLs in every column but id (t: id BIGINT, i INTEGER,
 * d DECIMAL(12,2), x DOUBLE, s VARCHAR, dt DATE, b BOOLEAN), for empty input, one row and 3,000 rows
 * in batches of 256, each compared with DuckDB computing the same window over the same rows. Calls
 * whose answer depends on the order among peers order by id last, so that the answer is defined.
 */
class WindowOperatorTest {
  private static final SqlType DECIMAL_SUM = SqlType.decimal(38, 2);
  private static final List<String> COLUMNS = List.of("id", "i", "d", "x", "s", "dt", "b");
  private static final Map<String, Object[]> CASES = new LinkedHashMap<>();

  private static Call fn(Function f, SqlType type, String sql) {
    return Call.of(f, type, sql);
  }

  private static Call fn(Function f, String arg, SqlType type, String sql) {
    return Call.of(f, type, sql).arg(COLUMNS.indexOf(arg));
  }

  private static final FrameBound UNBOUNDED_PRECEDING = WindowRel.bound(FrameBound.Kind.UNBOUNDED_PRECEDING, null);
  private static final FrameBound UNBOUNDED_FOLLOWING = WindowRel.bound(FrameBound.Kind.UNBOUNDED_FOLLOWING, null);
  private static final FrameBound CURRENT = WindowRel.bound(FrameBound.Kind.CURRENT_ROW, null);

  private static FrameBound preceding(X offset) {
    return WindowRel.bound(FrameBound.Kind.PRECEDING, offset);
  }

  private static FrameBound following(X offset) {
    return WindowRel.bound(FrameBound.Kind.FOLLOWING, offset);
  }

  private static WindowFrame frame(WindowFrame.Unit unit, FrameBound start, FrameBound end) {
    return WindowRel.frame(unit, start, end);
  }

  private static final WindowFrame DEFAULT_FRAME = frame(WindowFrame.Unit.RANGE, UNBOUNDED_PRECEDING, CURRENT);

  /** Aggregates and value functions of every type over one frame. */
  private static List<Call> aggregates(WindowFrame frame) {
    return List.of(
        fn(Function.SUM, "i", SqlType.BIGINT, "SUM(i)"),
        fn(Function.SUM, "d", DECIMAL_SUM, "SUM(d)"),
        fn(Function.SUM, "x", SqlType.DOUBLE, "SUM(x)"),
        fn(Function.SUM0, "i", SqlType.BIGINT, "COALESCE(SUM(i) OVER %s, 0)"),
        fn(Function.AVG, "d", SqlType.DOUBLE, "AVG(d)"),
        fn(Function.AVG, "x", SqlType.DOUBLE, "AVG(x)"),
        fn(Function.COUNT, "s", SqlType.BIGINT, "COUNT(s)"),
        fn(Function.COUNT_STAR, SqlType.BIGINT, "COUNT(*)"),
        fn(Function.MIN, "s", SqlType.VARCHAR, "MIN(s)"),
        fn(Function.MAX, "d", SqlType.decimal(12, 2), "MAX(d)"),
        fn(Function.MIN, "dt", SqlType.DATE, "MIN(dt)"),
        fn(Function.MAX, "x", SqlType.DOUBLE, "MAX(x)"),
        fn(Function.FIRST_VALUE, "s", SqlType.VARCHAR, "FIRST_VALUE(s)"),
        fn(Function.LAST_VALUE, "d", SqlType.decimal(12, 2), "LAST_VALUE(d)"),
        fn(Function.NTH_VALUE, "x", SqlType.DOUBLE, "NTH_VALUE(x, 3)").offset(3))
        .stream().map(c -> c.frame(frame)).toList();
  }

  /** The aggregates alone: over peers (RANGE) the value functions' rows are not defined. */
  private static List<Call> aggregatesOnly(WindowFrame frame) {
    return aggregates(frame).stream()
        .filter(c -> !c.sql().startsWith("FIRST") && !c.sql().startsWith("LAST") && !c.sql().startsWith("NTH")).toList();
  }

  private static void add(String name, Spec spec, String frameSql, List<Call> calls) {
    CASES.put(name, new Object[] {spec, frameSql, calls});
  }

  static {
    Spec byIAndId = new Spec(List.of("i"), List.of(Rel.Key.asc("dt"), Rel.Key.asc("id")));
    add("rank_functions_with_ties", new Spec(List.of("b"), List.of(new Rel.Key("s", true, false), Rel.Key.asc("i"))), "", List.of(
        fn(Function.RANK, SqlType.BIGINT, "RANK()"),
        fn(Function.DENSE_RANK, SqlType.BIGINT, "DENSE_RANK()"),
        fn(Function.PERCENT_RANK, SqlType.DOUBLE, "PERCENT_RANK()"),
        fn(Function.CUME_DIST, SqlType.DOUBLE, "CUME_DIST()")));
    add("row_number_and_ntile", new Spec(List.of("s"), List.of(Rel.Key.asc("d"), Rel.Key.desc("id"))), "", List.of(
        fn(Function.ROW_NUMBER, SqlType.BIGINT, "ROW_NUMBER()"),
        fn(Function.NTILE, SqlType.BIGINT, "NTILE(4)").offset(4),
        fn(Function.NTILE, SqlType.BIGINT, "NTILE(1000)").offset(1000)));
    add("lag_lead", byIAndId, "", List.of(
        fn(Function.LAG, "d", SqlType.decimal(12, 2), "LAG(d)").offset(1),
        withDefault(fn(Function.LEAD, "s", SqlType.VARCHAR, "LEAD(s, 2, 'none')").offset(2), X.str("none")),
        fn(Function.LAG, "x", SqlType.DOUBLE, "LAG(x, 0)").offset(0),
        withDefault(fn(Function.LAG, "dt", SqlType.DATE, "LAG(dt, 3, DATE '2000-01-01')").offset(3), X.date("2000-01-01"))));
    add("aggregates_default_frame", byIAndId, "", aggregates(DEFAULT_FRAME));
    add("aggregates_default_frame_with_peers", new Spec(List.of("b"), List.of(Rel.Key.asc("i"))), "", List.of(
        fn(Function.SUM, "d", DECIMAL_SUM, "SUM(d)").frame(DEFAULT_FRAME),
        fn(Function.COUNT_STAR, SqlType.BIGINT, "COUNT(*)").frame(DEFAULT_FRAME),
        fn(Function.MAX, "s", SqlType.VARCHAR, "MAX(s)").frame(DEFAULT_FRAME)));
    add("aggregates_whole_partition", new Spec(List.of("s", "b"), List.of()), "",
        aggregatesOnly(frame(WindowFrame.Unit.RANGE, UNBOUNDED_PRECEDING, UNBOUNDED_FOLLOWING)));
    add("aggregates_rows_sliding", byIAndId, "ROWS BETWEEN 2 PRECEDING AND 3 FOLLOWING",
        aggregates(frame(WindowFrame.Unit.ROWS, preceding(X.lit(2)), following(X.lit(3)))));
    add("aggregates_rows_ahead_only", byIAndId, "ROWS BETWEEN 1 FOLLOWING AND 4 FOLLOWING",
        aggregates(frame(WindowFrame.Unit.ROWS, following(X.lit(1)), following(X.lit(4)))));
    add("aggregates_rows_behind_to_end", byIAndId, "ROWS BETWEEN 5 PRECEDING AND UNBOUNDED FOLLOWING",
        aggregates(frame(WindowFrame.Unit.ROWS, preceding(X.lit(5)), UNBOUNDED_FOLLOWING)));
    add("aggregates_range_integer_offsets", new Spec(List.of("b"), List.of(Rel.Key.desc("i"))),
        "RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING",
        aggregatesOnly(frame(WindowFrame.Unit.RANGE, preceding(X.lit(2)), following(X.lit(1)))));
    add("aggregates_range_decimal_offsets", new Spec(List.of(), List.of(Rel.Key.asc("d"))),
        "RANGE BETWEEN 100.50 PRECEDING AND CURRENT ROW",
        aggregatesOnly(frame(WindowFrame.Unit.RANGE, preceding(X.dec("100.50")), CURRENT)));
    add("aggregates_range_day_interval", new Spec(List.of("s"), List.of(Rel.Key.asc("dt"))),
        "RANGE BETWEEN INTERVAL 30 DAY PRECEDING AND INTERVAL 10 DAY FOLLOWING",
        aggregatesOnly(frame(WindowFrame.Unit.RANGE, preceding(X.daysInterval(30)), following(X.daysInterval(10)))));
    add("aggregates_range_month_interval_desc", new Spec(List.of("b"), List.of(Rel.Key.desc("dt"))),
        "RANGE BETWEEN INTERVAL 2 MONTH PRECEDING AND CURRENT ROW",
        aggregatesOnly(frame(WindowFrame.Unit.RANGE, preceding(X.monthsInterval(2)), CURRENT)));
  }

  private static Call withDefault(Call call, X value) {
    call.call().setDefaultValue(value.expr());
    return call;
  }

  private static Rel window(Rel t, Spec spec, List<Call> calls, String frameSql) {
    return WindowRel.window(t, spec, calls, frameSql);
  }

  @TestFactory
  Stream<DynamicTest> windowsMatchDuckDb() {
    List<DynamicTest> tests = new ArrayList<>();
    for (var c : CASES.entrySet()) {
      for (int n : new int[] {0, 1, 3000}) {
        tests.add(DynamicTest.dynamicTest(c.getKey() + "_rows" + n, () -> {
          MemTable t = MemTable.random("t", n, 15, 11 + n);
          @SuppressWarnings("unchecked")
          List<Call> calls = (List<Call>) c.getValue()[2];
          Rel rel = window(t.rel(0), (Spec) c.getValue()[0], calls, (String) c.getValue()[1]);
          MemCheck.check(rel, Map.of(0, t), c.getKey(), 256);
        }));
      }
    }
    return tests.stream();
  }

  @Test
  void twoStackedWindowsSeeTheFirstOnesColumns() throws Exception {
    MemTable t = MemTable.random("t", 3000, 15, 3011);
    Rel first = window(t.rel(0), new Spec(List.of("s"), List.of(Rel.Key.asc("id"))), List.of(
        fn(Function.ROW_NUMBER, SqlType.BIGINT, "ROW_NUMBER()")), "");
    Rel second = window(first, new Spec(List.of(), List.of(Rel.Key.asc("w7"), Rel.Key.asc("id"))), List.of(
        fn(Function.RANK, SqlType.BIGINT, "RANK()")), "");
    MemCheck.check(second, Map.of(0, t), "stacked", 256);
  }

  @Test
  void bufferedInputOverTheTaskBudgetFailsNamingTheOperatorAndGivesItsMemoryBack() {
    TpchFixture f = TpchFixture.sf001();
    Rel lineitem = Rel.scan(f, "lineitem", 0, "l_orderkey", "l_partkey", "l_extendedprice", "l_comment");
    Rel rel = window(lineitem, new Spec(List.of("l_partkey"), List.of(Rel.Key.asc("l_orderkey"))), List.of(
        fn(Function.ROW_NUMBER, SqlType.BIGINT, "ROW_NUMBER()")), "");
    try (BufferAllocator allocator = new RootAllocator()) {
      assertThatThrownBy(() -> FragmentExecutor.run(rel.op(), TestInputs.forPlan(rel.op(), f), allocator, 2L << 20, b -> { }))
          .isInstanceOfSatisfying(TaskMemoryExceededException.class, e -> assertThat(e.operator()).isEqualTo("Window#0"))
          .hasMessageStartingWith("task memory exceeded: operator Window#0");
      assertThat(allocator.getAllocatedMemory()).isZero();
    }
  }

  @Test
  void ntileSpreadsTheRemainderOverTheFirstBuckets() {
    // 10 rows in 4 buckets: 3, 3, 2, 2 (Trino and DuckDB).
    long[] buckets = new long[10];
    for (int r = 0; r < 10; r++) {
      buckets[r] = RankFunctions.ntile(r, 10, 4);
    }
    assertThat(buckets).containsExactly(1, 1, 1, 2, 2, 2, 3, 3, 4, 4);
  }
}

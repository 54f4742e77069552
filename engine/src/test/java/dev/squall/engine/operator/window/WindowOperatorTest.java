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
import dev.squall.engine.testing.X;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.Field;
import dev.squall.proto.v1.FrameBound;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Schema;
import dev.squall.proto.v1.SortKey;
import dev.squall.proto.v1.Window;
import dev.squall.proto.v1.WindowCall;
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

  /** One call: its plan form and DuckDB's text for it (without OVER). */
  private record Call(WindowCall.Builder call, String sql) {}

  /** A window spec: partition keys, order keys (column, descending, nulls first), and its DuckDB text. */
  private record Spec(List<String> partition, List<Rel.Key> order) {
    String sql(String frame) {
      List<String> order = this.order.stream().map(k -> k.column() + (k.desc() ? " DESC" : " ASC")
          + (k.nullsFirst() ? " NULLS FIRST" : " NULLS LAST")).toList();
      return "(" + (partition.isEmpty() ? "" : "PARTITION BY " + String.join(", ", partition))
          + (order.isEmpty() ? "" : " ORDER BY " + String.join(", ", order)) + (frame.isEmpty() ? "" : " " + frame) + ")";
    }
  }

  private static final Map<String, Object[]> CASES = new LinkedHashMap<>();

  private static Call fn(Function f, SqlType type, String sql) {
    return new Call(WindowCall.newBuilder().setFunction(f).setType(type.toProto()), sql);
  }

  private static Call fn(Function f, String arg, SqlType type, String sql) {
    Call c = fn(f, type, sql);
    c.call.addArgs(List.of("id", "i", "d", "x", "s", "dt", "b").indexOf(arg));
    return c;
  }

  private static FrameBound bound(FrameBound.Kind kind, X offset) {
    FrameBound.Builder b = FrameBound.newBuilder().setKind(kind);
    if (offset != null) {
      b.setOffset(offset.expr());
    }
    return b.build();
  }

  private static final FrameBound UNBOUNDED_PRECEDING = bound(FrameBound.Kind.UNBOUNDED_PRECEDING, null);
  private static final FrameBound UNBOUNDED_FOLLOWING = bound(FrameBound.Kind.UNBOUNDED_FOLLOWING, null);
  private static final FrameBound CURRENT = bound(FrameBound.Kind.CURRENT_ROW, null);

  private static FrameBound preceding(X offset) {
    return bound(FrameBound.Kind.PRECEDING, offset);
  }

  private static FrameBound following(X offset) {
    return bound(FrameBound.Kind.FOLLOWING, offset);
  }

  private static WindowFrame frame(WindowFrame.Unit unit, FrameBound start, FrameBound end) {
    return WindowFrame.newBuilder().setUnit(unit).setStart(start).setEnd(end).build();
  }

  private static final WindowFrame DEFAULT_FRAME = frame(WindowFrame.Unit.RANGE, UNBOUNDED_PRECEDING, CURRENT);

  /** Aggregates of every type over one frame. */
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
        nth("x", 3)).stream().map(c -> new Call(c.call.setFrame(frame), c.sql)).toList();
  }

  private static Call nth(String arg, long n) {
    Call c = fn(Function.NTH_VALUE, arg, SqlType.DOUBLE, "NTH_VALUE(" + arg + ", " + n + ")");
    c.call.setOffset(n);
    return c;
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
        new Call(fn(Function.NTILE, SqlType.BIGINT, "").call.setOffset(4), "NTILE(4)"),
        new Call(fn(Function.NTILE, SqlType.BIGINT, "").call.setOffset(1000), "NTILE(1000)")));
    add("lag_lead", byIAndId, "", List.of(
        new Call(fn(Function.LAG, "d", SqlType.decimal(12, 2), "").call.setOffset(1), "LAG(d)"),
        new Call(fn(Function.LEAD, "s", SqlType.VARCHAR, "").call.setOffset(2)
            .setDefaultValue(X.str("none").expr()), "LEAD(s, 2, 'none')"),
        new Call(fn(Function.LAG, "x", SqlType.DOUBLE, "").call.setOffset(0), "LAG(x, 0)"),
        new Call(fn(Function.LAG, "dt", SqlType.DATE, "").call.setOffset(3)
            .setDefaultValue(X.date("2000-01-01").expr()), "LAG(dt, 3, DATE '2000-01-01')")));
    add("aggregates_default_frame", byIAndId, "", aggregates(DEFAULT_FRAME));
    add("aggregates_default_frame_with_peers", new Spec(List.of("b"), List.of(Rel.Key.asc("i"))), "", List.of(
        fn(Function.SUM, "d", DECIMAL_SUM, "SUM(d)").call.setFrame(DEFAULT_FRAME),
        fn(Function.COUNT_STAR, SqlType.BIGINT, "COUNT(*)").call.setFrame(DEFAULT_FRAME),
        fn(Function.MAX, "s", SqlType.VARCHAR, "MAX(s)").call.setFrame(DEFAULT_FRAME)).stream()
        .map(b -> new Call(b, b.getFunction() == Function.SUM ? "SUM(d)" : b.getFunction() == Function.COUNT_STAR ? "COUNT(*)" : "MAX(s)"))
        .toList());
    add("aggregates_whole_partition", new Spec(List.of("s", "b"), List.of()), "",
        aggregates(frame(WindowFrame.Unit.RANGE, UNBOUNDED_PRECEDING, UNBOUNDED_FOLLOWING)).stream()
            .filter(c -> !c.sql.startsWith("FIRST") && !c.sql.startsWith("LAST") && !c.sql.startsWith("NTH")).toList());
    add("aggregates_rows_sliding", byIAndId, "ROWS BETWEEN 2 PRECEDING AND 3 FOLLOWING",
        aggregates(frame(WindowFrame.Unit.ROWS, preceding(X.lit(2)), following(X.lit(3)))));
    add("aggregates_rows_ahead_only", byIAndId, "ROWS BETWEEN 1 FOLLOWING AND 4 FOLLOWING",
        aggregates(frame(WindowFrame.Unit.ROWS, following(X.lit(1)), following(X.lit(4)))));
    add("aggregates_rows_behind_to_end", byIAndId, "ROWS BETWEEN 5 PRECEDING AND UNBOUNDED FOLLOWING",
        aggregates(frame(WindowFrame.Unit.ROWS, preceding(X.lit(5)), UNBOUNDED_FOLLOWING)));
    add("aggregates_range_integer_offsets", new Spec(List.of("b"), List.of(Rel.Key.desc("i"))),
        "RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING",
        aggregates(frame(WindowFrame.Unit.RANGE, preceding(X.lit(2)), following(X.lit(1)))).stream()
            .filter(c -> !c.sql.startsWith("FIRST") && !c.sql.startsWith("LAST") && !c.sql.startsWith("NTH")).toList());
    add("aggregates_range_decimal_offsets", new Spec(List.of(), List.of(Rel.Key.asc("d"))),
        "RANGE BETWEEN 100.50 PRECEDING AND CURRENT ROW",
        aggregates(frame(WindowFrame.Unit.RANGE, preceding(X.dec("100.50")), CURRENT)).stream()
            .filter(c -> !c.sql.startsWith("FIRST") && !c.sql.startsWith("LAST") && !c.sql.startsWith("NTH")).toList());
    add("aggregates_range_day_interval", new Spec(List.of("s"), List.of(Rel.Key.asc("dt"))),
        "RANGE BETWEEN INTERVAL 30 DAY PRECEDING AND INTERVAL 10 DAY FOLLOWING",
        aggregates(frame(WindowFrame.Unit.RANGE, preceding(X.daysInterval(30)), following(X.daysInterval(10)))).stream()
            .filter(c -> !c.sql.startsWith("FIRST") && !c.sql.startsWith("LAST") && !c.sql.startsWith("NTH")).toList());
    add("aggregates_range_month_interval_desc", new Spec(List.of("b"), List.of(Rel.Key.desc("dt"))),
        "RANGE BETWEEN INTERVAL 2 MONTH PRECEDING AND CURRENT ROW",
        aggregates(frame(WindowFrame.Unit.RANGE, preceding(X.monthsInterval(2)), CURRENT)).stream()
            .filter(c -> !c.sql.startsWith("FIRST") && !c.sql.startsWith("LAST") && !c.sql.startsWith("NTH")).toList());
  }

  private static Rel window(Rel t, Spec spec, List<Call> calls, String frameSql) {
    Window.Builder w = Window.newBuilder().setInput(t.op());
    spec.partition.forEach(p -> w.addPartitionKeys(t.index(p)));
    for (Rel.Key k : spec.order) {
      w.addOrderKeys(SortKey.newBuilder().setColumn(t.index(k.column())).setDescending(k.desc()).setNullsFirst(k.nullsFirst()));
    }
    Schema.Builder schema = t.op().getOutputSchema().toBuilder();
    List<String> names = new ArrayList<>(t.names());
    List<SqlType> types = new ArrayList<>(t.types());
    List<String> select = new ArrayList<>();
    for (int c = 0; c < calls.size(); c++) {
      WindowCall call = calls.get(c).call.setName("w" + c).build();
      w.addCalls(call);
      schema.addFields(Field.newBuilder().setName("w" + c).setType(call.getType()));
      names.add("w" + c);
      types.add(SqlType.of(call.getType()));
      String text = calls.get(c).sql;
      select.add((text.contains("%s") ? text.formatted(spec.sql(frameSql)) : text + " OVER " + spec.sql(frameSql)) + " AS w" + c);
    }
    Operator op = Operator.newBuilder().setOutputSchema(schema).setWindow(w).build();
    String sql = "SELECT *, " + String.join(", ", select) + " FROM (" + t.sql() + ")";
    return new Rel(op, names, types, sql, false, t.scanInputs());
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
    Rel second = window(first, new Spec(List.of(), List.of(Rel.Key.asc("w0"), Rel.Key.asc("id"))), List.of(
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

package dev.squall.engine.spill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.engine.EngineException;
import dev.squall.engine.FragmentExecutor;
import dev.squall.engine.testing.DuckDbOracle;
import dev.squall.engine.testing.Rel;
import dev.squall.engine.testing.Rel.Agg;
import dev.squall.engine.testing.Rel.AggMode;
import dev.squall.engine.testing.Rel.Key;
import dev.squall.engine.testing.Rows;
import dev.squall.engine.testing.TestInputs;
import dev.squall.engine.testing.TpchFixture;
import dev.squall.engine.testing.WindowRel;
import dev.squall.engine.testing.WindowRel.Call;
import dev.squall.engine.testing.WindowRel.Spec;
import dev.squall.engine.testing.X;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.FrameBound;
import dev.squall.proto.v1.JoinType;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.WindowCall.Function;
import dev.squall.proto.v1.WindowFrame;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Sort, hash aggregation, hash join, nested-loop join and window over inputs more than ten times the task's memory budget
 * spill to disk and answer exactly as DuckDB does over the same Parquet files; they report the
 * bytes they spilled, and no spill file outlives the task (also when it is cancelled midway or
 * runs out of disk).
 */
class SpillingOperatorsTest {
  private static final long BUDGET = 1536L << 10;
  private static final long DISK = 1L << 30;

  private final TpchFixture f = SpillTables.fixture();

  @TempDir
  Path spillDir;

  private record Outcome(List<List<Object>> rows, long spilledBytes, long peakBytes) { }

  private Rel facts(int input) {
    return Rel.scan(f, "spill_facts", input, "id", "k", "g", "v", "s", "hot");
  }

  private Rel dims(int input) {
    return Rel.scan(f, "spill_dims", input, "dk", "name", "w");
  }

  private Outcome run(Operator plan, long budget, long disk, BooleanSupplier cancelled) {
    List<List<Object>> rows = new ArrayList<>();
    long spilled;
    long peak;
    try (BufferAllocator allocator = new RootAllocator();
        BufferAllocator collector = new RootAllocator();
        TaskSpill spill = new TaskSpill(new SpillSettings(spillDir, disk))) {
      try (FragmentExecutor.Execution run = FragmentExecutor.execute(plan, TestInputs.forPlan(plan, f), allocator,
          budget, cancelled, spill)) {
        // As the task function does: engine batches go to the output writer, which has its own memory.
        while (run.hasNext()) {
          try (VectorSchemaRoot b = run.nextBatch().toArrow(run.schema(), collector)) {
            rows.addAll(Rows.rowsOf(b));
          }
        }
        peak = run.peakMemoryBytes();
      }
      spilled = spill.bytesSpilled();
      assertThat(spill.bytesOnDisk()).as("spill files left once the operators closed").isZero();
    }
    assertNoSpillFiles();
    return new Outcome(rows, spilled, peak);
  }

  private void assertNoSpillFiles() {
    try (Stream<Path> left = Files.walk(spillDir)) {
      assertThat(left.filter(p -> !p.equals(spillDir)).toList()).isEmpty();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  /** Heap bytes of the relation's rows as the engine holds them: what a blocking operator would keep. */
  private long inputBytes(Rel rel) {
    long bytes = 0;
    try (BufferAllocator allocator = new RootAllocator();
        FragmentExecutor.Execution run = FragmentExecutor.execute(rel.op(), TestInputs.forPlan(rel.op(), f), allocator, 0)) {
      while (run.hasNext()) {
        bytes += run.nextBatch().bytes();
      }
    }
    return bytes;
  }

  private void assertSpillsAndMatchesDuckDb(Rel rel, Rel input) throws Exception {
    assertThat(inputBytes(input)).as("input bytes").isGreaterThanOrEqualTo(10 * BUDGET);
    Outcome out = run(rel.op(), BUDGET, DISK, () -> false);
    List<List<Object>> expected = Rows.duckdb(DuckDbOracle.connection(), rel.sql());
    assertThat(Rows.difference(expected, out.rows(), rel.ordered())).as(rel.sql()).isNull();
    assertThat(out.spilledBytes()).as("bytes spilled").isPositive();
    assertThat(out.peakBytes()).as("peak memory").isLessThanOrEqualTo(BUDGET);
  }

  @Test
  void sortOfTenTimesTheBudgetMergesSpilledRunsInDuckDbsOrder() throws Exception {
    Rel input = facts(0);
    Rel sorted = input.sort(List.of(Key.desc("g"), Key.asc("v"), Key.asc("id")));
    assertSpillsAndMatchesDuckDb(sorted, input);
  }

  @Test
  void topNWithAnOffsetPastTheBudgetSpillsAndCuts() throws Exception {
    Rel input = facts(0);
    assertSpillsAndMatchesDuckDb(input.topN(List.of(Key.asc("s"), Key.desc("id")), 150_000, 1_000), input);
  }

  @Test
  void aggregationWithManyGroupsSpillsPartitionsAndEqualsDuckDb() throws Exception {
    Rel input = facts(0);
    Rel agg = input.aggregate(List.of("g"), List.of(Agg.countStar("n"), Agg.sum("v", "total"), Agg.min("s", "first_s"),
        Agg.max("id", "last_id"), Agg.avg("v", "mean")), AggMode.SINGLE);
    assertSpillsAndMatchesDuckDb(agg, input);
  }

  @Test
  void partialAndFinalAggregationsSpillAlike() throws Exception {
    Rel input = facts(0);
    Rel agg = input.aggregate(List.of("g", "hot"), List.of(Agg.count("k", "n"), Agg.avg("v", "mean")), AggMode.SPLIT);
    assertSpillsAndMatchesDuckDb(agg, input);
  }

  @ParameterizedTest
  @EnumSource(value = JoinType.class, names = {"INNER", "LEFT", "RIGHT", "FULL", "SEMI", "ANTI"})
  void joinWithABuildSideTenTimesTheBudgetRunsAsAGraceHashJoin(JoinType type) throws Exception {
    Rel build = facts(1);
    Rel join = dims(0).join(build, type, List.of("dk"), List.of("k"), null, false);
    assertSpillsAndMatchesDuckDb(join, build);
  }

  @ParameterizedTest
  @EnumSource(value = JoinType.class, names = {"INNER", "FULL", "ANTI"})
  void joinBuildingOnTheLeftWithAResidualSpills(JoinType type) throws Exception {
    Rel build = facts(0);
    Rel join = build.join(dims(1), type, List.of("k"), List.of("dk"), r -> r.col("id").gt(r.col("dk")), true);
    assertSpillsAndMatchesDuckDb(join, build);
  }

  @ParameterizedTest
  @EnumSource(value = JoinType.class, names = {"INNER", "LEFT", "SEMI"})
  void skewedJoinWhoseHotKeyAloneOutgrowsTheBudgetBuildsOnTheSmallerSide(JoinType type) throws Exception {
    // 40% of the build side's rows share one key: no split of the hash separates them, so that
    // partition is joined with the other side's (small) partition as its build side.
    Rel build = facts(1);
    Rel join = dims(0).join(build, type, List.of("dk"), List.of("hot"), null, false);
    assertSpillsAndMatchesDuckDb(join, build);
  }

  /** About 44 dimension rows, some of which match no fact (dk of 37 and more reach past every k). */
  private Rel fewDims(int input) {
    return dims(input).filter(r -> r.col("dk").lt(X.lit(40)));
  }

  /** A non-equi condition: k within 300 above dk * 3300 (about 750 facts per dimension row). */
  private static X band(Rel r) {
    X lo = r.col("dk").times(X.lit(3300));
    return r.col("k").between(lo, lo.plus(X.lit(300)));
  }

  @ParameterizedTest
  @EnumSource(value = JoinType.class, names = {"INNER", "LEFT", "RIGHT", "FULL", "SEMI", "ANTI"})
  void nestedLoopJoinWithABuildSideTenTimesTheBudgetJoinsBlockByBlock(JoinType type) throws Exception {
    Rel build = facts(1);
    Rel join = fewDims(0).nestedLoopJoin(build, type, SpillingOperatorsTest::band);
    assertSpillsAndMatchesDuckDb(join, build);
  }

  @ParameterizedTest
  @EnumSource(value = JoinType.class, names = {"INNER", "FULL", "ANTI"})
  void nestedLoopJoinBuildingOnTheLeftSpillsAlike(JoinType type) throws Exception {
    // A hash join without keys runs as a nested-loop join; here the left input is its build side.
    Rel build = facts(0);
    Rel join = build.join(fewDims(1), type, List.of(), List.of(), SpillingOperatorsTest::band, true);
    assertSpillsAndMatchesDuckDb(join, build);
  }

  private static final SqlType DECIMAL_SUM = SqlType.decimal(38, 2);
  private static final SqlType V = SqlType.decimal(12, 2);
  private static final FrameBound UNBOUNDED_PRECEDING = WindowRel.bound(FrameBound.Kind.UNBOUNDED_PRECEDING, null);
  private static final FrameBound CURRENT_ROW = WindowRel.bound(FrameBound.Kind.CURRENT_ROW, null);
  private static final WindowFrame RUNNING = WindowRel.frame(WindowFrame.Unit.RANGE, UNBOUNDED_PRECEDING, CURRENT_ROW);

  private static WindowFrame rows(FrameBound start, FrameBound end) {
    return WindowRel.frame(WindowFrame.Unit.ROWS, start, end);
  }

  private static FrameBound preceding(long n) {
    return WindowRel.bound(FrameBound.Kind.PRECEDING, X.lit(n));
  }

  private static FrameBound following(long n) {
    return WindowRel.bound(FrameBound.Kind.FOLLOWING, X.lit(n));
  }

  /** A call of the fact table's column {@code arg}. */
  private Call call(Function function, String arg, SqlType type, String sql) {
    return Call.of(function, type, sql).arg(facts(0).index(arg));
  }

  /** DuckDB's text of a call over {@code spec} with a frame of its own. */
  private static String framed(String call, Spec spec, String frame) {
    return call + " OVER " + spec.sql(frame) + " /* %s */";
  }

  @Test
  void windowOverManyPartitionsSpillsSortedRunsAndEqualsDuckDb() throws Exception {
    Rel input = facts(0);
    Spec spec = new Spec(List.of("k"), List.of(Key.asc("v"), Key.asc("id")));
    Rel w = WindowRel.window(input, spec, List.of(
        Call.of(Function.RANK, SqlType.BIGINT, "RANK()"),
        Call.of(Function.ROW_NUMBER, SqlType.BIGINT, "ROW_NUMBER()"),
        call(Function.SUM, "v", DECIMAL_SUM, framed("SUM(v)", spec, "ROWS BETWEEN 2 PRECEDING AND CURRENT ROW"))
            .frame(rows(preceding(2), CURRENT_ROW)),
        call(Function.LAG, "s", SqlType.VARCHAR, "LAG(s)").offset(1),
        Call.of(Function.COUNT_STAR, SqlType.BIGINT, "COUNT(*)").frame(RUNNING),
        Call.of(Function.NTILE, SqlType.BIGINT, "NTILE(3)").offset(3)), "");
    assertSpillsAndMatchesDuckDb(w, input);
  }

  @Test
  void windowOverOneHugePartitionStreamsPeerGroupsAndRunningValues() throws Exception {
    // No PARTITION BY: the whole input, ten times the budget, is one partition; g ties in pairs.
    Rel input = facts(0);
    Spec spec = new Spec(List.of(), List.of(Key.asc("g")));
    Rel w = WindowRel.window(input, spec, List.of(
        Call.of(Function.RANK, SqlType.BIGINT, "RANK()"),
        Call.of(Function.DENSE_RANK, SqlType.BIGINT, "DENSE_RANK()"),
        call(Function.SUM, "v", DECIMAL_SUM, "SUM(v)").frame(RUNNING),
        Call.of(Function.COUNT_STAR, SqlType.BIGINT, "COUNT(*)").frame(RUNNING),
        call(Function.MAX, "s", SqlType.VARCHAR, "MAX(s)").frame(RUNNING)), "");
    assertSpillsAndMatchesDuckDb(w, input);
  }

  @Test
  void windowOverOneHugePartitionStreamsBoundedFrames() throws Exception {
    Rel input = facts(0);
    Spec spec = new Spec(List.of(), List.of(Key.desc("id")));
    Rel w = WindowRel.window(input, spec, List.of(
        Call.of(Function.ROW_NUMBER, SqlType.BIGINT, "ROW_NUMBER()"),
        call(Function.LAG, "s", SqlType.VARCHAR, "LAG(s, 3)").offset(3),
        call(Function.LEAD, "v", V, "LEAD(v, 2)").offset(2),
        call(Function.SUM, "v", DECIMAL_SUM, framed("SUM(v)", spec, "ROWS BETWEEN 5 PRECEDING AND 2 FOLLOWING"))
            .frame(rows(preceding(5), following(2))),
        call(Function.MIN, "v", V, framed("MIN(v)", spec, "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"))
            .frame(rows(UNBOUNDED_PRECEDING, CURRENT_ROW)),
        call(Function.FIRST_VALUE, "s", SqlType.VARCHAR, framed("FIRST_VALUE(s)", spec, "ROWS BETWEEN 2 PRECEDING AND CURRENT ROW"))
            .frame(rows(preceding(2), CURRENT_ROW))), "");
    assertSpillsAndMatchesDuckDb(w, input);
  }

  private static final FrameBound UNBOUNDED_FOLLOWING = WindowRel.bound(FrameBound.Kind.UNBOUNDED_FOLLOWING, null);
  private static final String WHOLE = "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING";

  @Test
  void windowPartitionPastTheBudgetWhoseCallsNeedItWholeIsSpooledAndReadBack() throws Exception {
    // 40% of the rows share one value of `hot`: one partition four times the budget, beside
    // 180,000 partitions of one row. Its row count and whole-partition values are known only at its end.
    Rel input = facts(0);
    Spec spec = new Spec(List.of("hot"), List.of(Key.asc("id")));
    Rel w = WindowRel.window(input, spec, List.of(
        Call.of(Function.NTILE, SqlType.BIGINT, "NTILE(7)").offset(7),
        Call.of(Function.PERCENT_RANK, SqlType.DOUBLE, "PERCENT_RANK()"),
        Call.of(Function.CUME_DIST, SqlType.DOUBLE, "CUME_DIST()"),
        call(Function.SUM, "v", DECIMAL_SUM, framed("SUM(v)", spec, WHOLE)).frame(rows(UNBOUNDED_PRECEDING, UNBOUNDED_FOLLOWING)),
        Call.of(Function.COUNT_STAR, SqlType.BIGINT, framed("COUNT(*)", spec, WHOLE))
            .frame(rows(UNBOUNDED_PRECEDING, UNBOUNDED_FOLLOWING)),
        call(Function.FIRST_VALUE, "s", SqlType.VARCHAR, framed("FIRST_VALUE(s)", spec, WHOLE))
            .frame(rows(UNBOUNDED_PRECEDING, UNBOUNDED_FOLLOWING)),
        call(Function.LAST_VALUE, "v", V, framed("LAST_VALUE(v)", spec, WHOLE))
            .frame(rows(UNBOUNDED_PRECEDING, UNBOUNDED_FOLLOWING))), "");
    assertSpillsAndMatchesDuckDb(w, input);
  }

  @Test
  void windowOverOneHugePartitionWithPeerGroupsSpoolsForCumeDistAndPercentRank() throws Exception {
    // No PARTITION BY and g ties in pairs: the peer groups of CUME_DIST and PERCENT_RANK cross segments.
    Rel input = facts(0);
    Spec spec = new Spec(List.of(), List.of(Key.asc("g")));
    WindowFrame whole = WindowRel.frame(WindowFrame.Unit.RANGE, UNBOUNDED_PRECEDING, UNBOUNDED_FOLLOWING);
    Rel w = WindowRel.window(input, spec, List.of(
        Call.of(Function.CUME_DIST, SqlType.DOUBLE, "CUME_DIST()"),
        Call.of(Function.PERCENT_RANK, SqlType.DOUBLE, "PERCENT_RANK()"),
        Call.of(Function.RANK, SqlType.BIGINT, "RANK()"),
        call(Function.MAX, "s", SqlType.VARCHAR, framed("MAX(s)", spec, "RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING"))
            .frame(whole),
        call(Function.MIN, "v", V, framed("MIN(v)", spec, "RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING"))
            .frame(whole)), "");
    assertSpillsAndMatchesDuckDb(w, input);
  }

  @Test
  void windowPartitionPastTheBudgetThatNeedsItWholeFailsNamingTheWindow() {
    // A frame from each row to the partition's end cannot be read a segment at a time.
    Spec spec = new Spec(List.of(), List.of(Key.asc("id")));
    Rel w = WindowRel.window(facts(0), spec, List.of(
        call(Function.SUM, "v", DECIMAL_SUM, framed("SUM(v)", spec, "ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING"))
            .frame(rows(CURRENT_ROW, UNBOUNDED_FOLLOWING))), "");
    assertThatThrownBy(() -> run(w.op(), BUDGET, DISK, () -> false))
        .isInstanceOfSatisfying(EngineException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INSUFFICIENT_RESOURCES))
        .hasMessageContaining("Window#")
        .hasMessageContaining("SUM")
        .hasMessageContaining("--task-memory-mb");
    assertNoSpillFiles();
  }

  @Test
  void windowAndNestedLoopJoinCancelledMidwayLeaveNoSpillFile() {
    Spec spec = new Spec(List.of("k"), List.of(Key.asc("id")));
    Operator window = WindowRel.window(facts(0), spec, List.of(Call.of(Function.ROW_NUMBER, SqlType.BIGINT, "ROW_NUMBER()")), "").op();
    Operator join = fewDims(0).nestedLoopJoin(facts(1), JoinType.FULL, SpillingOperatorsTest::band).op();
    for (Operator plan : List.of(window, join)) {
      assertCancelledOnceSpilledLeavesNothing(plan);
    }
  }

  @Test
  void windowAndNestedLoopJoinOutOfMemoryAndDiskFailNamingTheOperatorAndTheSettings() {
    Operator window = WindowRel.window(facts(0), new Spec(List.of("k"), List.of(Key.asc("id"))),
        List.of(Call.of(Function.ROW_NUMBER, SqlType.BIGINT, "ROW_NUMBER()")), "").op();
    Operator join = fewDims(0).nestedLoopJoin(facts(1), JoinType.INNER, SpillingOperatorsTest::band).op();
    for (var c : List.of(java.util.Map.entry(window, "Window#"), java.util.Map.entry(join, "NestedLoopJoin#"))) {
      assertThatThrownBy(() -> run(c.getKey(), BUDGET, 256 * 1024, () -> false))
          .isInstanceOfSatisfying(EngineException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INSUFFICIENT_RESOURCES))
          .hasMessageContaining(c.getValue())
          .hasMessageContaining("SQUALL_SPILL_DISK_MB")
          .hasMessageContaining("--task-memory-mb");
      assertNoSpillFiles();
    }
  }

  private void assertCancelledOnceSpilledLeavesNothing(Operator plan) {
    TaskSpill[] seen = new TaskSpill[1];
    assertThatThrownBy(() -> {
      try (BufferAllocator allocator = new RootAllocator();
          TaskSpill spill = new TaskSpill(new SpillSettings(spillDir, DISK))) {
        seen[0] = spill;
        try (FragmentExecutor.Execution run = FragmentExecutor.execute(plan, TestInputs.forPlan(plan, f), allocator,
            BUDGET, () -> spill.bytesOnDisk() > 0, spill)) {
          while (run.hasNext()) {
            run.nextBatch();
          }
        }
      }
    }).isInstanceOfSatisfying(EngineException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CANCELLED));
    assertThat(seen[0].bytesSpilled()).isPositive();
    assertNoSpillFiles();
  }

  @Test
  void cancelledMidwayLeavesNoSpillFile() {
    Rel input = facts(0);
    Operator plan = input.sort(List.of(Key.asc("s"))).op();
    TaskSpill[] seen = new TaskSpill[1];
    assertThatThrownBy(() -> {
      try (BufferAllocator allocator = new RootAllocator();
          TaskSpill spill = new TaskSpill(new SpillSettings(spillDir, DISK))) {
        seen[0] = spill;
        // Cancelled once the sort has runs on disk, while it still reads its input.
        try (FragmentExecutor.Execution run = FragmentExecutor.execute(plan, TestInputs.forPlan(plan, f), allocator,
            BUDGET, () -> spill.bytesOnDisk() > 0, spill)) {
          while (run.hasNext()) {
            run.nextBatch();
          }
        }
      }
    }).isInstanceOfSatisfying(EngineException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CANCELLED));
    assertThat(seen[0].bytesSpilled()).isPositive();
    assertNoSpillFiles();
  }

  @Test
  void memoryAndDiskBothExhaustedFailsNamingTheOperatorAndTheSettings() {
    Operator plan = facts(0).aggregate(List.of("g"), List.of(Agg.countStar("n")), AggMode.SINGLE).op();
    assertThatThrownBy(() -> run(plan, BUDGET, 256 * 1024, () -> false))
        .isInstanceOfSatisfying(EngineException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INSUFFICIENT_RESOURCES))
        .hasMessageContaining("HashAggregate#")
        // What is on disk when the budget is reached, never the empty file being started.
        .hasMessageMatching("(?s).*spill files hold [1-9]\\d* bytes \\([1-9]\\d* of them the operator's\\).*")
        .hasMessageContaining("SQUALL_SPILL_DISK_MB")
        .hasMessageContaining("--task-memory-mb");
    assertNoSpillFiles();
  }

  @Test
  void withoutASpillDirectoryAnOperatorOverTheBudgetStillFails() {
    Operator plan = facts(0).sort(List.of(Key.asc("s"))).op();
    assertThatThrownBy(() -> run(plan, BUDGET, 0, () -> false))
        .isInstanceOfSatisfying(EngineException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INSUFFICIENT_RESOURCES))
        .hasMessageStartingWith("task memory exceeded: operator Sort#");
  }
}

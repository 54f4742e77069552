package dev.squall.engine.operator;

import static dev.squall.engine.testing.Rel.Agg.count;
import static dev.squall.engine.testing.Rel.Agg.countStar;
import static dev.squall.engine.testing.Rel.Agg.max;
import static dev.squall.engine.testing.Rel.Agg.min;
import static dev.squall.engine.testing.Rel.Agg.sum;
import static dev.squall.engine.testing.X.dec;
import static dev.squall.engine.testing.X.lit;
import static dev.squall.engine.testing.X.str;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.squall.engine.EngineException;
import dev.squall.engine.FragmentExecutor;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.input.BatchSource;
import dev.squall.engine.input.InputProvider;
import dev.squall.engine.memory.TaskMemory;
import dev.squall.engine.testing.DuckDbOracle;
import dev.squall.engine.testing.LocalFileIO;
import dev.squall.engine.testing.MemTable;
import dev.squall.engine.testing.Rel;
import dev.squall.engine.testing.Rel.AggMode;
import dev.squall.engine.testing.Rows;
import dev.squall.engine.testing.TestInputs;
import dev.squall.engine.testing.TpchFixture;
import dev.squall.engine.testing.X;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.JoinType;
import dev.squall.proto.v1.ScanInput;
import dev.squall.proto.v1.ScanSplit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.FileIO;
import org.junit.jupiter.api.Test;

/** Scans of Iceberg splits (projection, pushed filter, bad splits) and shuffle-input batches. */
class ScanAndShuffleReadTest {
  private final TpchFixture f = TpchFixture.sf001();

  @Test
  void scanProjectsFieldsInPlanOrderAcrossEverySplit() throws Exception {
    Rel rel = Rel.scan(f, "lineitem", 0, "l_comment", "l_shipdate", "l_orderkey", "l_extendedprice");
    List<List<Object>> expected = Rows.duckdb(DuckDbOracle.connection(), rel.sql());
    List<List<Object>> actual = Rows.run(rel.op(), TestInputs.forPlan(rel.op(), f), 256L << 20);
    assertThat(f.table("lineitem").splitJson()).hasSizeGreaterThan(1);
    assertNull(Rows.difference(expected, actual, false));
  }

  @Test
  void pushedFilterSkipsRowGroupsWhileTheFilterAboveStaysExact() throws Exception {
    String filter = ExpressionParser.toJson(Expressions.lessThan("l_orderkey", 2000L));
    Rel scan = Rel.scan(f, "lineitem", 0, "l_orderkey", "l_quantity").withScanIcebergFilter(filter);
    long scanned = Rows.run(scan.op(), TestInputs.forPlan(scan.op(), f), 256L << 20).size();
    Rel exact = scan.filter(r -> r.col("l_orderkey").lt(lit(2000L)));
    List<List<Object>> expected = Rows.duckdb(DuckDbOracle.connection(), exact.sql());
    List<List<Object>> actual = Rows.run(exact.op(), TestInputs.forPlan(exact.op(), f), 256L << 20);
    assertNull(Rows.difference(expected, actual, false));
    // Row groups whose l_orderkey range lies above the bound were never read.
    assertThat(scanned).isLessThan(f.table("lineitem").rows()).isGreaterThanOrEqualTo(actual.size());
  }

  @Test
  void scansUnderAnAggregateRecycleTheirArraysAndScansUnderASortOrJoinBuildDoNot() throws Exception {
    // Under the aggregate (through a filter and a projection) each lineitem batch is decoded into
    // the arrays of the one before; the sort and the join's build side keep every batch, so their
    // scans must hand on fresh arrays. Both against DuckDB over the same files.
    Rel filtered = Rel.scan(f, "lineitem", 0, "l_orderkey", "l_returnflag", "l_quantity", "l_extendedprice", "l_shipdate",
        "l_comment").filter(r -> r.col("l_quantity").lt(dec("30")));
    Rel aggregated = filtered.project(r -> m("flag", r.col("l_returnflag"), "price", r.col("l_extendedprice"),
        "day", r.col("l_shipdate"), "c", r.col("l_comment")))
        .aggregate(List.of("flag"), List.of(countStar("n"), sum("price", "sp"), max("day", "md"), min("c", "mc")), AggMode.SINGLE);
    Rel sorted = filtered.sort(List.of(Rel.Key.asc("l_extendedprice"), Rel.Key.asc("l_orderkey"), Rel.Key.asc("l_comment")));
    Rel joined = Rel.scan(f, "orders", 1, "o_orderkey", "o_orderdate")
        .join(Rel.scan(f, "lineitem", 0, "l_orderkey", "l_quantity", "l_comment"), JoinType.INNER, List.of("o_orderkey"),
            List.of("l_orderkey"), null, false)
        .aggregate(List.of("o_orderdate"), List.of(countStar("n"), sum("l_quantity", "q"), max("l_comment", "mc")), AggMode.SINGLE);
    for (Rel rel : List.of(aggregated, sorted, joined)) {
      List<List<Object>> actual = Rows.run(rel.op(), TestInputs.forPlan(rel.op(), f), 256L << 20);
      assertNull(Rows.difference(Rows.duckdb(DuckDbOracle.connection(), rel.sql()), actual, rel == sorted));
    }
  }

  @Test
  void aSplitThatIsNotFileScanTaskJsonIsReportedWithItsDataFile() {
    Rel rel = Rel.scan(f, "nation", 0, "n_name");
    InputProvider bad = new InputProvider() {
      @Override
      public ScanInput scanInput(int inputIndex) {
        return ScanInput.newBuilder().addSplits(ScanSplit.newBuilder().setFileScanTaskJson("{\"nope\": 1}")
            .setDataFilePath("s3://bucket/nation/part-0.parquet")).build();
      }

      @Override
      public FileIO fileIO() {
        return new LocalFileIO();
      }

      @Override
      public BatchSource shuffleInput(int inputIndex, BufferAllocator allocator) {
        throw new IllegalArgumentException("no shuffle inputs");
      }
    };
    try (BufferAllocator allocator = new RootAllocator()) {
      assertThatThrownBy(() -> FragmentExecutor.run(rel.op(), bad, allocator, 0, b -> { }))
          .isInstanceOfSatisfying(EngineException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INTERNAL_ERROR))
          .hasMessageContaining("s3://bucket/nation/part-0.parquet");
    }
  }

  @Test
  void shuffleBatchesOfNarrowerTypesAreWidenedToThePlanTypes() throws Exception {
    List<Object[]> rows = new ArrayList<>();
    for (long i = 0; i < 1000; i++) {
      rows.add(new Object[] {i % 5 == 0 ? null : i});
    }
    MemTable narrow = new MemTable("narrow", List.of("v"), List.of(SqlType.INTEGER), rows);
    MemTable wide = new MemTable("narrow", List.of("v"), List.of(SqlType.BIGINT), rows);
    Rel rel = wide.rel(0); // the plan says BIGINT, the batches carry INTEGER
    List<List<Object>> actual = Rows.run(rel.op(), new TestInputs().withShuffle(0, a -> narrow.batches(a, 64)), 16L << 20);
    wide.load(DuckDbOracle.connection());
    assertNull(Rows.difference(Rows.duckdb(DuckDbOracle.connection(), rel.sql()), actual, true));
  }

  @Test
  void emptyShuffleInputYieldsNoBatches() {
    MemTable empty = MemTable.random("t", 0, 0, 1);
    Rel rel = empty.rel(0);
    assertThat(Rows.run(rel.op(), new TestInputs().withShuffle(0, a -> empty.batches(a, 10)), 16L << 20)).isEmpty();
  }

  /** Batch sizes that grow and shrink, so reused arrays are sometimes large enough and sometimes not. */
  private static final int[] CHANGING_SIZES = {4000, 5, 1, 6000, 300, 2, 5000, 37, 7000, 900};

  /** A random table delivered as shuffle batches of {@link #CHANGING_SIZES} rows, in order. */
  private static List<VectorSchemaRoot> changingBatches(MemTable t, BufferAllocator allocator) {
    List<VectorSchemaRoot> out = new ArrayList<>();
    int start = 0;
    for (int size : CHANGING_SIZES) {
      List<Object[]> rows = t.rows().subList(start, start + size);
      out.addAll(new MemTable("part", List.of("id", "i", "d", "x", "s", "dt", "b"), List.of(SqlType.BIGINT,
          SqlType.INTEGER, SqlType.decimal(12, 2), SqlType.DOUBLE, SqlType.VARCHAR, SqlType.DATE, SqlType.BOOLEAN), rows)
          .batches(allocator, size));
      start += size;
    }
    return out;
  }

  private static MemTable changingTable() {
    int rows = 0;
    for (int size : CHANGING_SIZES) {
      rows += size;
    }
    return MemTable.random("reuse", rows, 12, 77);
  }

  private static Map<String, X> m(Object... kv) {
    Map<String, X> out = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      out.put((String) kv[i], (X) kv[i + 1]);
    }
    return out;
  }

  /** A condition that keeps most rows, drops NULLs of i and s, and keeps no row or every row of some small batches. */
  private static X mostRows(Rel r) {
    return X.and(r.col("i").gt(lit(-8)), r.col("s").ne(str("beta")));
  }

  @Test
  void aggregateOverFilterAndProjectOfShuffleBatchesOfChangingSizesMatchesDuckDb() throws Exception {
    // The aggregate keeps no batch, so the shuffle read and the filter reuse their arrays batch after
    // batch; the projection hands some of the filter's columns on as they are.
    MemTable t = changingTable();
    Rel rel = t.rel(0).filter(ScanAndShuffleReadTest::mostRows)
        .project(r -> m("b", r.col("b"), "s", r.col("s"), "d", r.col("d"), "e", r.col("d").times(dec("2")),
            "x", r.col("x"), "dt", r.col("dt"), "i", r.col("i")))
        .aggregate(List.of("b"), List.of(countStar("n"), sum("d", "sd"), sum("e", "se"), min("s", "mn"), max("s", "mx"),
            max("dt", "md"), sum("x", "sx"), count("i", "ci")), AggMode.SINGLE);
    List<List<Object>> actual = Rows.run(rel.op(), new TestInputs().withShuffle(0, a -> changingBatches(t, a)), 64L << 20);
    t.load(DuckDbOracle.connection());
    assertNull(Rows.difference(Rows.duckdb(DuckDbOracle.connection(), rel.sql()), actual, false));
  }

  @Test
  void sortAndJoinBuildSideOverAFilterKeepBatchesThatAreNotOverwritten() throws Exception {
    // Both keep the filter's batches until their input ends: the filter must gather into new arrays.
    MemTable t = changingTable();
    MemTable u = t.renamed("reuse_u", "u_");
    Rel sorted = t.rel(0).filter(ScanAndShuffleReadTest::mostRows).sort(List.of(Rel.Key.asc("id")));
    Rel joined = u.rel(1).filter(r -> r.col("u_x").gt(X.dbl(100))).join(t.rel(0).filter(ScanAndShuffleReadTest::mostRows),
        JoinType.INNER, List.of("u_id"), List.of("id"), null, false)
        .aggregate(List.of("s"), List.of(countStar("n"), sum("d", "sd"), max("u_s", "mu")), AggMode.SINGLE);
    TestInputs inputs = new TestInputs().withShuffle(0, a -> changingBatches(t, a)).withShuffle(1, a -> changingBatches(u, a));
    t.load(DuckDbOracle.connection());
    u.load(DuckDbOracle.connection());
    assertNull(Rows.difference(Rows.duckdb(DuckDbOracle.connection(), sorted.sql()), Rows.run(sorted.op(), inputs, 64L << 20), true));
    assertNull(Rows.difference(Rows.duckdb(DuckDbOracle.connection(), joined.sql()), Rows.run(joined.op(), inputs, 64L << 20), false));
  }

  @Test
  void aJoinWhoseConsumerKeepsNoBatchPassesThePromiseToItsProbeSideOnly() throws Exception {
    MemTable t = changingTable();
    MemTable u = t.renamed("reuse_u", "u_");
    // Probe side u (left), build side t (right); the aggregate above keeps no batch.
    Rel joined = u.rel(1).filter(r -> r.col("u_x").gt(X.dbl(100))).join(t.rel(0).filter(ScanAndShuffleReadTest::mostRows),
        JoinType.INNER, List.of("u_id"), List.of("id"), null, false)
        .aggregate(List.of("s"), List.of(countStar("n"), sum("d", "sd"), max("u_s", "mu"), min("u_d", "md")), AggMode.SINGLE);
    TestInputs inputs = new TestInputs().withShuffle(0, a -> changingBatches(t, a)).withShuffle(1, a -> changingBatches(u, a));
    try (BufferAllocator allocator = new RootAllocator();
        TaskMemory memory = new TaskMemory(allocator, 64L << 20);
        BatchOperator aggregate = new OperatorBuilder(memory, inputs).build(joined.op())) {
      BatchOperator join = aggregate.children().get(0);
      assertThat(join.consumerKeepsNoBatch()).isTrue();
      assertThat(join.children().get(0).consumerKeepsNoBatch()).as("probe side").isTrue();
      assertThat(join.children().get(1).consumerKeepsNoBatch()).as("build side").isFalse();
    }
    // With the probe side's filter and shuffle read reusing their arrays, the answer is unchanged.
    t.load(DuckDbOracle.connection());
    u.load(DuckDbOracle.connection());
    assertNull(Rows.difference(Rows.duckdb(DuckDbOracle.connection(), joined.sql()), Rows.run(joined.op(), inputs, 64L << 20), false));
  }

  @Test
  void filterHandsOnDistinctArraysUnlessItsConsumerPromisesToKeepNoBatch() {
    MemTable t = changingTable();
    Rel rel = t.rel(0).filter(ScanAndShuffleReadTest::mostRows);
    try (BufferAllocator allocator = new RootAllocator()) {
      // No promise: every batch handed on stays as it was when it was handed on.
      List<ColumnBatch> kept = new ArrayList<>();
      List<List<List<Object>>> seen = new ArrayList<>();
      try (TaskMemory memory = new TaskMemory(allocator, 64L << 20);
          BatchOperator filter = new OperatorBuilder(memory, new TestInputs().withShuffle(0, a -> changingBatches(t, a))).build(rel.op())) {
        ColumnBatch b;
        while ((b = filter.next()) != null) {
          kept.add(b);
          seen.add(rowsOf(b));
        }
        for (int i = 0; i < kept.size(); i++) {
          assertThat(rowsOf(kept.get(i))).as("batch %d read again after the last", i).isEqualTo(seen.get(i));
        }
      }
      // Promised: a selection is gathered into the previous selection's arrays once they are large enough.
      try (TaskMemory memory = new TaskMemory(allocator, 64L << 20);
          BatchOperator filter = new OperatorBuilder(memory, new TestInputs().withShuffle(0, a -> changingBatches(t, a))).build(rel.op())) {
        filter.promiseConsumerKeepsNoBatch();
        long[] previous = null;
        int reused = 0;
        int rows = 0;
        ColumnBatch b;
        while ((b = filter.next()) != null) {
          long[] ids = ((LongColumn) b.column(0)).values();
          reused += ids == previous ? 1 : 0;
          previous = ids;
          rows += b.rows();
        }
        assertThat(reused).isGreaterThan(0);
        assertThat(rows).isEqualTo(seen.stream().mapToInt(List::size).sum());
      }
    }
  }

  private static List<List<Object>> rowsOf(ColumnBatch b) {
    List<List<Object>> out = new ArrayList<>();
    Column[] cols = b.columns();
    for (int r = 0; r < b.rows(); r++) {
      List<Object> row = new ArrayList<>();
      for (Column c : cols) {
        row.add(c.get(r));
      }
      out.add(row);
    }
    return out;
  }
}

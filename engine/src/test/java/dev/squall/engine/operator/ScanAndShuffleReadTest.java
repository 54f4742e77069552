package dev.squall.engine.operator;

import static dev.squall.engine.testing.X.lit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.squall.engine.EngineException;
import dev.squall.engine.FragmentExecutor;
import dev.squall.engine.input.BatchSource;
import dev.squall.engine.input.InputProvider;
import dev.squall.engine.testing.DuckDbOracle;
import dev.squall.engine.testing.LocalFileIO;
import dev.squall.engine.testing.MemTable;
import dev.squall.engine.testing.Rel;
import dev.squall.engine.testing.Rows;
import dev.squall.engine.testing.TestInputs;
import dev.squall.engine.testing.TpchFixture;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.ScanInput;
import dev.squall.proto.v1.ScanSplit;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
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
}

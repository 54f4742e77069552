package dev.squall.engine;

import static dev.squall.engine.testing.X.and;
import static dev.squall.engine.testing.X.dec;
import static dev.squall.engine.testing.X.lit;
import static dev.squall.engine.testing.X.str;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.engine.testing.MemCheck;
import dev.squall.engine.testing.MemTable;
import dev.squall.engine.testing.Rel;
import dev.squall.engine.testing.Rows;
import dev.squall.engine.testing.TestInputs;
import dev.squall.engine.testing.X;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.ErrorCode;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** SQL errors raised by expression evaluation carry USER_ERROR and name the problem. */
class EngineErrorsTest {
  private static List<List<Object>> project(MemTable t, Function<Rel, X> expr) {
    Rel rel = t.rel(0).project(r -> {
      Map<String, X> m = new LinkedHashMap<>();
      m.put("e", expr.apply(r));
      return m;
    });
    return Rows.run(rel.op(), new TestInputs().withShuffle(0, a -> t.batches(a, 100)), 64L << 20);
  }

  private static MemTable ints(Object... values) {
    List<Object[]> rows = new ArrayList<>();
    for (Object v : values) {
      rows.add(new Object[] {v});
    }
    return new MemTable("ints", List.of("v"), List.of(SqlType.INTEGER), rows);
  }

  @Test
  void integerDivisionByZeroIsAUserError() {
    assertThatThrownBy(() -> project(ints(5L, 0L), r -> lit(10).div(r.col("v"))))
        .isInstanceOfSatisfying(EngineException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.USER_ERROR))
        .hasMessageContaining("division by zero");
  }

  @Test
  void decimalDivisionByZeroIsAUserError() {
    assertThatThrownBy(() -> project(ints(0L), r -> dec("1.50").div(r.col("v").cast(SqlType.decimal(10, 2)))))
        .hasMessageContaining("division by zero");
  }

  @Test
  void doubleDivisionByZeroFollowsIeee754AsInTrino() {
    // 1/0 = Infinity, -1/0 = -Infinity, 0/0 = NaN; mod(x, 0) = NaN.
    assertThat(project(ints(1L, -1L, 0L), r -> r.col("v").cast(SqlType.DOUBLE).div(X.dbl(0.0))))
        .containsExactly(List.of(Double.POSITIVE_INFINITY), List.of(Double.NEGATIVE_INFINITY), List.of(Double.NaN));
    assertThat(project(ints(7L), r -> r.col("v").cast(SqlType.DOUBLE).mod(X.dbl(0.0)))).containsExactly(List.of(Double.NaN));
  }

  @Test
  void integerOverflowOfTheResultTypeIsAUserError() {
    assertThatThrownBy(() -> project(ints(65536L), r -> r.col("v").times(r.col("v"))))
        .isInstanceOfSatisfying(EngineException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.USER_ERROR))
        .hasMessageContaining("numeric overflow").hasMessageContaining("INTEGER");
    assertThatThrownBy(() -> project(ints(1L), r -> lit(Long.MAX_VALUE).plus(r.col("v").cast(SqlType.BIGINT))))
        .hasMessageContaining("numeric overflow").hasMessageContaining("BIGINT");
  }

  @Test
  void decimalResultBeyondItsPrecisionIsAUserError() {
    X big = dec("12345678901234567890123456789.12");
    assertThatThrownBy(() -> project(ints(1L), r -> big.times(big)))
        .hasMessageContaining("numeric overflow").hasMessageContaining("DECIMAL(38");
  }

  @Test
  void failedFilterConditionReleasesItsInputBatch() {
    // Rows.run closes its allocator; a leaked batch would show as a suppressed "Memory was leaked".
    Rel rel = ints(1L, 2L).rel(0).filter(r -> str("abc").cast(SqlType.INTEGER).eq(r.col("v")));
    MemTable t = ints(1L, 2L);
    assertThatThrownBy(() -> Rows.run(rel.op(), new TestInputs().withShuffle(0, a -> t.batches(a, 100)), 64L << 20))
        .isInstanceOf(EngineException.class)
        .hasMessageContaining("cannot cast")
        .satisfies(e -> assertThat(e.getSuppressed()).isEmpty());
  }

  @Test
  void castOfTextThatIsNoNumberNamesTheTypeButNotTheValue() {
    // The value is user data: task errors are logged and kept in the job record.
    assertThatThrownBy(() -> project(ints(1L), r -> str("abc").cast(SqlType.INTEGER).plus(r.col("v"))))
        .isInstanceOfSatisfying(EngineException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.USER_ERROR))
        .hasMessageContaining("cannot cast").hasMessageContaining("INTEGER").hasMessageNotContaining("abc");
  }

  @Test
  void castOverflowNamesTheTypeButNotTheValue() {
    assertThatThrownBy(() -> project(ints(1L), r -> str("98765432101").cast(SqlType.INTEGER).plus(r.col("v"))))
        .isInstanceOf(EngineException.class)
        .hasMessageContaining("numeric overflow").hasMessageContaining("INTEGER").hasMessageNotContaining("98765432101");
  }

  @Test
  void divisionGuardedByAndIsNotEvaluatedOnGuardedRows() {
    MemTable t = ints(0L, 5L, null, 50L);
    List<List<Object>> rows = project(t, r -> and(r.col("v").ne(lit(0)), lit(100).div(r.col("v")).gt(lit(1))));
    List<Object> values = rows.stream().map(row -> row.get(0)).toList();
    // Row by row: FALSE (guard), 100/5 = 20 > 1, NULL, 100/50 = 2 > 1.
    assertThat(values).containsExactly(false, true, null, true);
  }

  @Test
  void decimalDivisionRoundsHalfUpAtTheResultScale() {
    MemTable t = ints(3L, 7L, -7L, 11L);
    SqlType d = SqlType.decimal(10, 2);
    List<List<Object>> rows = project(t, r -> dec("2.00").div(r.col("v").cast(d)));
    X sample = dec("2.00").div(X.column(0, "v", d));
    int scale = sample.type().scale();
    List<Object> expected = new ArrayList<>();
    for (long v : new long[] {3, 7, -7, 11}) {
      expected.add(new BigDecimal("2.00").divide(BigDecimal.valueOf(v), scale, RoundingMode.HALF_UP));
    }
    assertThat(rows.stream().map(row -> row.get(0)).toList()).containsExactlyElementsOf(expected);
  }

  @Test
  void sumBeyondBigintIsAUserError() {
    List<Object[]> rows = List.of(new Object[] {Long.MAX_VALUE - 1}, new Object[] {Long.MAX_VALUE - 1});
    MemTable t = new MemTable("bigs", List.of("v"), List.of(SqlType.BIGINT), rows);
    Rel rel = t.rel(0).aggregate(List.of(), List.of(Rel.Agg.sum("v", "s")), Rel.AggMode.SINGLE);
    assertThatThrownBy(() -> Rows.run(rel.op(), new TestInputs().withShuffle(0, a -> t.batches(a, 1)), 64L << 20))
        .hasMessageContaining("numeric overflow");
  }

  @Test
  void decimalsBeyondTheLongRangeAddAndSumExactly() throws Exception {
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      rows.add(new Object[] {(long) (i % 7), new BigDecimal("123456789012345678901234567." + String.format("%02d", i % 100)).multiply(BigDecimal.valueOf(i % 3 - 1))});
    }
    MemTable t = new MemTable("wide", List.of("k", "v"), List.of(SqlType.BIGINT, SqlType.decimal(38, 2)), rows);
    Rel rel = t.rel(0)
        .project(r -> {
          Map<String, X> m = new LinkedHashMap<>();
          m.put("k", r.col("k"));
          m.put("v", r.col("v"));
          m.put("w", r.col("v").plus(dec("0.01")).cast(SqlType.decimal(38, 2)));
          return m;
        })
        .aggregate(List.of("k"), List.of(Rel.Agg.sum("v", "sv"), Rel.Agg.sum("w", "sw"), Rel.Agg.max("v", "mx")), Rel.AggMode.SPLIT);
    MemCheck.check(rel, Map.of(0, t), "wide", 300);
  }

  @Test
  void cancelStopsASortWhileItTakesInItsInputNotAfter() {
    Object[] values = new Object[1000];
    for (int i = 0; i < values.length; i++) {
      values[i] = (long) i;
    }
    MemTable t = ints(values);
    Rel rel = t.rel(0).sort(List.of(Rel.Key.desc("v")));
    java.util.concurrent.atomic.AtomicInteger polls = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicInteger batchesMade = new java.util.concurrent.atomic.AtomicInteger();
    TestInputs inputs = new TestInputs().withShuffle(0, a -> {
      List<org.apache.arrow.vector.VectorSchemaRoot> batches = t.batches(a, 10);
      batchesMade.set(batches.size());
      return batches;
    });
    try (org.apache.arrow.memory.BufferAllocator allocator = new org.apache.arrow.memory.RootAllocator()) {
      // The sort asks its input for 100 batches before it can answer; the task is cancelled at the 5th.
      assertThatThrownBy(() -> {
        try (FragmentExecutor.Execution run = FragmentExecutor.execute(rel.op(), inputs, allocator, 64L << 20,
            () -> polls.incrementAndGet() > 5)) {
          while (run.hasNext()) {
            run.next().close();
          }
        }
      }).isInstanceOfSatisfying(EngineException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CANCELLED));
    }
    assertThat(batchesMade.get()).isEqualTo(100);
    assertThat(polls.get()).as("checks before the sort stopped").isEqualTo(6);
  }

  /** A cross join of 100 rows with 100 rows (10,000 rows) whose plan allows {@code maxRows}. */
  private static List<List<Object>> crossJoin(long maxRows) {
    Object[] hundred = new Object[100];
    for (int i = 0; i < 100; i++) {
      hundred[i] = (long) i;
    }
    MemTable t = ints(hundred);
    Rel join = t.rel(0).nestedLoopJoin(t.renamed("u", "u_").rel(1), dev.squall.proto.v1.JoinType.INNER, null);
    dev.squall.proto.v1.Operator capped = join.op().toBuilder()
        .setNestedLoopJoin(join.op().getNestedLoopJoin().toBuilder().setMaxRows(maxRows)).build();
    return Rows.run(capped, new TestInputs().withShuffle(0, a -> t.batches(a, 30)).withShuffle(1, a -> t.batches(a, 30)),
        64L << 20);
  }

  @Test
  void aCrossJoinFormingMoreRowsThanItsCapFailsNamingTheQueryProperty() {
    assertThat(crossJoin(10_000)).hasSize(10_000);
    assertThatThrownBy(() -> crossJoin(9_999))
        .isInstanceOfSatisfying(EngineException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.USER_ERROR))
        .hasMessageContaining("max_nested_loop_join_rows").hasMessageContaining("9999");
  }
}

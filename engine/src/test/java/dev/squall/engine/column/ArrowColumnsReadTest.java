package dev.squall.engine.column;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.engine.types.SqlType;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.util.TransferPair;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The shuffle-read edge's bulk paths ({@link ArrowColumns#read}: 64-bit values copied in bulk,
 * DECIMAL of up to 18 digits read as its low 64 bits) and the gather that a filter's selection
 * reads through ({@link DecimalColumn#gather}), each checked value by value against Arrow's own
 * accessors, with NULLs, negative values and a slice that starts inside a buffer.
 */
class ArrowColumnsReadTest {
  private final BufferAllocator allocator = new RootAllocator();
  private final List<FieldVector> vectors = new ArrayList<>();

  @AfterEach
  void close() {
    vectors.forEach(FieldVector::close);
    allocator.close();
  }

  /** Rows [from, from + n) of a vector as a vector of its own, as a shuffle reader may hand one over. */
  private FieldVector slice(FieldVector v, int from, int n) {
    TransferPair tp = v.getTransferPair(allocator);
    tp.splitAndTransfer(from, n);
    FieldVector out = (FieldVector) tp.getTo();
    vectors.add(out);
    return out;
  }

  /** Every row of the column equals Arrow's value (NULL included). */
  private static void assertSameValues(FieldVector v, Column c) {
    assertThat(c.size()).isEqualTo(v.getValueCount());
    for (int i = 0; i < v.getValueCount(); i++) {
      Object arrow = v.getObject(i);
      Object engine = c.get(i);
      if (arrow instanceof BigDecimal a) {
        assertThat((BigDecimal) engine).as("row %d", i).isEqualByComparingTo(a);
      } else {
        assertThat(engine).as("row %d", i).isEqualTo(arrow);
      }
    }
  }

  @Test
  void narrowDecimalsReadAsTheirLowHalfKeepSignAndNulls() {
    DecimalVector v = new DecimalVector("d", allocator, 15, 2);
    vectors.add(v);
    long[] unscaled = {0, -1, 99_999_999_999_999L, -99_999_999_999_999L, 12_345, Long.MIN_VALUE / 10_000, 7};
    v.allocateNew(unscaled.length);
    for (int i = 0; i < unscaled.length; i++) {
      if (i == 4) {
        v.setNull(i);
      } else {
        v.set(i, BigDecimal.valueOf(unscaled[i] % 1_000_000_000_000_000L, 2));
      }
    }
    v.setValueCount(unscaled.length);
    assertSameValues(v, ArrowColumns.read(v));
    assertSameValues(slice(v, 1, 5), ArrowColumns.read(slice(v, 1, 5)));
    assertThat(((DecimalColumn) ArrowColumns.read(v)).hasBig()).isFalse();
  }

  @Test
  void wideDecimalsBeyondTheLongRangeStillReadExactly() {
    DecimalVector v = new DecimalVector("d", allocator, 38, 0);
    vectors.add(v);
    v.allocateNew(3);
    v.set(0, new BigDecimal("-123456789012345678901234567890"));
    v.setNull(1);
    v.set(2, new BigDecimal("-5"));
    v.setValueCount(3);
    assertSameValues(v, ArrowColumns.read(v));
  }

  @Test
  void bigintsAndDoublesCopiedInBulkKeepNullsAndSliceOffsets() {
    BigIntVector longs = new BigIntVector("l", allocator);
    Float8Vector doubles = new Float8Vector("f", allocator);
    vectors.add(longs);
    vectors.add(doubles);
    int n = 37;
    longs.allocateNew(n);
    doubles.allocateNew(n);
    for (int i = 0; i < n; i++) {
      if (i % 5 == 3) {
        longs.setNull(i);
        doubles.setNull(i);
      } else {
        longs.set(i, (i % 2 == 0 ? -1L : 1L) << (i % 63));
        doubles.set(i, i % 7 == 0 ? -0.0 : i * -1.5e300);
      }
    }
    longs.setValueCount(n);
    doubles.setValueCount(n);
    for (FieldVector v : List.of(longs, doubles)) {
      assertSameValues(v, ArrowColumns.read(v));
      assertSameValues(slice(v, 3, 30), ArrowColumns.read(slice(v, 3, 30)));
      assertThat(ArrowColumns.read(slice(v, 0, 0)).size()).isZero();
    }
  }

  @Test
  void decimalGatherFollowsRowsAndMakesNullsOnlyWhereDue() {
    SqlType type = SqlType.decimal(15, 2);
    DecimalColumn plain = new DecimalColumn(type, new long[] {10, -20, 30, 40}, null, null, 4);
    Column picked = plain.gather(new int[] {3, 0, 0, 2}, 4);
    assertThat(picked.mayHaveNulls()).isFalse();
    assertThat(Arrays.asList(picked.get(0), picked.get(1), picked.get(2), picked.get(3)))
        .containsExactly(new BigDecimal("0.40"), new BigDecimal("0.10"), new BigDecimal("0.10"), new BigDecimal("0.30"));
    // Row -1 (an outer join's missing side) is NULL; so is a NULL source row.
    Column withMissing = plain.gather(new int[] {1, -1}, 2);
    assertThat(withMissing.get(0)).isEqualTo(new BigDecimal("-0.20"));
    assertThat(withMissing.isNull(1)).isTrue();
    DecimalColumn withNull = new DecimalColumn(type, new long[] {10, 0, 30}, null, new boolean[] {false, true, false}, 3);
    Column g = withNull.gather(new int[] {2, 1, 0}, 3);
    assertThat(g.isNull(0)).isFalse();
    assertThat(g.isNull(1)).isTrue();
    assertThat(g.get(2)).isEqualTo(new BigDecimal("0.10"));
  }
}

package dev.squall.engine.column;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.engine.hash.Murmur3;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The row hash every hash edge, aggregation and join uses ({@link Column#hashInto}), read from
 * Arrow vectors as a shuffle input delivers them.
 */
class ColumnHashTest {
  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void close() {
    allocator.close();
  }

  private static int[] hash(FieldVector vector) {
    int[] out = new int[vector.getValueCount()];
    java.util.Arrays.fill(out, Column.HASH_SEED);
    ArrowColumns.read(vector).hashInto(out, vector.getValueCount());
    return out;
  }

  @Test
  void equalIntegersHashEquallyWhateverTheirWidth() {
    try (SmallIntVector small = new SmallIntVector("s", allocator);
        IntVector integer = new IntVector("i", allocator);
        BigIntVector big = new BigIntVector("b", allocator)) {
      short[] values = {0, -1, 1, Short.MIN_VALUE, Short.MAX_VALUE, 1234};
      for (int i = 0; i < values.length; i++) {
        small.setSafe(i, values[i]);
        integer.setSafe(i, values[i]);
        big.setSafe(i, values[i]);
      }
      small.setValueCount(values.length);
      integer.setValueCount(values.length);
      big.setValueCount(values.length);
      assertThat(hash(small)).isEqualTo(hash(integer)).isEqualTo(hash(big));
      assertThat(hash(big)[0]).isEqualTo(Murmur3.hashLong(0, Column.HASH_SEED));
    }
  }

  @Test
  void negativeZeroAndEveryNanHashLikeSqlEquality() {
    try (Float8Vector d = new Float8Vector("d", allocator); Float4Vector f = new Float4Vector("f", allocator)) {
      d.setSafe(0, 0.0);
      d.setSafe(1, -0.0);
      d.setSafe(2, Double.NaN);
      d.setSafe(3, Double.longBitsToDouble(0x7ff8000000000001L)); // another NaN payload
      d.setSafe(4, 1.5);
      d.setValueCount(5);
      f.setSafe(0, 0.0f);
      f.setSafe(1, -0.0f);
      f.setSafe(2, Float.NaN);
      f.setSafe(3, Float.intBitsToFloat(0x7fc00001));
      f.setSafe(4, 1.5f);
      f.setValueCount(5);
      int[] dh = hash(d);
      assertThat(dh[0]).isEqualTo(dh[1]);
      assertThat(dh[2]).isEqualTo(dh[3]);
      assertThat(dh[4]).isNotEqualTo(dh[0]);
      // REAL widens to DOUBLE: equal values hash alike across the two.
      assertThat(hash(f)).isEqualTo(dh);
    }
  }

  @Test
  void nullsLeaveTheRunningHashUnchanged() {
    try (VarCharVector s = new VarCharVector("s", allocator)) {
      s.setSafe(0, "x".getBytes(StandardCharsets.UTF_8));
      s.setNull(1);
      s.setValueCount(2);
      int[] h = hash(s);
      assertThat(h[1]).isEqualTo(Column.HASH_SEED);
      assertThat(h[0]).isEqualTo(Murmur3.hashBytes(new byte[] {'x'}, 0, 1, Column.HASH_SEED));
    }
  }

  @Test
  void decimalsHashTheirUnscaled128BitValue() {
    try (DecimalVector a = new DecimalVector("a", allocator, 38, 4); DecimalVector b = new DecimalVector("b", allocator, 20, 4)) {
      List<BigDecimal> values = List.of(new BigDecimal("0.0000"), new BigDecimal("-1.0000"),
          new BigDecimal("9999999999999999999999999999999999.9999"), new BigDecimal("-12345.6789"));
      for (int i = 0; i < values.size(); i++) {
        a.setSafe(i, values.get(i));
      }
      a.setValueCount(values.size());
      b.setSafe(0, values.get(3));
      b.setValueCount(1);
      int[] ha = hash(a);
      assertThat(hash(b)[0]).as("same value, other precision, same scale").isEqualTo(ha[3]);
      // Independent: low then high 64 bits of the two's-complement unscaled value.
      java.math.BigInteger unscaled = values.get(2).unscaledValue();
      int expected = Murmur3.hashLong(unscaled.shiftRight(64).longValue(),
          Murmur3.hashLong(unscaled.longValue(), Column.HASH_SEED));
      assertThat(ha[2]).isEqualTo(expected);
    }
  }

  @Test
  void vectorsOfNoSqlScalarTypeAreRefusedByName() {
    try (ListVector list = ListVector.empty("tags", allocator)) {
      list.setValueCount(1);
      assertThatThrownBy(() -> ArrowColumns.read(list))
          .isInstanceOf(dev.squall.engine.EngineException.class)
          .hasMessageContaining("unsupported Arrow type List");
    }
  }
}

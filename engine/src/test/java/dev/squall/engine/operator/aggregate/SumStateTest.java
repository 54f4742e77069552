package dev.squall.engine.operator.aggregate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.types.SqlType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * DECIMAL sums that leave the long range continue in 128 bits: each group's sum equals BigInteger
 * arithmetic over the same inputs, through crossings of 2^63 in both directions, and a sum beyond
 * DECIMAL(38) is still an overflow error.
 */
class SumStateTest {
  private static final SqlType SUM = SqlType.decimal(38, 2);

  @Test
  void sumsPastTheLongRangeAreExact() {
    Random rnd = new Random(11);
    int groups = 3;
    SumState state = new SumState(SUM);
    BigInteger[] expected = {BigInteger.ZERO, BigInteger.ZERO, BigInteger.ZERO};
    for (int batch = 0; batch < 40; batch++) {
      int n = 256;
      long[] v = new long[n];
      int[] ids = new int[n];
      for (int i = 0; i < n; i++) {
        ids[i] = rnd.nextInt(groups);
        // Group 0 climbs past 2^63, group 1 falls below -2^63, group 2 swings across both ways.
        long magnitude = Long.MAX_VALUE / 64 + rnd.nextInt(1000);
        v[i] = switch (ids[i]) {
          case 0 -> magnitude;
          case 1 -> -magnitude;
          default -> batch < 20 ? magnitude : -magnitude - 7;
        };
        expected[ids[i]] = expected[ids[i]].add(BigInteger.valueOf(v[i]));
      }
      state.add(ids, n, groups, new DecimalColumn(SqlType.decimal(18, 2), v, null, null, n));
    }
    Column result = state.result(groups, SUM);
    for (int g = 0; g < groups; g++) {
      assertThat(((DecimalColumn) result).unscaledBig(g)).isEqualTo(expected[g]);
      assertThat(state.decimal(g)).isEqualTo(new BigDecimal(expected[g], 2));
    }
    assertThat(expected[0].bitLength()).isGreaterThan(64);
    assertThat(expected[1].bitLength()).isGreaterThan(64);
  }

  @Test
  void aSumBeyondDecimal38IsAnOverflow() {
    SumState state = new SumState(SUM);
    BigInteger big = BigInteger.TEN.pow(37).multiply(BigInteger.valueOf(6));
    DecimalColumn huge = new DecimalColumn(SqlType.decimal(38, 2), new long[] {0, 0}, new BigInteger[] {big, big}, null, 2);
    state.add(new int[] {0, 0}, 2, 1, huge);
    assertThatThrownBy(() -> state.result(1, SUM)).isInstanceOf(EngineException.class).hasMessageContaining("overflow");
  }

  @Test
  void batchesAddedWithoutPerRowChecksStayExactAfterLargeValues() {
    SumState state = new SumState(SUM);
    BigInteger expected = BigInteger.ZERO;
    boolean[] someNull = {false, true, false};
    long[][] batches = {
        {5, -3, 8}, // small: added without a check per row
        {Long.MAX_VALUE - 1000, 0, 0}, // too large for that: checked, the sum now just below 2^63
        {600, 600, 600}, // small again, but the sum passes 2^63: must stay checked
    };
    for (long[] v : batches) {
      for (int i = 0; i < v.length; i++) {
        expected = someNull[i] ? expected : expected.add(BigInteger.valueOf(v[i]));
      }
      state.add(new int[] {0, 0, 0}, 3, 1, new DecimalColumn(SqlType.decimal(18, 2), v, null, someNull.clone(), 3));
    }
    assertThat(((DecimalColumn) state.result(1, SUM)).unscaledBig(0)).isEqualTo(expected);
    assertThat(expected.bitLength()).isGreaterThan(63);
  }

  @Test
  void nullRowsAreLeftOutOfUncheckedBatches() {
    SumState state = new SumState(SUM);
    state.add(new int[] {0, 1, 1}, 3, 2, new DecimalColumn(SqlType.decimal(18, 2), new long[] {7, 9, 4}, null,
        new boolean[] {true, false, true}, 3));
    Column result = state.result(2, SUM);
    assertThat(result.isNull(0)).isTrue();
    assertThat(((DecimalColumn) result).unscaledLong(1)).isEqualTo(9);
  }
}

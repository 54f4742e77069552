package dev.squall.engine.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.Function;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;

/**
 * DECIMAL +, - and * take a branch-free loop when the operands' magnitude bound shows that no row
 * can overflow; these cases sit on both sides of that bound and are checked against BigInteger.
 */
class DecimalFastPathTest {
  private static Evaluator constant(DecimalColumn c) {
    return new Evaluator() {
      @Override
      public SqlType type() {
        return c.type();
      }

      @Override
      public Column evaluate(Batch batch) {
        return c;
      }
    };
  }

  private static DecimalColumn column(int p, int s, long... unscaled) {
    return new DecimalColumn(SqlType.decimal(p, s), unscaled.clone(), null, null, unscaled.length);
  }

  private static DecimalColumn eval(Function op, SqlType type, DecimalColumn a, DecimalColumn b) {
    ColumnBatch batch = new ColumnBatch(new Column[] {a}, a.size());
    return (DecimalColumn) new ArithmeticEvaluator(op, type, constant(a), constant(b)).evaluate(batch);
  }

  @Test
  void boundCoversEveryMagnitudeAndSaturatesAtMinValue() {
    assertThat(Decimals.bound(new long[] {0, 5, -7, 3}, 4)).isGreaterThanOrEqualTo(7).isLessThanOrEqualTo(14);
    assertThat(Decimals.bound(new long[] {-8}, 1)).isGreaterThanOrEqualTo(8);
    assertThat(Decimals.bound(new long[] {8}, 1)).isGreaterThanOrEqualTo(8);
    assertThat(Decimals.bound(new long[] {1, Long.MIN_VALUE}, 2)).isEqualTo(Long.MAX_VALUE);
    assertThat(Decimals.bound(new long[] {1, 99}, 1)).isEqualTo(2); // only rows [0, n)
  }

  @Test
  void productsNearTheLongRangeAreExactOnEitherPath() {
    long small = 3_037_000_499L; // small^2 < 2^63
    long large = 3_037_000_500L; // large^2 > 2^63: the wide path
    SqlType wide = SqlType.decimal(38, 0);
    DecimalColumn r = eval(Function.MULTIPLY, wide, column(19, 0, small, -small), column(19, 0, small, small));
    assertThat(r.unscaledBig(0)).isEqualTo(BigInteger.valueOf(small).pow(2));
    assertThat(r.unscaledBig(1)).isEqualTo(BigInteger.valueOf(small).pow(2).negate());
    DecimalColumn w = eval(Function.MULTIPLY, wide, column(19, 0, large, 2), column(19, 0, large, 3));
    assertThat(w.unscaledBig(0)).isEqualTo(BigInteger.valueOf(large).pow(2));
    assertThat(w.unscaledBig(1)).isEqualTo(BigInteger.valueOf(6));
  }

  @Test
  void productRescaledToTheResultScaleRoundsHalfUp() {
    // 1.25 * -0.5 = -0.625 -> -0.63 at scale 2; 0.05 * 0.1 = 0.005 -> 0.01.
    DecimalColumn r = eval(Function.MULTIPLY, SqlType.decimal(10, 2), column(5, 2, 125, 5), column(3, 1, -5, 1));
    assertThat(r.unscaledLong(0)).isEqualTo(-63);
    assertThat(r.unscaledLong(1)).isEqualTo(1);
  }

  @Test
  void sumsAtThePrecisionLimitStillOverflow() {
    SqlType p3 = SqlType.decimal(3, 0);
    assertThat(eval(Function.ADD, p3, column(3, 0, 500, -999), column(3, 0, 499, 0)).unscaledLong(0)).isEqualTo(999);
    assertThatThrownBy(() -> eval(Function.ADD, p3, column(3, 0, 500), column(3, 0, 500)))
        .isInstanceOf(EngineException.class).hasMessageContaining("overflow");
    // Past the long range on the wide path: exact, as DECIMAL(38) allows.
    DecimalColumn nearMin = eval(Function.SUBTRACT, SqlType.decimal(38, 0), column(19, 0, Long.MIN_VALUE + 1), column(19, 0, 2));
    assertThat(nearMin.unscaledBig(0)).isEqualTo(BigInteger.valueOf(Long.MIN_VALUE).subtract(BigInteger.ONE));
  }

  @Test
  void quotientsWhoseScaledDividendPassesTheLongRangeAreExact() {
    // DECIMAL(15,2) / DECIMAL(15,2) at scale 17: the dividend is scaled by 10^17, past 2^63 for
    // |x| above 0.92, while most quotients still fit a long (128/64-bit path).
    java.util.Random rnd = new java.util.Random(3);
    int n = 4000;
    long[] x = new long[n];
    long[] y = new long[n];
    for (int i = 0; i < n; i++) {
      x[i] = (rnd.nextInt(2_000_000) - 1_000_000) * (i % 3 == 0 ? 1000L : 1L);
      y[i] = rnd.nextInt(2_000_000) - 1_000_000;
      if (y[i] == 0) {
        y[i] = 7;
      }
    }
    SqlType type = SqlType.decimal(38, 17);
    DecimalColumn q = eval(Function.DIVIDE, type, column(15, 2, x), column(15, 2, y));
    for (int i = 0; i < n; i++) {
      java.math.BigDecimal expected = java.math.BigDecimal.valueOf(x[i], 2)
          .divide(java.math.BigDecimal.valueOf(y[i], 2), 17, java.math.RoundingMode.HALF_UP);
      assertThat(q.unscaledBig(i)).as("%s / %s", x[i], y[i]).isEqualTo(expected.unscaledValue());
    }
  }
}

package dev.squall.engine.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.Function;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * DECIMAL division on unscaled longs against {@link BigDecimal#divide(BigDecimal, int, RoundingMode)}
 * with HALF_UP, the rounding SQL's decimal division uses, over random operands of mixed signs,
 * scales and magnitudes up to the long range (where the scaled dividend no longer fits a long).
 */
class DecimalDivisionTest {
  private record Fixed(Column column) implements Evaluator {
    @Override
    public SqlType type() {
      return column.type();
    }

    @Override
    public Column evaluate(Batch batch) {
      return column;
    }
  }

  private static final Batch ROWS = new ColumnBatch(new Column[0], 2000);

  @Test
  void quotientsRoundHalfUpLikeBigDecimalForEveryScaleAndSign() {
    Random rnd = new Random(11);
    int[][] scales = {{2, 2, 6}, {2, 0, 8}, {0, 2, 6}, {4, 1, 10}, {2, 2, 0}, {0, 0, 3}, {6, 6, 18}};
    for (int[] sc : scales) {
      int n = 2000;
      long[] x = new long[n];
      long[] y = new long[n];
      for (int i = 0; i < n; i++) {
        long magnitude = (long) Math.pow(10, rnd.nextInt(19));
        x[i] = (rnd.nextLong() % Math.max(1, magnitude));
        y[i] = rnd.nextLong() % Math.max(2, (long) Math.pow(10, rnd.nextInt(12)));
        if (y[i] == 0) {
          y[i] = rnd.nextBoolean() ? 7 : -3;
        }
        if (i % 10 == 0) {
          y[i] = 2 * (rnd.nextBoolean() ? 1 : -1); // exact halves
        }
      }
      SqlType tx = SqlType.decimal(38, sc[0]);
      SqlType ty = SqlType.decimal(38, sc[1]);
      SqlType out = SqlType.decimal(38, sc[2]);
      Column result = new ArithmeticEvaluator(Function.DIVIDE, out,
          new Fixed(new DecimalColumn(tx, x, null, null, n)), new Fixed(new DecimalColumn(ty, y, null, null, n)))
          .evaluate(ROWS);
      for (int i = 0; i < n; i++) {
        BigDecimal expected = BigDecimal.valueOf(x[i], sc[0]).divide(BigDecimal.valueOf(y[i], sc[1]), sc[2], RoundingMode.HALF_UP);
        assertThat(((DecimalColumn) result).decimal(i)).as("%s / %s at scales %s", x[i], y[i], java.util.Arrays.toString(sc))
            .isEqualByComparingTo(expected);
      }
    }
  }

  @Test
  void integersDivideIntoADecimalAndZeroDivisorsAndOverflowAreErrors() {
    int n = 3;
    Column ints = new LongColumn(SqlType.BIGINT, new long[] {7, -7, Long.MAX_VALUE}, null, n);
    Column twos = new LongColumn(SqlType.BIGINT, new long[] {2, 2, 3}, null, n);
    Column q = new ArithmeticEvaluator(Function.DIVIDE, SqlType.decimal(38, 1), new Fixed(ints), new Fixed(twos))
        .evaluate(new ColumnBatch(new Column[0], n));
    assertThat(q.get(0)).isEqualTo(new BigDecimal("3.5"));
    assertThat(q.get(1)).isEqualTo(new BigDecimal("-3.5"));
    assertThat(((DecimalColumn) q).unscaledBig(2)).isEqualTo(
        new BigDecimal(BigInteger.valueOf(Long.MAX_VALUE)).divide(BigDecimal.valueOf(3), 1, RoundingMode.HALF_UP).unscaledValue());
    Column zero = new LongColumn(SqlType.BIGINT, new long[] {1, 0, 1}, null, n);
    assertThatThrownBy(() -> new ArithmeticEvaluator(Function.DIVIDE, SqlType.decimal(38, 2), new Fixed(ints), new Fixed(zero))
        .evaluate(new ColumnBatch(new Column[0], n)))
        .isInstanceOf(EngineException.class).hasMessageContaining("division by zero");
    assertThatThrownBy(() -> new ArithmeticEvaluator(Function.DIVIDE, SqlType.decimal(5, 2), new Fixed(ints), new Fixed(twos))
        .evaluate(new ColumnBatch(new Column[0], n)))
        .isInstanceOf(EngineException.class).hasMessageContaining("numeric overflow");
  }
}

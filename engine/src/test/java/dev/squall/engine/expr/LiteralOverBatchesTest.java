package dev.squall.engine.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.Function;
import dev.squall.proto.v1.Literal;
import java.math.BigDecimal;
import java.math.RoundingMode;
import org.junit.jupiter.api.Test;

/**
 * A literal keeps one constant column for the largest batch it has seen and hands smaller
 * batches (a filter's selections, a different size each batch) a view of its first rows; DECIMAL
 * arithmetic keeps the literal rescaled once the same way. These run one evaluator over batches
 * that shrink and grow, plain and selected, and check every row against BigDecimal arithmetic.
 */
class LiteralOverBatchesTest {
  private static final SqlType PRICE = SqlType.decimal(15, 2);
  private static final int[] SIZES = {6, 2, 9, 4, 9, 1, 12};

  private static Evaluator column0() {
    return new Evaluator() {
      @Override
      public SqlType type() {
        return PRICE;
      }

      @Override
      public Column evaluate(Batch batch) {
        return batch.column(0);
      }
    };
  }

  private static Literal decimal(String unscaled) {
    return Literal.newBuilder().setDecimalUnscaled(unscaled).build();
  }

  /** A batch of n prices (some NULL), or, when {@code selected}, every other row of 2n. */
  private static ColumnBatch batch(int n, int seed, boolean selected) {
    int rows = selected ? 2 * n : n;
    long[] unscaled = new long[rows];
    boolean[] nulls = new boolean[rows];
    for (int i = 0; i < rows; i++) {
      unscaled[i] = (seed * 31L + i * 977L) % 20_000 - 10_000;
      nulls[i] = (i + seed) % 7 == 3;
    }
    ColumnBatch b = new ColumnBatch(new Column[] {new DecimalColumn(PRICE, unscaled, null, nulls, rows)}, rows);
    if (!selected) {
      return b;
    }
    int[] sel = new int[n];
    for (int k = 0; k < n; k++) {
      sel[k] = 2 * k + 1;
    }
    return b.select(sel, n);
  }

  private static void check(Evaluator e, java.util.function.UnaryOperator<BigDecimal> expected) {
    for (boolean selected : new boolean[] {false, true}) {
      for (int b = 0; b < SIZES.length; b++) {
        ColumnBatch batch = batch(SIZES[b], b, selected);
        Column in = batch.column(0);
        Column out = e.evaluate(batch);
        for (int i = 0; i < SIZES[b]; i++) {
          Object want = in.isNull(i) ? null : expected.apply((BigDecimal) in.get(i));
          assertThat(out.get(i)).as("batch %d (selected %s) row %d", b, selected, i).isEqualTo(want);
        }
      }
    }
  }

  @Test
  void literalMinusColumnIsExactOverShrinkingAndGrowingBatches() {
    Evaluator one = new Literals.Constant(decimal("1"), SqlType.decimal(1, 0));
    Evaluator e = new ArithmeticEvaluator(Function.SUBTRACT, SqlType.decimal(16, 2), one, column0());
    check(e, v -> BigDecimal.ONE.subtract(v).setScale(2));
  }

  @Test
  void columnTimesLiteralAtAnotherScaleIsExactOverVaryingBatches() {
    Evaluator rate = new Literals.Constant(decimal("105"), SqlType.decimal(3, 2));
    Evaluator e = new ArithmeticEvaluator(Function.MULTIPLY, SqlType.decimal(19, 4), column0(), rate);
    check(e, v -> v.multiply(new BigDecimal("1.05")).setScale(4, RoundingMode.HALF_UP));
    Evaluator plus = new ArithmeticEvaluator(Function.ADD, SqlType.decimal(16, 2), column0(), rate);
    check(plus, v -> v.add(new BigDecimal("1.05")));
  }

  @Test
  void aLiteralsOwnMagnitudeDecidesWhetherARowCanOverflow() {
    // Prices lie in (-100.00, 100.00): 99.99 plus one fits five digits always, four digits not.
    Evaluator big = new Literals.Constant(decimal("9999"), SqlType.decimal(4, 2));
    check(new ArithmeticEvaluator(Function.ADD, SqlType.decimal(5, 2), column0(), big), v -> v.add(new BigDecimal("99.99")));
    Evaluator narrow = new ArithmeticEvaluator(Function.ADD, SqlType.decimal(4, 2), column0(), big);
    assertThatThrownBy(() -> check(narrow, v -> v.add(new BigDecimal("99.99"))))
        .isInstanceOf(EngineException.class).hasMessageContaining("overflow");
    // A literal near the long range times a price leaves the long range: exact on the wide path.
    Evaluator huge = new Literals.Constant(decimal("922337203685477580"), SqlType.decimal(18, 0));
    check(new ArithmeticEvaluator(Function.MULTIPLY, SqlType.decimal(38, 2), huge, column0()),
        v -> v.multiply(new BigDecimal("922337203685477580")));
    Evaluator minimum = new Literals.Constant(decimal(Long.toString(Long.MIN_VALUE)), SqlType.decimal(19, 0));
    check(new ArithmeticEvaluator(Function.SUBTRACT, SqlType.decimal(38, 2), minimum, column0()),
        v -> new BigDecimal(Long.MIN_VALUE).subtract(v).setScale(2));
  }

  @Test
  void aColumnScaledUpToALiteralsScaleKeepsItsDigits() {
    // DECIMAL(15,2) at scale 4 holds 17 digits: the sum fits DECIMAL(18,4) without a pass over values.
    Evaluator rate = new Literals.Constant(decimal("12345"), SqlType.decimal(5, 4));
    check(new ArithmeticEvaluator(Function.ADD, SqlType.decimal(18, 4), column0(), rate), v -> v.add(new BigDecimal("1.2345")));
    check(new ArithmeticEvaluator(Function.SUBTRACT, SqlType.decimal(18, 4), rate, column0()),
        v -> new BigDecimal("1.2345").subtract(v));
  }

  @Test
  void nullAndStringLiteralsKeepTheirValueInEveryRowOfEveryBatch() {
    Evaluator nothing = new Literals.Constant(Literal.newBuilder().setIsNull(true).build(), PRICE);
    check(new ArithmeticEvaluator(Function.ADD, SqlType.decimal(16, 2), column0(), nothing), v -> null);
    Literals.Constant text = new Literals.Constant(Literal.newBuilder().setStringValue("MAIL").build(), SqlType.VARCHAR);
    for (int n : SIZES) {
      Column c = text.evaluate(batch(n, n, false));
      assertThat(c.size()).isEqualTo(n);
      for (int i = 0; i < n; i++) {
        assertThat(c.get(i)).isEqualTo("MAIL");
      }
    }
  }
}

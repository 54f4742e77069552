package dev.squall.engine.expr;

import static dev.squall.engine.testing.X.dec;
import static dev.squall.engine.testing.X.lit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.BoolColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.testing.X;
import dev.squall.engine.types.SqlType;
import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Arithmetic and casts on literals are computed once when the expression is compiled, with the
 * engine's own evaluators; one that fails is left to fail where rows are evaluated, as before.
 * (Answers over random data are checked against DuckDB in {@link ExpressionFamiliesTest}.)
 */
class ConstantFoldingTest {
  private static final X D = X.column(0, "d", SqlType.decimal(12, 2));
  private static final ExprCompiler COMPILER = new ExprCompiler(List.of(D.type()));

  private static ColumnBatch batch(long... unscaled) {
    return new ColumnBatch(new Column[] {new DecimalColumn(D.type(), unscaled, null, null, unscaled.length)}, unscaled.length);
  }

  @Test
  void arithmeticOnLiteralsIsOneConstant() {
    Evaluator e = COMPILER.compile(dec("0.06").minus(dec("0.01")).expr());
    assertThat(e).isInstanceOf(Literals.Constant.class);
    Column out = e.evaluate(batch(1, 2, 3));
    assertThat(out.size()).isEqualTo(3);
    for (int i = 0; i < 3; i++) {
      assertThat(((DecimalColumn) out).decimal(i)).isEqualByComparingTo(new BigDecimal("0.05"));
    }
  }

  @Test
  void nestedArithmeticAndCastsOnLiteralsFoldWhole() {
    Evaluator e = COMPILER.compile(lit(7).plus(lit(5)).times(lit(2)).cast(SqlType.decimal(10, 1)).neg().expr());
    assertThat(e).isInstanceOf(Literals.Constant.class);
    assertThat(((DecimalColumn) e.evaluate(batch(0))).decimal(0)).isEqualByComparingTo(new BigDecimal("-24.0"));
  }

  @Test
  void aComparisonWithFoldedBoundsAnswersAsWithLiterals() {
    X folded = X.and(D.ge(dec("0.06").minus(dec("0.01"))), D.le(dec("0.06").plus(dec("0.01"))));
    X literal = X.and(D.ge(dec("0.05")), D.le(dec("0.07")));
    ColumnBatch b = batch(4, 5, 6, 7, 8, -5);
    assertThat(((BoolColumn) COMPILER.compile(folded.expr()).evaluate(b)).values())
        .containsExactly(((BoolColumn) COMPILER.compile(literal.expr()).evaluate(b)).values())
        .containsExactly(false, true, true, true, false, false);
  }

  @Test
  void aNullOperandFoldsToNull() {
    Evaluator e = COMPILER.compile(lit(1).plus(X.nullOf(SqlType.INTEGER)).expr());
    assertThat(e).isInstanceOf(Literals.Constant.class);
    Column out = e.evaluate(batch(1, 2));
    assertThat(out.isNull(0)).isTrue();
    assertThat(out.isNull(1)).isTrue();
  }

  @Test
  void aFailingConstantIsLeftToFailOnlyWhereRowsAreEvaluated() {
    Evaluator divide = COMPILER.compile(lit(1).div(lit(0)).expr());
    assertThat(divide).isNotInstanceOf(Literals.Constant.class);
    assertThat(divide.evaluate(batch()).size()).isZero();
    assertThatThrownBy(() -> divide.evaluate(batch(1))).isInstanceOf(EngineException.class);

    Evaluator overflow = COMPILER.compile(lit(Long.MAX_VALUE).plus(lit(1)).expr());
    assertThat(overflow).isNotInstanceOf(Literals.Constant.class);
    assertThatThrownBy(() -> overflow.evaluate(batch(1))).isInstanceOf(EngineException.class);
  }
}

package dev.squall.engine.expr;

import static dev.squall.engine.testing.X.lit;
import static dev.squall.engine.testing.X.or;
import static dev.squall.engine.testing.X.str;
import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.engine.column.BoolColumn;
import dev.squall.engine.column.BytesColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.testing.X;
import dev.squall.engine.types.SqlType;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Equalities of one expression with literals, OR-ed or as an IN list, compile to one {@link
 * InListEvaluator} that computes the expression once per batch, with SQL's NULL rules. (Answers
 * over NULL-bearing random data are checked against DuckDB in {@link ExpressionFamiliesTest},
 * family "in lists".)
 */
class InListEvaluatorTest {
  private static final X S = X.column(0, "s", SqlType.VARCHAR);
  private static final X D = X.column(1, "d", SqlType.decimal(12, 2));
  private static final X I = X.column(2, "i", SqlType.INTEGER);
  private static final ExprCompiler COMPILER = new ExprCompiler(List.of(S.type(), D.type(), I.type()));

  private static ColumnBatch batch() {
    BytesColumn s = BytesColumn.of(SqlType.VARCHAR, "alpha".getBytes(), "beta".getBytes(), "gamma".getBytes(),
        "alto".getBytes());
    DecimalColumn d = new DecimalColumn(SqlType.decimal(12, 2), new long[] {150, 200, -50, 0}, null, null, 4);
    LongColumn i = new LongColumn(SqlType.INTEGER, new long[] {1, 4, 0, 7}, new boolean[] {false, false, true, false}, 4);
    return new ColumnBatch(new Column[] {s, d, i}, 4);
  }

  @Test
  void equalitiesOfOneExpressionWithLiteralsAreOneInList() {
    X prefix = S.substring(1, 2);
    Evaluator e = COMPILER.compile(or(prefix.eq(str("al")), str("ga").eq(prefix)).expr());
    assertThat(e).isInstanceOf(InListEvaluator.class);
    assertThat(((BoolColumn) e.evaluate(batch())).values()).containsExactly(true, false, true, true);
  }

  @Test
  void anInListWithANullLiteralIsNullWhereNothingMatches() {
    Evaluator e = COMPILER.compile(I.in(lit(4), X.nullOf(SqlType.INTEGER)).expr());
    assertThat(e).isInstanceOf(InListEvaluator.class);
    Column out = e.evaluate(batch());
    assertThat(out.isNull(0)).isTrue();
    assertThat(out.get(1)).isEqualTo(true);
    assertThat(out.isNull(2)).isTrue();
    assertThat(out.isNull(3)).isTrue();
  }
}

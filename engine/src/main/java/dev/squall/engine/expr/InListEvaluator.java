package dev.squall.engine.expr;

import dev.squall.engine.column.BoolColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.Function;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code x IN (l1, l2, ...)} over literals, and {@code x = l1 OR x = l2 ...}: x is computed once per
 * batch and each literal is compared with the whole column ({@link ComparisonEvaluator}'s scalar
 * loops, a dictionary column once per entry), the results joined by three-valued OR: TRUE when any
 * comparison is TRUE, else NULL when any is NULL (x NULL, or a NULL literal), else FALSE.
 *
 * <p>An OR of comparisons instead evaluates each term on the rows still open, gathering x's inputs
 * and computing x again for every term. Comparing with a literal never fails, so testing every row
 * against every literal raises no error the OR would not.
 */
final class InListEvaluator implements Evaluator {
  private final List<ComparisonEvaluator> tests;

  /**
   * @param value x
   * @param literals the literals, each a {@link Literals.Constant}
   */
  InListEvaluator(Evaluator value, List<Evaluator> literals) {
    Evaluator x = value instanceof ExprCompiler.Shared ? value : new ExprCompiler.Shared(value);
    tests = new ArrayList<>(literals.size());
    for (Evaluator literal : literals) {
      tests.add(new ComparisonEvaluator(Function.EQUAL, x, literal));
    }
  }

  @Override
  public SqlType type() {
    return SqlType.BOOLEAN;
  }

  @Override
  public Column evaluate(Batch batch) {
    int n = batch.rows();
    boolean[] out = new boolean[n];
    boolean[] sawNull = null;
    for (ComparisonEvaluator test : tests) {
      BoolColumn c = (BoolColumn) test.evaluate(batch);
      boolean[] v = c.values();
      boolean[] nulls = c.nullMask();
      if (nulls == null) {
        for (int i = 0; i < n; i++) {
          out[i] |= v[i];
        }
      } else {
        if (sawNull == null) {
          sawNull = new boolean[n];
        }
        for (int i = 0; i < n; i++) {
          // A NULL slot's value is undefined: only its null flag counts.
          out[i] |= v[i] & !nulls[i];
          sawNull[i] |= nulls[i];
        }
      }
    }
    boolean[] resultNulls = null;
    if (sawNull != null) {
      for (int i = 0; i < n; i++) {
        if (sawNull[i] && !out[i]) {
          if (resultNulls == null) {
            resultNulls = new boolean[n];
          }
          resultNulls[i] = true;
        }
      }
    }
    return new BoolColumn(out, resultNulls, n);
  }
}

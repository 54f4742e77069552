package dev.squall.engine.expr;

import dev.squall.engine.column.BoolColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.column.DoubleColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.types.SqlType;
import dev.squall.engine.types.SqlType.Physical;
import dev.squall.proto.v1.DataType.Kind;
import dev.squall.proto.v1.Function;

/**
 * Comparisons (=, &lt;&gt;, &lt;, &lt;=, &gt;, &gt;=, IS [NOT] DISTINCT FROM). Operands of different
 * types are compared in a common domain: doubles if either is floating, decimals at the larger
 * scale if either is DECIMAL, microseconds for DATE against TIMESTAMP. NULL operands give NULL,
 * except for IS [NOT] DISTINCT FROM.
 */
final class ComparisonEvaluator implements Evaluator {
  private final Function op;
  private final Evaluator left;
  private final Evaluator right;

  ComparisonEvaluator(Function op, Evaluator left, Evaluator right) {
    this.op = op;
    this.left = left;
    this.right = right;
  }

  @Override
  public SqlType type() {
    return SqlType.BOOLEAN;
  }

  @Override
  public Column evaluate(Batch batch) {
    int n = batch.rows();
    Column[] ab = commonDomain(left.evaluate(batch), right.evaluate(batch));
    Column a = ab[0];
    Column b = ab[1];
    boolean[] out = new boolean[n];
    boolean distinctOp = op == Function.IS_DISTINCT_FROM || op == Function.IS_NOT_DISTINCT_FROM;
    if (!distinctOp && a instanceof LongColumn la && b instanceof LongColumn lb) {
      compareLongs(la.values(), lb.values(), out, n);
    } else if (!distinctOp && a instanceof DoubleColumn da && b instanceof DoubleColumn db) {
      compareDoubles(da.values(), db.values(), out, n);
    } else {
      for (int i = 0; i < n; i++) {
        boolean an = a.isNull(i);
        boolean bn = b.isNull(i);
        if (an || bn) {
          if (distinctOp) {
            boolean distinct = an != bn;
            out[i] = op == Function.IS_DISTINCT_FROM ? distinct : !distinct;
          }
          continue;
        }
        int c = a.compareValues(i, b, i);
        out[i] = test(c);
      }
    }
    boolean[] nulls = distinctOp ? null : Coercions.orNulls(a.nullMask(), b.nullMask(), n);
    return new BoolColumn(out, nulls, n);
  }

  private boolean test(int c) {
    return switch (op) {
      case EQUAL, IS_NOT_DISTINCT_FROM -> c == 0;
      case NOT_EQUAL, IS_DISTINCT_FROM -> c != 0;
      case LESS_THAN -> c < 0;
      case LESS_THAN_OR_EQUAL -> c <= 0;
      case GREATER_THAN -> c > 0;
      case GREATER_THAN_OR_EQUAL -> c >= 0;
      default -> throw new IllegalStateException(op.name());
    };
  }

  private void compareLongs(long[] x, long[] y, boolean[] out, int n) {
    switch (op) {
      case EQUAL -> { for (int i = 0; i < n; i++) out[i] = x[i] == y[i]; }
      case NOT_EQUAL -> { for (int i = 0; i < n; i++) out[i] = x[i] != y[i]; }
      case LESS_THAN -> { for (int i = 0; i < n; i++) out[i] = x[i] < y[i]; }
      case LESS_THAN_OR_EQUAL -> { for (int i = 0; i < n; i++) out[i] = x[i] <= y[i]; }
      case GREATER_THAN -> { for (int i = 0; i < n; i++) out[i] = x[i] > y[i]; }
      case GREATER_THAN_OR_EQUAL -> { for (int i = 0; i < n; i++) out[i] = x[i] >= y[i]; }
      default -> throw new IllegalStateException(op.name());
    }
  }

  private void compareDoubles(double[] x, double[] y, boolean[] out, int n) {
    for (int i = 0; i < n; i++) {
      double a = x[i];
      double b = y[i];
      out[i] = test(a == b ? 0 : Double.compare(a, b));
    }
  }

  /** Both operands converted to one physical representation for comparison. */
  static Column[] commonDomain(Column a, Column b) {
    if (a.type().kind() == Kind.NULL_TYPE) {
      a = Column.nulls(b.type(), a.size());
    } else if (b.type().kind() == Kind.NULL_TYPE) {
      b = Column.nulls(a.type(), b.size());
    }
    Physical pa = a.type().physical();
    Physical pb = b.type().physical();
    if (pa == Physical.DOUBLE || pb == Physical.DOUBLE) {
      if (pa != Physical.BYTES && pb != Physical.BYTES && pa != Physical.BOOL && pb != Physical.BOOL) {
        return new Column[] {Coercions.toDouble(a), Coercions.toDouble(b)};
      }
    }
    if (pa == Physical.DECIMAL || pb == Physical.DECIMAL) {
      if ((pa == Physical.DECIMAL || pa == Physical.LONG) && (pb == Physical.DECIMAL || pb == Physical.LONG)) {
        int s = Math.max(scale(a), scale(b));
        return new Column[] {Coercions.toDecimal(a, s), Coercions.toDecimal(b, s)};
      }
    }
    if (a instanceof LongColumn la && b instanceof LongColumn lb) {
      Kind ka = a.type().kind();
      Kind kb = b.type().kind();
      if ((ka == Kind.DATE && kb == Kind.TIMESTAMP) || (ka == Kind.TIMESTAMP && kb == Kind.DATE)) {
        return new Column[] {Coercions.toMicrosIfDate(la), Coercions.toMicrosIfDate(lb)};
      }
    }
    if (pa != pb) {
      throw dev.squall.engine.EngineException.badPlan("cannot compare " + a.type() + " with " + b.type());
    }
    return new Column[] {a, b};
  }

  private static int scale(Column c) {
    return c instanceof DecimalColumn d ? d.scale() : 0;
  }
}

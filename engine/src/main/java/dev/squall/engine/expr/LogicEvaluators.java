package dev.squall.engine.expr;

import dev.squall.engine.column.BoolColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.Function;
import java.util.List;

/** AND, OR, NOT and the IS tests, with SQL's three-valued logic. */
final class LogicEvaluators {
  private LogicEvaluators() {}

  /**
   * n-ary AND (or OR). Arguments after the first are evaluated only on the rows whose result is
   * still open (not yet FALSE for AND, not yet TRUE for OR), so that {@code x <> 0 AND y / x > 1}
   * never divides by zero.
   */
  static final class Junction implements Evaluator {
    private final boolean isAnd;
    private final List<Evaluator> args;

    Junction(boolean isAnd, List<Evaluator> args) {
      this.isAnd = isAnd;
      this.args = args;
    }

    @Override
    public SqlType type() {
      return SqlType.BOOLEAN;
    }

    @Override
    public Column evaluate(Batch batch) {
      int n = batch.rows();
      // decided[i]: the result is fixed (FALSE for AND, TRUE for OR).
      boolean[] decided = new boolean[n];
      boolean[] sawNull = new boolean[n];
      int open = n;
      int[] rows = null;
      for (Evaluator arg : args) {
        if (open == 0) {
          break;
        }
        if (open == n) {
          BoolColumn c = (BoolColumn) arg.evaluate(batch);
          boolean[] v = c.values();
          for (int i = 0; i < n; i++) {
            if (c.isNull(i)) {
              sawNull[i] = true;
            } else if (v[i] != isAnd) {
              decided[i] = true;
              open--;
            }
          }
        } else {
          if (rows == null) {
            rows = new int[n];
          }
          int k = 0;
          for (int i = 0; i < n; i++) {
            if (!decided[i]) {
              rows[k++] = i;
            }
          }
          BoolColumn c = (BoolColumn) arg.evaluate(batch.select(rows, k));
          boolean[] v = c.values();
          for (int j = 0; j < k; j++) {
            int i = rows[j];
            if (c.isNull(j)) {
              sawNull[i] = true;
            } else if (v[j] != isAnd) {
              decided[i] = true;
              open--;
            }
          }
        }
      }
      boolean[] out = new boolean[n];
      boolean[] nulls = null;
      for (int i = 0; i < n; i++) {
        if (decided[i]) {
          out[i] = !isAnd;
        } else if (sawNull[i]) {
          if (nulls == null) {
            nulls = new boolean[n];
          }
          nulls[i] = true;
        } else {
          out[i] = isAnd;
        }
      }
      return new BoolColumn(out, nulls, n);
    }

    /**
     * AND narrows the selection one conjunct at a time: each conjunct runs only on the rows all
     * earlier ones kept (a row NULL in one of them is not TRUE whatever the rest say).
     */
    @Override
    public int selectTrue(Batch batch, int[] rows) {
      if (!isAnd) {
        return Evaluator.super.selectTrue(batch, rows);
      }
      int k = args.get(0).selectTrue(batch, rows);
      for (int a = 1; a < args.size() && k > 0; a++) {
        k = args.get(a).refineTrue(batch, rows, k);
      }
      return k;
    }

    @Override
    public int refineTrue(Batch batch, int[] rows, int k) {
      if (!isAnd) {
        return Evaluator.super.refineTrue(batch, rows, k);
      }
      for (int a = 0; a < args.size() && k > 0; a++) {
        k = args.get(a).refineTrue(batch, rows, k);
      }
      return k;
    }
  }

  /** NOT and the IS [NOT] NULL / TRUE / FALSE tests. */
  static final class Unary implements Evaluator {
    private final Function op;
    private final Evaluator arg;

    Unary(Function op, Evaluator arg) {
      this.op = op;
      this.arg = arg;
    }

    @Override
    public SqlType type() {
      return SqlType.BOOLEAN;
    }

    @Override
    public Column evaluate(Batch batch) {
      Column c = arg.evaluate(batch);
      int n = batch.rows();
      boolean[] out = new boolean[n];
      switch (op) {
        case IS_NULL -> {
          for (int i = 0; i < n; i++) {
            out[i] = c.isNull(i);
          }
          return new BoolColumn(out, null, n);
        }
        case IS_NOT_NULL -> {
          for (int i = 0; i < n; i++) {
            out[i] = !c.isNull(i);
          }
          return new BoolColumn(out, null, n);
        }
        default -> {
          // The remaining tests take a BOOLEAN argument.
        }
      }
      boolean[] v = ((BoolColumn) c).values();
      for (int i = 0; i < n; i++) {
        boolean isNull = c.isNull(i);
        out[i] = switch (op) {
          case NOT -> !v[i];
          case IS_TRUE -> !isNull && v[i];
          case IS_FALSE -> !isNull && !v[i];
          case IS_NOT_TRUE -> isNull || !v[i];
          case IS_NOT_FALSE -> isNull || v[i];
          default -> throw new IllegalStateException(op.name());
        };
      }
      return new BoolColumn(out, op == Function.NOT ? c.nullMask() : null, n);
    }
  }
}

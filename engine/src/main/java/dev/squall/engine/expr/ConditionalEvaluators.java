package dev.squall.engine.expr;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.BoolColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.ErrorCode;
import java.util.List;

/** CASE, COALESCE, NULLIF, GREATEST, LEAST and TRY. Branches are evaluated only on the rows that take them. */
final class ConditionalEvaluators {
  private ConditionalEvaluators() {}

  /** CASE WHEN c1 THEN v1 ... [ELSE e] END; rows with no TRUE condition and no ELSE give NULL. */
  static final class Case implements Evaluator {
    private final SqlType type;
    private final List<Evaluator> conditions;
    private final List<Evaluator> values;
    private final Evaluator otherwise;

    Case(SqlType type, List<Evaluator> conditions, List<Evaluator> values, Evaluator otherwise) {
      this.type = type;
      this.conditions = conditions;
      this.values = values;
      this.otherwise = otherwise;
    }

    @Override
    public SqlType type() {
      return type;
    }

    @Override
    public Column evaluate(Batch batch) {
      int n = batch.rows();
      int[] branch = new int[n];
      java.util.Arrays.fill(branch, -1);
      int open = n;
      int[] rows = new int[n];
      for (int b = 0; b < conditions.size() && open > 0; b++) {
        int k = openRows(branch, rows, n);
        BoolColumn c = (BoolColumn) conditions.get(b).evaluate(k == n ? batch : batch.select(rows, k));
        for (int j = 0; j < k; j++) {
          if (c.isTrue(j)) {
            branch[rows[j]] = b;
            open--;
          }
        }
      }
      int elseBranch = conditions.size();
      if (otherwise != null) {
        for (int i = 0; i < n; i++) {
          if (branch[i] < 0) {
            branch[i] = elseBranch;
          }
        }
      }
      // Evaluate each branch on its rows, then interleave the results in row order.
      Column[] results = new Column[elseBranch + 1];
      int[][] positions = new int[elseBranch + 1][];
      int[] posInBranch = new int[n];
      for (int b = 0; b <= elseBranch; b++) {
        Evaluator e = b < elseBranch ? values.get(b) : otherwise;
        if (e == null) {
          continue;
        }
        int k = 0;
        for (int i = 0; i < n; i++) {
          if (branch[i] == b) {
            posInBranch[i] = k;
            rows[k++] = i;
          }
        }
        if (k == 0) {
          continue;
        }
        positions[b] = java.util.Arrays.copyOf(rows, k);
        Column r = e.evaluate(k == n ? batch : batch.select(positions[b], k));
        results[b] = Casts.cast(r, type);
      }
      Column out = Column.empty(type, n);
      for (int i = 0; i < n; i++) {
        int b = branch[i];
        if (b < 0) {
          out.appendNull();
        } else {
          out.appendFrom(results[b], posInBranch[i]);
        }
      }
      return out;
    }

    private static int openRows(int[] branch, int[] rows, int n) {
      int k = 0;
      for (int i = 0; i < n; i++) {
        if (branch[i] < 0) {
          rows[k++] = i;
        }
      }
      return k;
    }
  }

  /** COALESCE(a, b, ...): the first non-NULL argument; later arguments only on rows still NULL. */
  static final class Coalesce implements Evaluator {
    private final SqlType type;
    private final List<Evaluator> args;

    Coalesce(SqlType type, List<Evaluator> args) {
      this.type = type;
      this.args = args;
    }

    @Override
    public SqlType type() {
      return type;
    }

    @Override
    public Column evaluate(Batch batch) {
      int n = batch.rows();
      Column[] results = new Column[args.size()];
      int[] source = new int[n];
      int[] pos = new int[n];
      java.util.Arrays.fill(source, -1);
      int[] rows = new int[n];
      for (int a = 0; a < args.size(); a++) {
        int k = 0;
        for (int i = 0; i < n; i++) {
          if (source[i] < 0) {
            rows[k++] = i;
          }
        }
        if (k == 0) {
          break;
        }
        int[] sel = java.util.Arrays.copyOf(rows, k);
        Column c = Casts.cast(args.get(a).evaluate(k == n ? batch : batch.select(sel, k)), type);
        results[a] = c;
        for (int j = 0; j < k; j++) {
          if (!c.isNull(j)) {
            source[sel[j]] = a;
            pos[sel[j]] = j;
          }
        }
      }
      Column out = Column.empty(type, n);
      for (int i = 0; i < n; i++) {
        if (source[i] < 0) {
          out.appendNull();
        } else {
          out.appendFrom(results[source[i]], pos[i]);
        }
      }
      return out;
    }
  }

  /** NULLIF(a, b): NULL where a = b, else a. */
  static final class NullIf implements Evaluator {
    private final SqlType type;
    private final Evaluator value;
    private final ComparisonEvaluator equal;

    NullIf(SqlType type, Evaluator value, Evaluator other) {
      this.type = type;
      this.value = value;
      this.equal = new ComparisonEvaluator(dev.squall.proto.v1.Function.EQUAL, value, other);
    }

    @Override
    public SqlType type() {
      return type;
    }

    @Override
    public Column evaluate(Batch batch) {
      int n = batch.rows();
      Column v = Casts.cast(value.evaluate(batch), type);
      BoolColumn eq = (BoolColumn) equal.evaluate(batch);
      int[] rows = new int[n];
      for (int i = 0; i < n; i++) {
        rows[i] = eq.isTrue(i) ? -1 : i;
      }
      return v.gather(rows, n);
    }
  }

  /** GREATEST / LEAST (Trino): the largest / smallest argument, NULL when any argument is NULL. */
  static final class Extreme implements Evaluator {
    private final boolean greatest;
    private final SqlType type;
    private final List<Evaluator> args;

    Extreme(boolean greatest, SqlType type, List<Evaluator> args) {
      this.greatest = greatest;
      this.type = type;
      this.args = args;
    }

    @Override
    public SqlType type() {
      return type;
    }

    @Override
    public Column evaluate(Batch batch) {
      int n = batch.rows();
      Column[] in = new Column[args.size()];
      boolean[] nulls = null;
      for (int a = 0; a < in.length; a++) {
        in[a] = Casts.cast(args.get(a).evaluate(batch), type);
        nulls = Coercions.orNulls(nulls, in[a].nullMask(), n);
      }
      Column out = Column.empty(type, n);
      for (int i = 0; i < n; i++) {
        if (nulls != null && nulls[i]) {
          out.appendNull();
          continue;
        }
        Column best = in[0];
        for (int a = 1; a < in.length; a++) {
          int c = in[a].compareValues(i, best, i);
          if (greatest ? c > 0 : c < 0) {
            best = in[a];
          }
        }
        out.appendFrom(best, i);
      }
      return out;
    }
  }

  /**
   * TRY(expression) and TRY_CAST: the expression's value, or NULL on the rows whose evaluation
   * fails with a user error (division by zero, overflow, a value that does not cast). The batch is
   * evaluated whole; only when that fails is it evaluated again one row at a time.
   */
  static final class Try implements Evaluator {
    private final SqlType type;
    private final Evaluator inner;

    Try(SqlType type, Evaluator inner) {
      this.type = type;
      this.inner = inner;
    }

    @Override
    public SqlType type() {
      return type;
    }

    @Override
    public Column evaluate(Batch batch) {
      try {
        return Casts.cast(inner.evaluate(batch), type);
      } catch (EngineException e) {
        if (e.code() != ErrorCode.USER_ERROR) {
          throw e;
        }
      }
      int n = batch.rows();
      Column out = Column.empty(type, n);
      int[] row = new int[1];
      for (int i = 0; i < n; i++) {
        row[0] = i;
        try {
          out.appendFrom(Casts.cast(inner.evaluate(batch.select(row, 1)), type), 0);
        } catch (EngineException e) {
          if (e.code() != ErrorCode.USER_ERROR) {
            throw e;
          }
          out.appendNull();
        }
      }
      return out;
    }
  }
}

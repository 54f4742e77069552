package dev.squall.engine.expr;

import dev.squall.engine.column.BoolColumn;
import dev.squall.engine.column.BytesColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.column.DoubleColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.types.SqlType;
import dev.squall.engine.types.SqlType.Physical;
import dev.squall.proto.v1.DataType.Kind;
import dev.squall.proto.v1.Function;
import java.util.Arrays;

/**
 * Comparisons (=, &lt;&gt;, &lt;, &lt;=, &gt;, &gt;=, IS [NOT] DISTINCT FROM). Of REAL and DOUBLE
 * as Trino's operators: IEEE 754 (NaN is unordered: only &lt;&gt; holds), while IS [NOT] DISTINCT
 * FROM takes NaN as not distinct from NaN. Operands of different
 * types are compared in a common domain: doubles if either is floating, decimals at the larger
 * scale if either is DECIMAL, microseconds for DATE against TIMESTAMP. NULL operands give NULL,
 * except for IS [NOT] DISTINCT FROM.
 */
final class ComparisonEvaluator implements Evaluator {
  private final Function op;
  private final Evaluator left;
  private final Evaluator right;
  /** For {@code column op literal} (or a literal on the left, with op mirrored): the literal, compared as a scalar. */
  private final Literals.Constant constant;
  private final Evaluator other;
  private final Function scalarOp;
  private BytesColumn cachedDictionary;
  private boolean[] cachedEntries;

  ComparisonEvaluator(Function op, Evaluator left, Evaluator right) {
    this.op = op;
    this.left = left;
    this.right = right;
    boolean distinctOp = op == Function.IS_DISTINCT_FROM || op == Function.IS_NOT_DISTINCT_FROM;
    if (!distinctOp && right instanceof Literals.Constant k) {
      constant = k;
      other = left;
      scalarOp = op;
    } else if (!distinctOp && left instanceof Literals.Constant k) {
      constant = k;
      other = right;
      scalarOp = mirror(op);
    } else {
      constant = null;
      other = null;
      scalarOp = null;
    }
  }

  private static Function mirror(Function op) {
    return switch (op) {
      case LESS_THAN -> Function.GREATER_THAN;
      case LESS_THAN_OR_EQUAL -> Function.GREATER_THAN_OR_EQUAL;
      case GREATER_THAN -> Function.LESS_THAN;
      case GREATER_THAN_OR_EQUAL -> Function.LESS_THAN_OR_EQUAL;
      default -> op;
    };
  }

  @Override
  public SqlType type() {
    return SqlType.BOOLEAN;
  }

  @Override
  public Column evaluate(Batch batch) {
    if (constant != null) {
      return againstScalar(other.evaluate(batch), batch.rows());
    }
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

  /**
   * A column against a literal writes the selection straight from the values, without a BOOLEAN
   * column, when both are exact numbers in one domain (longs, or decimals of one scale).
   */
  @Override
  public int selectTrue(Batch batch, int[] rows) {
    if (constant != null) {
      Column column = other.evaluate(batch);
      long[] x = comparableLongs(column);
      if (x != null) {
        int k = selectLongs(x, scalar, rows, batch.rows());
        return column.nullMask() == null ? k : dropNulls(column.nullMask(), rows, k);
      }
    }
    return Evaluator.super.selectTrue(batch, rows);
  }

  /**
   * {@link #selectTrue}'s narrowing form: tests the selected rows of the column in place (no
   * gather) when the column is a plain reference or already computed for this batch.
   */
  @Override
  public int refineTrue(Batch batch, int[] rows, int k) {
    if (constant != null && k < batch.rows() && (other instanceof ExprCompiler.ColumnRef
        || other instanceof ExprCompiler.Shared shared && shared.readyFor(batch))) {
      Column column = other.evaluate(batch);
      long[] x = comparableLongs(column);
      if (x != null) {
        int m = refineLongs(x, scalar, rows, k);
        return column.nullMask() == null ? m : dropNulls(column.nullMask(), rows, m);
      }
    }
    return Evaluator.super.refineTrue(batch, rows, k);
  }

  /** Set by {@link #comparableLongs}: the literal in the column's domain. */
  private long scalar;

  /**
   * The column's values as longs comparable with the literal as they are (the literal's, in
   * {@link #scalar}), or null when either needs a conversion, is wide or the literal is NULL.
   */
  private long[] comparableLongs(Column column) {
    Column one = constant.one();
    if (one.isNull(0)) {
      return null;
    }
    if (!(column instanceof LongColumn) && !(column instanceof DecimalColumn d0 && !d0.hasBig())) {
      return null;
    }
    Column[] ab = commonDomain(column, one);
    if (ab[0] != column) {
      return null; // the column would be converted (DATE against TIMESTAMP, a smaller scale)
    }
    if (column instanceof LongColumn l && ab[1] instanceof LongColumn lit) {
      scalar = lit.value(0);
      return l.values();
    }
    if (column instanceof DecimalColumn d) {
      if (ab[1] instanceof DecimalColumn lit && !lit.hasBig() && lit.scale() == d.scale()) {
        scalar = lit.unscaledLong(0);
        return d.unscaledValues();
      }
    }
    return null;
  }

  /** Keeps the rows of {@code rows[0..k)} that are not NULL; returns their number. */
  private static int dropNulls(boolean[] nulls, int[] rows, int k) {
    int m = 0;
    for (int j = 0; j < k; j++) {
      int r = rows[j];
      rows[m] = r;
      m += nulls[r] ? 0 : 1;
    }
    return m;
  }

  /** The rows {@code i < n} where {@code x[i] scalarOp c}; branch-free. */
  private int selectLongs(long[] x, long c, int[] rows, int n) {
    int k = 0;
    switch (scalarOp) {
      case EQUAL -> { for (int i = 0; i < n; i++) { rows[k] = i; k += x[i] == c ? 1 : 0; } }
      case NOT_EQUAL -> { for (int i = 0; i < n; i++) { rows[k] = i; k += x[i] != c ? 1 : 0; } }
      case LESS_THAN -> { for (int i = 0; i < n; i++) { rows[k] = i; k += x[i] < c ? 1 : 0; } }
      case LESS_THAN_OR_EQUAL -> { for (int i = 0; i < n; i++) { rows[k] = i; k += x[i] <= c ? 1 : 0; } }
      case GREATER_THAN -> { for (int i = 0; i < n; i++) { rows[k] = i; k += x[i] > c ? 1 : 0; } }
      case GREATER_THAN_OR_EQUAL -> { for (int i = 0; i < n; i++) { rows[k] = i; k += x[i] >= c ? 1 : 0; } }
      default -> throw new IllegalStateException(scalarOp.name());
    }
    return k;
  }

  /** Of the rows {@code rows[0..k)}, those where {@code x[row] scalarOp c}, kept in place; branch-free. */
  private int refineLongs(long[] x, long c, int[] rows, int k) {
    int m = 0;
    switch (scalarOp) {
      case EQUAL -> { for (int j = 0; j < k; j++) { int r = rows[j]; rows[m] = r; m += x[r] == c ? 1 : 0; } }
      case NOT_EQUAL -> { for (int j = 0; j < k; j++) { int r = rows[j]; rows[m] = r; m += x[r] != c ? 1 : 0; } }
      case LESS_THAN -> { for (int j = 0; j < k; j++) { int r = rows[j]; rows[m] = r; m += x[r] < c ? 1 : 0; } }
      case LESS_THAN_OR_EQUAL -> { for (int j = 0; j < k; j++) { int r = rows[j]; rows[m] = r; m += x[r] <= c ? 1 : 0; } }
      case GREATER_THAN -> { for (int j = 0; j < k; j++) { int r = rows[j]; rows[m] = r; m += x[r] > c ? 1 : 0; } }
      case GREATER_THAN_OR_EQUAL -> { for (int j = 0; j < k; j++) { int r = rows[j]; rows[m] = r; m += x[r] >= c ? 1 : 0; } }
      default -> throw new IllegalStateException(scalarOp.name());
    }
    return m;
  }

  /** {@code a[i] scalarOp literal} for every row, without expanding the literal to a column. */
  private Column againstScalar(Column column, int n) {
    Column[] ab = commonDomain(column, constant.one());
    Column a = ab[0];
    Column b = ab[1];
    if (b.isNull(0)) {
      return Column.nulls(SqlType.BOOLEAN, n);
    }
    boolean[] out = new boolean[n];
    if (a instanceof LongColumn la) {
      compareLongScalar(la.values(), ((LongColumn) b).value(0), out, n);
    } else if (a instanceof DecimalColumn da && !da.hasBig() && !((DecimalColumn) b).hasBig()
        && da.scale() == ((DecimalColumn) b).scale()) {
      compareLongScalar(da.unscaledValues(), ((DecimalColumn) b).unscaledLong(0), out, n);
    } else if (a instanceof BytesColumn sa && sa.isDictionary()) {
      // Once per dictionary entry, then a lookup per row.
      boolean[] entries = entryResults(sa.dictionaryValues(), b);
      int[] ids = sa.dictionaryIds();
      for (int i = 0; i < n; i++) {
        out[i] = entries[ids[i]];
      }
    } else if (a instanceof BytesColumn sa) {
      byte[] lit = ((BytesColumn) b).value(0);
      byte[] data = sa.data();
      int[] offsets = sa.offsets();
      if (scalarOp == Function.EQUAL || scalarOp == Function.NOT_EQUAL) {
        boolean eq = scalarOp == Function.EQUAL;
        for (int i = 0; i < n; i++) {
          out[i] = Arrays.equals(data, offsets[i], offsets[i + 1], lit, 0, lit.length) == eq;
        }
      } else {
        for (int i = 0; i < n; i++) {
          out[i] = test(scalarOp, Arrays.compareUnsigned(data, offsets[i], offsets[i + 1], lit, 0, lit.length));
        }
      }
    } else if (a instanceof DoubleColumn da) {
      double c = ((DoubleColumn) b).value(0);
      double[] x = da.values();
      for (int i = 0; i < n; i++) {
        out[i] = Double.isNaN(x[i]) || Double.isNaN(c) ? scalarOp == Function.NOT_EQUAL
            : test(scalarOp, x[i] == c ? 0 : Double.compare(x[i], c));
      }
    } else {
      for (int i = 0; i < n; i++) {
        out[i] = !a.isNull(i) && test(scalarOp, a.compareValues(i, b, 0));
      }
    }
    return new BoolColumn(out, a.nullMask(), n);
  }

  /**
   * The comparison of every entry of {@code dictionary} with the scalar {@code b}, kept while the
   * batches share that dictionary (a row group's).
   */
  private boolean[] entryResults(BytesColumn dictionary, Column b) {
    if (dictionary != cachedDictionary) {
      cachedEntries = ((BoolColumn) againstScalar(dictionary, dictionary.size())).values();
      cachedDictionary = dictionary;
    }
    return cachedEntries;
  }

  private void compareLongScalar(long[] x, long c, boolean[] out, int n) {
    switch (scalarOp) {
      case EQUAL -> { for (int i = 0; i < n; i++) out[i] = x[i] == c; }
      case NOT_EQUAL -> { for (int i = 0; i < n; i++) out[i] = x[i] != c; }
      case LESS_THAN -> { for (int i = 0; i < n; i++) out[i] = x[i] < c; }
      case LESS_THAN_OR_EQUAL -> { for (int i = 0; i < n; i++) out[i] = x[i] <= c; }
      case GREATER_THAN -> { for (int i = 0; i < n; i++) out[i] = x[i] > c; }
      case GREATER_THAN_OR_EQUAL -> { for (int i = 0; i < n; i++) out[i] = x[i] >= c; }
      default -> throw new IllegalStateException(scalarOp.name());
    }
  }

  private boolean test(int c) {
    return test(op, c);
  }

  private static boolean test(Function op, int c) {
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
      out[i] = Double.isNaN(a) || Double.isNaN(b) ? op == Function.NOT_EQUAL : test(a == b ? 0 : Double.compare(a, b));
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

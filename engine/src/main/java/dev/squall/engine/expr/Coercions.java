package dev.squall.engine.expr;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.column.DoubleColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.DataType.Kind;
import java.math.BigInteger;

/** Conversions of whole columns between numeric representations, for mixed-type operators. */
final class Coercions {
  private Coercions() {}

  static final long MICROS_PER_DAY = 86_400_000_000L;

  /** Integral, decimal or floating column as doubles. */
  static DoubleColumn toDouble(Column c) {
    if (c instanceof DoubleColumn d) {
      return d;
    }
    int n = c.size();
    double[] out = new double[n];
    if (c instanceof LongColumn l) {
      long[] v = l.values();
      for (int i = 0; i < n; i++) {
        out[i] = v[i];
      }
    } else if (c instanceof DecimalColumn d) {
      int s = d.scale();
      for (int i = 0; i < n; i++) {
        if (d.isNull(i)) {
          continue;
        }
        if (d.isBig(i)) {
          out[i] = d.decimal(i).doubleValue();
        } else if (s < Decimals.POW10.length) {
          long u = d.unscaledLong(i);
          // Exact when the unscaled value is below 2^53, as for every DECIMAL up to 15 digits.
          out[i] = Math.abs(u) < (1L << 53) ? u / (double) Decimals.POW10[s] : d.decimal(i).doubleValue();
        } else {
          out[i] = d.decimal(i).doubleValue();
        }
      }
    } else {
      throw EngineException.badPlan("cannot use " + c.type() + " as a number");
    }
    return new DoubleColumn(SqlType.DOUBLE, out, c.nullMask(), n);
  }

  /** Integral or decimal column as decimals of the given scale (type carries the precision). */
  static DecimalColumn toDecimal(Column c, int scale) {
    if (c instanceof DecimalColumn d && d.scale() == scale) {
      return d;
    }
    int n = c.size();
    // A decimal scaled up keeps its digits and gains (scale - from) of them: an exact precision
    // lets arithmetic rule out overflow from the type rather than a pass over the values.
    int precision = c instanceof DecimalColumn d && scale >= d.scale() ? Math.min(38, d.type().precision() + scale - d.scale()) : 38;
    DecimalColumn out = new DecimalColumn(SqlType.decimal(precision, Math.min(scale, 38)), new long[n], null, c.nullMask(), n);
    if (c instanceof LongColumn l) {
      long[] v = l.values();
      for (int i = 0; i < n; i++) {
        if (l.isNull(i)) {
          continue;
        }
        try {
          out.setLong(i, Decimals.rescale(v[i], 0, scale));
        } catch (ArithmeticException e) {
          out.setBig(i, BigInteger.valueOf(v[i]).multiply(Decimals.bigPow10(scale)));
        }
      }
    } else if (c instanceof DecimalColumn d) {
      int from = d.scale();
      for (int i = 0; i < n; i++) {
        if (d.isNull(i)) {
          continue;
        }
        if (!d.isBig(i)) {
          try {
            out.setLong(i, Decimals.rescale(d.unscaledLong(i), from, scale));
            continue;
          } catch (ArithmeticException e) {
            // fall through to the wide path
          }
        }
        out.setBig(i, Decimals.rescale(d.unscaledBig(i), from, scale));
      }
    } else {
      throw EngineException.badPlan("cannot use " + c.type() + " as a decimal");
    }
    return out;
  }

  /** DATE days as TIMESTAMP micros; other long columns unchanged. */
  static LongColumn toMicrosIfDate(LongColumn c) {
    if (c.type().kind() != Kind.DATE) {
      return c;
    }
    int n = c.size();
    long[] out = new long[n];
    long[] v = c.values();
    for (int i = 0; i < n; i++) {
      out[i] = v[i] * MICROS_PER_DAY;
    }
    return new LongColumn(SqlType.TIMESTAMP, out, c.nullMask(), n);
  }

  /** Union of two null masks over n rows (null when neither has nulls). */
  static boolean[] orNulls(boolean[] a, boolean[] b, int n) {
    if (a == null && b == null) {
      return null;
    }
    boolean[] out = new boolean[n];
    for (int i = 0; i < n; i++) {
      out[i] = (a != null && a[i]) || (b != null && b[i]);
    }
    return out;
  }
}

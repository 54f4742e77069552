package dev.squall.engine.expr;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.column.DoubleColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.Function;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;

/**
 * Binary arithmetic (+, -, *, /, MOD) in the domain of the result type: integral (exact long
 * arithmetic, overflow of the result type and division by zero are errors; division truncates),
 * floating (IEEE; division by zero is an error), or DECIMAL(p, s) (operands as unscaled integers,
 * products rounded HALF_UP to the result scale, quotients rounded HALF_UP, an unscaled result with
 * more than p digits is an overflow error).
 */
final class ArithmeticEvaluator implements Evaluator {
  private final Function op;
  private final SqlType type;
  private final Evaluator left;
  private final Evaluator right;
  // The last operand coerced per side: a literal is rescaled once rather than per batch.
  private final Coerced leftCoerced;
  private final Coerced rightCoerced;

  /** One side's last operand and its value at a scale. */
  private static final class Coerced {
    /** Whether the side is a literal, whose every row is the same value. */
    private final boolean constant;
    private Column from;
    private int scale = -1;
    private DecimalColumn to;

    Coerced(boolean constant) {
      this.constant = constant;
    }

    DecimalColumn at(Column c, int s) {
      if (c == from && s == scale) {
        return to;
      }
      if (constant && s == scale && to != null && c.size() <= to.size()) {
        // A constant of fewer rows (a selection's batch): the first rows of the rescaled one.
        Column view = Literals.prefix(to, c.size());
        if (view != null) {
          return (DecimalColumn) view;
        }
      }
      to = Coercions.toDecimal(c, s);
      from = c;
      scale = s;
      return to;
    }
  }

  ArithmeticEvaluator(Function op, SqlType type, Evaluator left, Evaluator right) {
    this.op = op;
    this.type = type;
    this.left = left;
    this.right = right;
    this.leftCoerced = new Coerced(left instanceof Literals.Constant);
    this.rightCoerced = new Coerced(right instanceof Literals.Constant);
    if (!type.isNumeric()) {
      throw EngineException.badPlan(op + " with result type " + type);
    }
  }

  @Override
  public SqlType type() {
    return type;
  }

  @Override
  public Column evaluate(Batch batch) {
    Column a = left.evaluate(batch);
    Column b = right.evaluate(batch);
    int n = batch.rows();
    boolean[] nulls = Coercions.orNulls(a.nullMask(), b.nullMask(), n);
    if (type.isIntegral()) {
      return integral((LongColumn) a, (LongColumn) b, nulls, n);
    } else if (type.isFloating()) {
      return floating(Coercions.toDouble(a), Coercions.toDouble(b), nulls, n);
    }
    return decimal(a, b, nulls, n);
  }

  private Column integral(LongColumn a, LongColumn b, boolean[] nulls, int n) {
    long[] x = a.values();
    long[] y = b.values();
    long[] out = new long[n];
    long min = type.minValue();
    long max = type.maxValue();
    try {
      switch (op) {
        case ADD -> {
          for (int i = 0; i < n; i++) {
            out[i] = Math.addExact(x[i], y[i]);
          }
        }
        case SUBTRACT -> {
          for (int i = 0; i < n; i++) {
            out[i] = Math.subtractExact(x[i], y[i]);
          }
        }
        case MULTIPLY -> {
          for (int i = 0; i < n; i++) {
            out[i] = Math.multiplyExact(x[i], y[i]);
          }
        }
        case DIVIDE, MOD -> {
          for (int i = 0; i < n; i++) {
            if (nulls != null && nulls[i]) {
              continue;
            }
            if (y[i] == 0) {
              throw EngineException.user("division by zero");
            }
            if (op == Function.DIVIDE) {
              if (x[i] == Long.MIN_VALUE && y[i] == -1) {
                throw new ArithmeticException("overflow");
              }
              out[i] = x[i] / y[i];
            } else {
              out[i] = y[i] == -1 ? 0 : x[i] % y[i];
            }
          }
        }
        default -> throw EngineException.badPlan("not arithmetic: " + op);
      }
    } catch (ArithmeticException e) {
      throw Decimals.overflow(type);
    }
    if (min != Long.MIN_VALUE || max != Long.MAX_VALUE) {
      for (int i = 0; i < n; i++) {
        if ((out[i] < min || out[i] > max) && (nulls == null || !nulls[i])) {
          throw Decimals.overflow(type);
        }
      }
    }
    return new LongColumn(type, out, nulls, n);
  }

  private Column floating(DoubleColumn a, DoubleColumn b, boolean[] nulls, int n) {
    double[] x = a.values();
    double[] y = b.values();
    double[] out = new double[n];
    switch (op) {
      case ADD -> {
        for (int i = 0; i < n; i++) {
          out[i] = x[i] + y[i];
        }
      }
      case SUBTRACT -> {
        for (int i = 0; i < n; i++) {
          out[i] = x[i] - y[i];
        }
      }
      case MULTIPLY -> {
        for (int i = 0; i < n; i++) {
          out[i] = x[i] * y[i];
        }
      }
      // IEEE 754, as in Trino: x / 0 is an infinity (NaN for 0 / 0), x % 0 is NaN; no error.
      case DIVIDE -> {
        for (int i = 0; i < n; i++) {
          out[i] = x[i] / y[i];
        }
      }
      case MOD -> {
        for (int i = 0; i < n; i++) {
          out[i] = x[i] % y[i];
        }
      }
      default -> throw EngineException.badPlan("not arithmetic: " + op);
    }
    if (type.kind() == dev.squall.proto.v1.DataType.Kind.REAL) {
      for (int i = 0; i < n; i++) {
        out[i] = (float) out[i];
      }
    }
    return new DoubleColumn(type, out, nulls, n);
  }

  private Column decimal(Column a, Column b, boolean[] nulls, int n) {
    int s = type.scale();
    int p = type.precision();
    DecimalColumn out = new DecimalColumn(type, new long[n], null, nulls, n);
    switch (op) {
      case ADD, SUBTRACT -> {
        // Align both operands to the result scale, then add exactly.
        DecimalColumn x = leftCoerced.at(a, s);
        DecimalColumn y = rightCoerced.at(b, s);
        boolean sub = op == Function.SUBTRACT;
        long[] xv = x.unscaledValues();
        long[] yv = y.unscaledValues();
        boolean wide = x.hasBig() || y.hasBig();
        if (!wide && (addCannotOverflow(bound(x, leftCoerced), bound(y, rightCoerced), p)
            || addCannotOverflow(Decimals.bound(xv, n), Decimals.bound(yv, n), p))) {
          long[] r = out.unscaledValues();
          if (leftCoerced.constant) {
            long c = xv[0]; // a literal: one value for every row (0 under a NULL literal's mask)
            if (sub) {
              for (int i = 0; i < n; i++) {
                r[i] = c - yv[i];
              }
            } else {
              for (int i = 0; i < n; i++) {
                r[i] = c + yv[i];
              }
            }
          } else if (rightCoerced.constant) {
            long c = sub ? -yv[0] : yv[0]; // bounded below 2^62 just above: the negation is exact
            for (int i = 0; i < n; i++) {
              r[i] = xv[i] + c;
            }
          } else if (sub) {
            for (int i = 0; i < n; i++) {
              r[i] = xv[i] - yv[i];
            }
          } else {
            for (int i = 0; i < n; i++) {
              r[i] = xv[i] + yv[i];
            }
          }
          return out;
        }
        for (int i = 0; i < n; i++) {
          if (nulls != null && nulls[i]) {
            continue;
          }
          if (!wide || (!x.isBig(i) && !y.isBig(i))) {
            try {
              long r = sub ? Math.subtractExact(xv[i], yv[i]) : Math.addExact(xv[i], yv[i]);
              if (!Decimals.fits(r, p)) {
                throw Decimals.overflow(type);
              }
              out.setLong(i, r);
              continue;
            } catch (ArithmeticException e) {
              // wide path below
            }
          }
          BigInteger r = sub ? x.unscaledBig(i).subtract(y.unscaledBig(i)) : x.unscaledBig(i).add(y.unscaledBig(i));
          setChecked(out, i, r, p);
        }
      }
      case MULTIPLY -> {
        int sa = scaleOf(a);
        int sb = scaleOf(b);
        DecimalColumn x = leftCoerced.at(a, sa);
        DecimalColumn y = rightCoerced.at(b, sb);
        int raw = sa + sb;
        long[] xv = x.unscaledValues();
        long[] yv = y.unscaledValues();
        boolean wide = x.hasBig() || y.hasBig();
        if (!wide && raw >= s && (multiplyCannotOverflow(bound(x, leftCoerced), bound(y, rightCoerced), p)
            || multiplyCannotOverflow(Decimals.bound(xv, n), Decimals.bound(yv, n), p))) {
          long[] r = out.unscaledValues();
          if (raw == s && (leftCoerced.constant || rightCoerced.constant)) {
            long c = leftCoerced.constant ? xv[0] : yv[0];
            long[] v = leftCoerced.constant ? yv : xv;
            for (int i = 0; i < n; i++) {
              r[i] = c * v[i];
            }
          } else if (raw == s) {
            for (int i = 0; i < n; i++) {
              r[i] = xv[i] * yv[i];
            }
          } else {
            for (int i = 0; i < n; i++) {
              r[i] = Decimals.rescale(xv[i] * yv[i], raw, s);
            }
          }
          return out;
        }
        for (int i = 0; i < n; i++) {
          if (nulls != null && nulls[i]) {
            continue;
          }
          if (!wide || (!x.isBig(i) && !y.isBig(i))) {
            try {
              long r = Decimals.rescale(Math.multiplyExact(xv[i], yv[i]), raw, s);
              if (!Decimals.fits(r, p)) {
                throw Decimals.overflow(type);
              }
              out.setLong(i, r);
              continue;
            } catch (ArithmeticException e) {
              // wide path below
            }
          }
          setChecked(out, i, Decimals.rescale(x.unscaledBig(i).multiply(y.unscaledBig(i)), raw, s), p);
        }
      }
      case DIVIDE -> {
        if (isExact(a) && isExact(b)) {
          divideUnscaled(a, b, out, nulls, n, s, p);
        } else {
          divideOrModBig(a, b, out, nulls, n, s, p);
        }
      }
      case MOD -> divideOrModBig(a, b, out, nulls, n, s, p);
      default -> throw EngineException.badPlan("not arithmetic: " + op);
    }
    return out;
  }

  /**
   * A bound {@code b > |v|} for every value of {@code c} from its type alone: {@code 10^precision}
   * (the column holds at most that many digits), or {@code Long.MAX_VALUE} past 18 digits. Saves
   * {@link Decimals#bound}'s pass over the column when the types already rule out an overflow.
   */
  private static long typeBound(DecimalColumn c) {
    int precision = c.type().precision();
    return precision <= 18 ? Decimals.POW10[precision] : Long.MAX_VALUE;
  }

  /**
   * A bound {@code b > |v|} for every value of an operand without a pass over it: a literal's own
   * magnitude plus one (its every row is the same value), else {@link #typeBound}.
   */
  private static long bound(DecimalColumn c, Coerced side) {
    if (side.constant && c.size() > 0) {
      long v = c.unscaledValues()[0];
      return v == Long.MIN_VALUE ? Long.MAX_VALUE : Math.abs(v) + 1;
    }
    return typeBound(c);
  }

  /** Whether a sum or difference of values bounded by bx and by fits a long and {@code p} digits. */
  private static boolean addCannotOverflow(long bx, long by, int p) {
    if (bx >= (1L << 62) || by >= (1L << 62)) {
      return false;
    }
    return p >= 19 || bx + by < Decimals.POW10[p];
  }

  /** Whether a product of values bounded by bx and by fits a long and {@code p} digits. */
  private static boolean multiplyCannotOverflow(long bx, long by, int p) {
    if (Math.multiplyHigh(bx, by) != 0) {
      return false;
    }
    long product = bx * by;
    return product >= 0 && (p >= 19 || product < Decimals.POW10[p]);
  }

  /**
   * DECIMAL division on unscaled longs: {@code round_half_up(x * 10^(s - sx + sy) / y)}, exact
   * whenever the scaled dividend fits a long; other rows take the BigDecimal path.
   */
  private void divideUnscaled(Column a, Column b, DecimalColumn out, boolean[] nulls, int n, int s, int p) {
    int sa = scaleOf(a);
    int sb = scaleOf(b);
    DecimalColumn x = Coercions.toDecimal(a, sa);
    DecimalColumn y = Coercions.toDecimal(b, sb);
    int shift = s - sa + sb;
    long[] xv = x.unscaledValues();
    long[] yv = y.unscaledValues();
    boolean wide = x.hasBig() || y.hasBig();
    boolean longPath = shift >= 0 && shift < Decimals.POW10.length;
    long scale = longPath ? Decimals.POW10[shift] : 0;
    for (int i = 0; i < n; i++) {
      if (nulls != null && nulls[i]) {
        continue;
      }
      long d = yv[i];
      if (longPath && (!wide || (!x.isBig(i) && !y.isBig(i))) && d != 0) {
        long num = xv[i];
        long hi = Math.multiplyHigh(num, scale);
        long scaled = num * scale;
        // The product fits a long when its high half is the sign extension of its low half.
        if ((hi == 0 && scaled >= 0) || (hi == -1 && scaled < 0)) {
          if (!(scaled == Long.MIN_VALUE && d == -1)) {
            long q = scaled / d;
            long r = scaled % d;
            long ar = Math.abs(r);
            if (ar >= Math.abs(d) - ar) {
              q += (scaled < 0) == (d < 0) ? 1 : -1;
            }
            if (!Decimals.fits(q, p)) {
              throw Decimals.overflow(type);
            }
            out.setLong(i, q);
            continue;
          }
        } else if (divideWide(num, scale, d, out, i, p)) {
          continue;
        }
      }
      BigDecimal xd = decimalAt(a, i);
      BigDecimal yd = decimalAt(b, i);
      if (yd.signum() == 0) {
        throw EngineException.user("division by zero");
      }
      setChecked(out, i, xd.divide(yd, s, RoundingMode.HALF_UP).unscaledValue(), p);
    }
  }

  /**
   * {@code round_half_up(num * scale / d)} when the scaled dividend passes the long range but the
   * quotient fits one: the 128-bit product of the magnitudes divided by |d| in unsigned 128/64-bit
   * arithmetic ({@link Decimals#divideUnsigned128}). False when the quotient needs more than 63
   * bits (the caller takes the BigDecimal path).
   *
   * @throws EngineException overflow when the quotient has more than {@code p} digits
   */
  private boolean divideWide(long num, long scale, long d, DecimalColumn out, int i, int p) {
    long m = num < 0 ? -num : num; // unsigned magnitude (MIN_VALUE's is 2^63)
    long dm = d < 0 ? -d : d;
    // Unsigned high word of m * scale: scale < 2^63, so only m's top bit needs a correction.
    long hi = Math.multiplyHigh(m, scale) + ((m >> 63) & scale);
    long lo = m * scale;
    if (Long.compareUnsigned(hi, dm) >= 0) {
      return false;
    }
    long[] remainder = new long[1];
    long q = Decimals.divideUnsigned128(hi, lo, dm, remainder);
    long r = remainder[0];
    // Half up on magnitudes: r >= dm - r (unsigned; r < dm).
    if (Long.compareUnsigned(r, dm - r) >= 0) {
      q++;
    }
    if (q < 0) {
      return false; // 2^63 or more
    }
    long signed = (num < 0) != (d < 0) ? -q : q;
    if (!Decimals.fits(signed, p)) {
      throw Decimals.overflow(type);
    }
    out.setLong(i, signed);
    return true;
  }

  /** DECIMAL division or MOD through BigDecimal, row by row (operands that are not exact numbers, MOD). */
  private void divideOrModBig(Column a, Column b, DecimalColumn out, boolean[] nulls, int n, int s, int p) {
    for (int i = 0; i < n; i++) {
      if (nulls != null && nulls[i]) {
        continue;
      }
      BigDecimal x = decimalAt(a, i);
      BigDecimal y = decimalAt(b, i);
      if (y.signum() == 0) {
        throw EngineException.user("division by zero");
      }
      BigDecimal r = op == Function.DIVIDE ? x.divide(y, s, RoundingMode.HALF_UP) : x.remainder(y).setScale(s, RoundingMode.HALF_UP);
      setChecked(out, i, r.unscaledValue(), p);
    }
  }

  private void setChecked(DecimalColumn out, int i, BigInteger r, int p) {
    if (!Decimals.fits(r, p)) {
      throw Decimals.overflow(type);
    }
    out.setBig(i, r);
  }

  private static boolean isExact(Column c) {
    return c instanceof DecimalColumn || c instanceof LongColumn;
  }

  private static int scaleOf(Column c) {
    return c instanceof DecimalColumn d ? d.scale() : 0;
  }

  static BigDecimal decimalAt(Column c, int i) {
    if (c instanceof DecimalColumn d) {
      return d.decimal(i);
    } else if (c instanceof LongColumn l) {
      return BigDecimal.valueOf(l.value(i));
    } else if (c instanceof DoubleColumn d) {
      return BigDecimal.valueOf(d.value(i));
    }
    throw EngineException.badPlan("not a number: " + c.type());
  }
}

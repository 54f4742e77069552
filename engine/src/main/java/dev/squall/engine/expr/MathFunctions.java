package dev.squall.engine.expr;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.column.DoubleColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.Function;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleUnaryOperator;

/**
 * Numeric functions with Trino's semantics: ROUND (half away from zero) and TRUNCATE to a number of
 * digits (negative digits round left of the point), CEIL, FLOOR, SIGN on integers, decimals and
 * doubles; POWER, SQRT, CBRT, EXP, LN, LOG10, LOG2 in double arithmetic, where a value outside the
 * domain gives NaN or an infinity as in Trino (DuckDB raises an error instead).
 */
final class MathFunctions {
  private MathFunctions() {}

  /** ROUND(value[, digits]) and TRUNCATE(value[, digits]). */
  static final class Rounding implements Evaluator {
    private final boolean truncate;
    private final SqlType type;
    private final Evaluator value;
    private final Evaluator digits;

    Rounding(boolean truncate, SqlType type, Evaluator value, Evaluator digits) {
      this.truncate = truncate;
      this.type = type;
      this.value = value;
      this.digits = digits;
    }

    @Override
    public SqlType type() {
      return type;
    }

    @Override
    public Column evaluate(Batch batch) {
      int n = batch.rows();
      Column v = value.evaluate(batch);
      LongColumn d = digits == null ? null : (LongColumn) digits.evaluate(batch);
      boolean[] nulls = d == null ? v.nullMask() : Coercions.orNulls(v.nullMask(), d.nullMask(), n);
      if (v instanceof LongColumn l) {
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
          if (nulls == null || !nulls[i]) {
            out[i] = roundLong(l.value(i), d == null ? 0 : d.value(i), truncate);
          }
        }
        return Casts.cast(new LongColumn(v.type(), out, nulls, n), type);
      }
      if (v instanceof DoubleColumn dc) {
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
          if (nulls == null || !nulls[i]) {
            out[i] = roundDouble(dc.value(i), d == null ? 0 : d.value(i), truncate);
          }
        }
        return Casts.cast(new DoubleColumn(v.type(), out, nulls, n), type);
      }
      DecimalColumn dec = (DecimalColumn) v;
      SqlType target = type.isDecimal() ? type : dec.type();
      DecimalColumn out = new DecimalColumn(target, new long[n], null, nulls, n);
      RoundingMode mode = truncate ? RoundingMode.DOWN : RoundingMode.HALF_UP;
      for (int i = 0; i < n; i++) {
        if (nulls != null && nulls[i]) {
          continue;
        }
        long places = d == null ? 0 : d.value(i);
        BigDecimal x = dec.decimal(i);
        BigDecimal r = places >= x.scale() ? x : x.setScale((int) Math.max(places, -x.precision() - 1), mode);
        setDecimal(out, i, r, target);
      }
      return Casts.cast(out, type);
    }
  }

  static long roundLong(long x, long digits, boolean truncate) {
    if (digits >= 0 || x == 0) {
      return x;
    }
    if (digits < -18) {
      return 0;
    }
    long p = Decimals.POW10[(int) -digits];
    long q = x / p;
    long rem = x % p;
    if (!truncate && Math.abs(rem) * 2 >= p) {
      q += Long.signum(x);
    }
    try {
      return Math.multiplyExact(q, p);
    } catch (ArithmeticException e) {
      throw EngineException.user("numeric overflow: ROUND(" + x + ", " + digits + ")");
    }
  }

  /**
   * Trino's rounding of a double: ROUND scales by 10^digits and rounds half away from zero in
   * binary (so ROUND(2.675, 2) is 2.67, as in Trino and DuckDB); TRUNCATE cuts the decimal form of
   * the double (Java's shortest representation), as Trino does.
   */
  static double roundDouble(double x, long digits, boolean truncate) {
    if (Double.isNaN(x) || Double.isInfinite(x)) {
      return x;
    }
    if (truncate) {
      int places = (int) Math.max(Math.min(digits, 400), -400);
      return new BigDecimal(Double.toString(x)).setScale(places, RoundingMode.DOWN).doubleValue();
    }
    double factor = Math.pow(10, digits);
    double scaled = Math.abs(x) * factor;
    if (scaled >= 0x1p52) {
      // Already a whole number at this scale (and Math.round would saturate).
      return x;
    }
    double r = Math.round(scaled) / factor;
    return x < 0 ? -r : r;
  }

  /** Writes a decimal value into row i of a column of {@code type}, refusing values over its precision. */
  static void setDecimal(DecimalColumn out, int i, BigDecimal r, SqlType type) {
    BigDecimal scaled = r.setScale(type.scale(), RoundingMode.HALF_UP);
    if (scaled.precision() > type.precision() && scaled.signum() != 0) {
      throw EngineException.user("numeric overflow: " + r + " does not fit " + type);
    }
    out.setBig(i, scaled.unscaledValue());
  }

  /** CEIL, FLOOR and SIGN of one numeric argument, in the argument's representation. */
  static final class Unary implements Evaluator {
    private final Function op;
    private final SqlType type;
    private final Evaluator arg;

    Unary(Function op, SqlType type, Evaluator arg) {
      this.op = op;
      this.type = type;
      this.arg = arg;
    }

    @Override
    public SqlType type() {
      return type;
    }

    @Override
    public Column evaluate(Batch batch) {
      int n = batch.rows();
      Column v = arg.evaluate(batch);
      boolean[] nulls = v.nullMask();
      if (v instanceof LongColumn l) {
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
          out[i] = op == Function.SIGN ? Long.signum(l.value(i)) : l.value(i);
        }
        return Casts.cast(new LongColumn(v.type(), out, nulls, n), type);
      }
      if (v instanceof DoubleColumn dc) {
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
          double x = dc.value(i);
          out[i] = switch (op) {
            case CEIL -> Math.ceil(x);
            case FLOOR -> Math.floor(x);
            default -> Math.signum(x);
          };
        }
        return Casts.cast(new DoubleColumn(v.type(), out, nulls, n), type);
      }
      DecimalColumn dec = (DecimalColumn) v;
      SqlType target = type.isDecimal() ? type : SqlType.decimal(38, dec.scale());
      DecimalColumn out = new DecimalColumn(target, new long[n], null, nulls, n);
      for (int i = 0; i < n; i++) {
        if (v.isNull(i)) {
          continue;
        }
        BigDecimal x = dec.decimal(i);
        BigDecimal r = switch (op) {
          case CEIL -> x.setScale(0, RoundingMode.CEILING);
          case FLOOR -> x.setScale(0, RoundingMode.FLOOR);
          default -> BigDecimal.valueOf(x.signum());
        };
        setDecimal(out, i, r, target);
      }
      return Casts.cast(out, type);
    }
  }

  /** POWER, SQRT, CBRT, EXP, LN, LOG10 and LOG2 in double arithmetic. */
  static final class DoubleFunction implements Evaluator {
    private final Function op;
    private final SqlType type;
    private final Evaluator first;
    private final Evaluator second;

    DoubleFunction(Function op, SqlType type, Evaluator first, Evaluator second) {
      this.op = op;
      this.type = type;
      this.first = first;
      this.second = second;
    }

    @Override
    public SqlType type() {
      return type;
    }

    @Override
    public Column evaluate(Batch batch) {
      int n = batch.rows();
      DoubleColumn a = Coercions.toDouble(first.evaluate(batch));
      double[] out = new double[n];
      double[] x = a.values();
      if (op == Function.POWER) {
        DoubleColumn b = Coercions.toDouble(second.evaluate(batch));
        boolean[] nulls = Coercions.orNulls(a.nullMask(), b.nullMask(), n);
        DoubleBinaryOperator pow = Math::pow;
        double[] y = b.values();
        for (int i = 0; i < n; i++) {
          out[i] = pow.applyAsDouble(x[i], y[i]);
        }
        return Casts.cast(new DoubleColumn(SqlType.DOUBLE, out, nulls, n), type);
      }
      DoubleUnaryOperator f = switch (op) {
        case SQRT -> Math::sqrt;
        case CBRT -> Math::cbrt;
        case EXP -> Math::exp;
        case LN -> Math::log;
        case LOG10 -> Math::log10;
        case LOG2 -> v -> Math.log(v) / Math.log(2);
        default -> throw EngineException.badPlan("not a double function: " + op);
      };
      for (int i = 0; i < n; i++) {
        out[i] = f.applyAsDouble(x[i]);
      }
      return Casts.cast(new DoubleColumn(SqlType.DOUBLE, out, a.nullMask(), n), type);
    }
  }
}

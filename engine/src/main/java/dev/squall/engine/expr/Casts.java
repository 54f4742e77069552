package dev.squall.engine.expr;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.BoolColumn;
import dev.squall.engine.column.BytesColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.column.DoubleColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.types.SqlType;
import dev.squall.engine.types.SqlType.Physical;
import dev.squall.proto.v1.DataType.Kind;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/**
 * CAST between the engine's types, a whole column at a time. Numeric narrowing checks the target
 * range; DOUBLE and DECIMAL to integral and to smaller scales round HALF_UP (away from zero);
 * strings parse with leading and trailing spaces ignored. A value that does not convert is a
 * USER_ERROR naming the value and the target type.
 */
public final class Casts {
  private Casts() {}

  /** {@code src} as values of {@code to}; returns {@code src} itself when nothing changes. */
  public static Column cast(Column src, SqlType to) {
    SqlType from = src.type();
    if (from.equals(to)) {
      return src;
    }
    int n = src.size();
    if (from.kind() == Kind.NULL_TYPE) {
      return Column.nulls(to, n);
    }
    return switch (to.physical()) {
      case LONG -> toLong(src, to, n);
      case DOUBLE -> toDouble(src, to, n);
      case DECIMAL -> toDecimal(src, to, n);
      case BOOL -> toBool(src, n);
      case BYTES -> toBytes(src, to, n);
    };
  }

  /**
   * The error of a value that is no valid {@code to}. The value itself stays out of the message:
   * it is user data, and task errors are logged and stored in the job record.
   */
  private static EngineException bad(Object value, SqlType to) {
    return EngineException.user("cannot cast a value to " + to + ": it is not a valid " + to + " value");
  }

  /** The error of a value outside {@code to}'s range (the value stays out, as in {@link #bad}). */
  private static EngineException overflow(SqlType to) {
    return EngineException.user("numeric overflow: a value does not fit in " + to);
  }

  private static Column toLong(Column src, SqlType to, int n) {
    long[] out = new long[n];
    boolean[] nulls = src.nullMask();
    Kind tk = to.kind();
    if (src instanceof LongColumn l) {
      Kind fk = src.type().kind();
      long[] v = l.values();
      for (int i = 0; i < n; i++) {
        if (src.isNull(i)) {
          continue;
        }
        long x = v[i];
        if (fk == Kind.DATE && tk == Kind.TIMESTAMP) {
          x = x * Coercions.MICROS_PER_DAY;
        } else if (fk == Kind.TIMESTAMP && tk == Kind.DATE) {
          x = Math.floorDiv(x, Coercions.MICROS_PER_DAY);
        } else if (isTemporal(fk) != isTemporal(tk) && !(fk == Kind.NULL_TYPE)) {
          throw EngineException.badPlan("cannot cast " + src.type() + " to " + to);
        }
        out[i] = checkRange(x, to, x);
      }
    } else if (src instanceof DoubleColumn d) {
      if (isTemporal(tk)) {
        throw EngineException.badPlan("cannot cast " + src.type() + " to " + to);
      }
      double[] v = d.values();
      for (int i = 0; i < n; i++) {
        if (src.isNull(i)) {
          continue;
        }
        double x = v[i];
        if (Double.isNaN(x) || Double.isInfinite(x) || Math.abs(x) >= 9.2e18) {
          throw bad(x, to);
        }
        long r = (long) (x < 0 ? Math.ceil(x - 0.5) : Math.floor(x + 0.5));
        out[i] = checkRange(r, to, x);
      }
    } else if (src instanceof DecimalColumn d) {
      if (isTemporal(tk)) {
        throw EngineException.badPlan("cannot cast " + src.type() + " to " + to);
      }
      for (int i = 0; i < n; i++) {
        if (src.isNull(i)) {
          continue;
        }
        BigInteger r = d.isBig(i) ? Decimals.rescale(d.unscaledBig(i), d.scale(), 0) : null;
        if (r == null) {
          out[i] = checkRange(Decimals.rescale(d.unscaledLong(i), d.scale(), 0), to, d.decimal(i));
        } else if (r.bitLength() >= 64) {
          throw bad(d.decimal(i), to);
        } else {
          out[i] = checkRange(r.longValue(), to, d.decimal(i));
        }
      }
    } else if (src instanceof BoolColumn b) {
      boolean[] v = b.values();
      for (int i = 0; i < n; i++) {
        out[i] = v[i] ? 1 : 0;
      }
    } else if (src instanceof BytesColumn s) {
      for (int i = 0; i < n; i++) {
        if (src.isNull(i)) {
          continue;
        }
        String text = s.string(i).trim();
        try {
          long x = switch (tk) {
            case DATE -> LocalDate.parse(text).toEpochDay();
            case TIMESTAMP -> parseTimestamp(text);
            default -> Long.parseLong(text);
          };
          out[i] = checkRange(x, to, text);
        } catch (NumberFormatException | DateTimeParseException e) {
          throw bad(text, to);
        }
      }
    }
    return new LongColumn(to, out, nulls, n);
  }

  private static boolean isTemporal(Kind k) {
    return k == Kind.DATE || k == Kind.TIMESTAMP;
  }

  private static long checkRange(long x, SqlType to, Object original) {
    if (to.isIntegral() && (x < to.minValue() || x > to.maxValue())) {
      throw overflow(to);
    }
    return x;
  }

  static long parseTimestamp(String text) {
    String t = text.replace(' ', 'T');
    if (t.length() == 10) {
      return LocalDate.parse(t).toEpochDay() * Coercions.MICROS_PER_DAY;
    }
    LocalDateTime dt = LocalDateTime.parse(t);
    return dt.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + dt.getNano() / 1000;
  }

  private static Column toDouble(Column src, SqlType to, int n) {
    double[] out;
    if (src instanceof BytesColumn s) {
      out = new double[n];
      for (int i = 0; i < n; i++) {
        if (!src.isNull(i)) {
          try {
            out[i] = Double.parseDouble(s.string(i).trim());
          } catch (NumberFormatException e) {
            throw bad(s.string(i), to);
          }
        }
      }
    } else if (src instanceof BoolColumn b) {
      out = new double[n];
      for (int i = 0; i < n; i++) {
        out[i] = b.values()[i] ? 1 : 0;
      }
    } else {
      if (src.type().kind() == Kind.DATE || src.type().kind() == Kind.TIMESTAMP) {
        throw EngineException.badPlan("cannot cast " + src.type() + " to " + to);
      }
      out = Coercions.toDouble(src).values().clone();
    }
    if (to.kind() == Kind.REAL) {
      for (int i = 0; i < n; i++) {
        out[i] = (float) out[i];
      }
    }
    return new DoubleColumn(to, out, src.nullMask(), n);
  }

  private static Column toDecimal(Column src, SqlType to, int n) {
    if (src instanceof DecimalColumn d && d.scale() == to.scale() && d.type().precision() <= to.precision()) {
      return d.withType(to); // a wider precision at the same scale holds every value as it is
    }
    DecimalColumn out = new DecimalColumn(to, new long[n], null, src.nullMask(), n);
    int s = to.scale();
    int p = to.precision();
    if (src instanceof LongColumn || src instanceof DecimalColumn) {
      if (src.type().kind() == Kind.DATE || src.type().kind() == Kind.TIMESTAMP) {
        throw EngineException.badPlan("cannot cast " + src.type() + " to " + to);
      }
      DecimalColumn d = Coercions.toDecimal(src, s);
      for (int i = 0; i < n; i++) {
        if (src.isNull(i)) {
          continue;
        }
        if (d.isBig(i)) {
          if (!Decimals.fits(d.unscaledBig(i), p)) {
            throw overflow(to);
          }
          out.setBig(i, d.unscaledBig(i));
        } else {
          if (!Decimals.fits(d.unscaledLong(i), p)) {
            throw overflow(to);
          }
          out.setLong(i, d.unscaledLong(i));
        }
      }
      return out;
    }
    for (int i = 0; i < n; i++) {
      if (src.isNull(i)) {
        continue;
      }
      BigDecimal v;
      if (src instanceof DoubleColumn d) {
        double x = d.value(i);
        if (Double.isNaN(x) || Double.isInfinite(x)) {
          throw bad(x, to);
        }
        v = BigDecimal.valueOf(x);
      } else if (src instanceof BytesColumn b) {
        try {
          v = new BigDecimal(b.string(i).trim());
        } catch (NumberFormatException e) {
          throw bad(b.string(i), to);
        }
      } else {
        v = ((BoolColumn) src).values()[i] ? BigDecimal.ONE : BigDecimal.ZERO;
      }
      BigInteger u = v.setScale(s, RoundingMode.HALF_UP).unscaledValue();
      if (!Decimals.fits(u, p)) {
        throw overflow(to);
      }
      out.setBig(i, u);
    }
    return out;
  }

  private static Column toBool(Column src, int n) {
    boolean[] out = new boolean[n];
    boolean[] nulls = src.nullMask();
    for (int i = 0; i < n; i++) {
      if (src.isNull(i)) {
        continue;
      }
      if (src instanceof LongColumn l) {
        out[i] = l.value(i) != 0;
      } else if (src instanceof DoubleColumn d) {
        out[i] = d.value(i) != 0;
      } else if (src instanceof DecimalColumn d) {
        out[i] = d.decimal(i).signum() != 0;
      } else if (src instanceof BytesColumn b) {
        String t = b.string(i).trim().toLowerCase();
        switch (t) {
          case "true", "t", "1", "yes", "y" -> out[i] = true;
          case "false", "f", "0", "no", "n" -> out[i] = false;
          default -> throw bad(b.string(i), SqlType.BOOLEAN);
        }
      }
    }
    return new BoolColumn(out, nulls, n);
  }

  private static Column toBytes(Column src, SqlType to, int n) {
    if (src instanceof BytesColumn b && !(to.kind() == Kind.VARCHAR && to.precision() > 0)) {
      return new BytesColumn(to, b.data(), b.offsets(), b.nullMask(), n); // same bytes, new type
    }
    BytesColumn out = BytesColumn.withCapacity(to, n, n * 16);
    for (int i = 0; i < n; i++) {
      if (src.isNull(i)) {
        out.appendNull();
        continue;
      }
      byte[] v = src instanceof BytesColumn b ? b.value(i) : format(src, i).getBytes(StandardCharsets.UTF_8);
      if (to.kind() == Kind.VARCHAR && to.precision() > 0) {
        v = StringFunctions.truncateChars(v, to.precision());
      }
      out.append(v);
    }
    return out;
  }

  /** The SQL text of a non-null value (DATE as yyyy-mm-dd, TIMESTAMP as yyyy-mm-dd hh:mm:ss[.ffffff]). */
  static String format(Column c, int i) {
    Kind k = c.type().kind();
    if (c instanceof LongColumn l) {
      long v = l.value(i);
      if (k == Kind.DATE) {
        return LocalDate.ofEpochDay(v).toString();
      } else if (k == Kind.TIMESTAMP) {
        return formatTimestamp(v);
      }
      return Long.toString(v);
    } else if (c instanceof BoolColumn b) {
      return b.values()[i] ? "TRUE" : "FALSE";
    } else if (c instanceof DecimalColumn d) {
      return d.decimal(i).toPlainString();
    } else if (c instanceof DoubleColumn d) {
      double v = d.value(i);
      return k == Kind.REAL ? Float.toString((float) v) : Double.toString(v);
    }
    return String.valueOf(c.get(i));
  }

  static String formatTimestamp(long micros) {
    LocalDateTime dt = LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
        (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC);
    String base = dt.toLocalDate() + " " + String.format("%02d:%02d:%02d", dt.getHour(), dt.getMinute(), dt.getSecond());
    int frac = dt.getNano() / 1000;
    if (frac == 0) {
      return base;
    }
    String f = String.format("%06d", frac);
    while (f.endsWith("0")) {
      f = f.substring(0, f.length() - 1);
    }
    return base + "." + f;
  }

  /** Whether two types share a representation so that values need no conversion. */
  static boolean sameRepresentation(SqlType a, SqlType b) {
    if (a.physical() != b.physical()) {
      return false;
    }
    return a.physical() != Physical.DECIMAL || a.scale() == b.scale();
  }
}

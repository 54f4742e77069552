package dev.squall.engine.expr;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.BytesColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DoubleColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.DataType.Kind;
import dev.squall.proto.v1.Function;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/**
 * Trino's date and time functions on DATE (days since 1970-01-01) and TIMESTAMP (microseconds
 * since 1970-01-01T00:00, read as UTC): DATE_TRUNC, DATE_ADD, DATE_DIFF, FROM_UNIXTIME,
 * TO_UNIXTIME, DATE_FORMAT and DATE_PARSE. Units are lower-case literals checked by the planner:
 * millisecond, second, minute, hour (timestamps only), day, week, month, quarter, year.
 */
final class DateTimeFunctions {
  private static final long MPD = Coercions.MICROS_PER_DAY;

  private DateTimeFunctions() {}

  /** Microseconds of one fixed-length unit, or 0 for the calendar units (month, quarter, year). */
  private static long unitMicros(String unit) {
    return switch (unit) {
      case "millisecond" -> 1_000L;
      case "second" -> 1_000_000L;
      case "minute" -> 60_000_000L;
      case "hour" -> 3_600_000_000L;
      case "day" -> MPD;
      case "week" -> 7 * MPD;
      case "month", "quarter", "year" -> 0;
      default -> throw EngineException.badPlan("unknown date unit '" + unit + "'");
    };
  }

  private static long micros(LongColumn c, int i) {
    return c.type().kind() == Kind.TIMESTAMP ? c.value(i) : c.value(i) * MPD;
  }

  private static long out(SqlType type, long micros) {
    return type.kind() == Kind.DATE ? Math.floorDiv(micros, MPD) : micros;
  }

  static LocalDateTime dateTime(long micros) {
    return LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
        (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC);
  }

  static long micros(LocalDateTime t) {
    return t.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + t.getNano() / 1000;
  }

  /** DATE_TRUNC(unit, value): the start of the unit holding value (weeks start on Monday). */
  static final class Trunc implements Evaluator {
    private final String unit;
    private final SqlType type;
    private final Evaluator value;

    Trunc(String unit, SqlType type, Evaluator value) {
      this.unit = unit;
      this.type = type;
      this.value = value;
      unitMicros(unit);
    }

    @Override
    public SqlType type() {
      return type;
    }

    @Override
    public Column evaluate(Batch batch) {
      LongColumn v = (LongColumn) value.evaluate(batch);
      int n = batch.rows();
      long[] out = new long[n];
      long fixed = unitMicros(unit);
      for (int i = 0; i < n; i++) {
        if (v.isNull(i)) {
          continue;
        }
        long m = micros(v, i);
        long r;
        if (fixed > 0 && fixed <= MPD) {
          r = Math.floorDiv(m, fixed) * fixed;
        } else {
          long days = Math.floorDiv(m, MPD);
          if (unit.equals("week")) {
            r = (days - Math.floorMod(days + 3, 7)) * MPD;
          } else {
            LocalDate d = LocalDate.ofEpochDay(days);
            LocalDate start = switch (unit) {
              case "month" -> d.withDayOfMonth(1);
              case "quarter" -> LocalDate.of(d.getYear(), (d.getMonthValue() - 1) / 3 * 3 + 1, 1);
              default -> d.withDayOfYear(1);
            };
            r = start.toEpochDay() * MPD;
          }
        }
        out[i] = out(type, r);
      }
      return new LongColumn(type, out, v.nullMask(), n);
    }
  }

  /** DATE_ADD(unit, amount, value): months, quarters and years keep the day, clamped to the month's end. */
  static final class Add implements Evaluator {
    private final String unit;
    private final SqlType type;
    private final Evaluator amount;
    private final Evaluator value;

    Add(String unit, SqlType type, Evaluator amount, Evaluator value) {
      this.unit = unit;
      this.type = type;
      this.amount = amount;
      this.value = value;
      unitMicros(unit);
    }

    @Override
    public SqlType type() {
      return type;
    }

    @Override
    public Column evaluate(Batch batch) {
      LongColumn a = (LongColumn) amount.evaluate(batch);
      LongColumn v = (LongColumn) value.evaluate(batch);
      int n = batch.rows();
      boolean[] nulls = Coercions.orNulls(a.nullMask(), v.nullMask(), n);
      long[] out = new long[n];
      long fixed = unitMicros(unit);
      long monthsPerUnit = unit.equals("year") ? 12 : unit.equals("quarter") ? 3 : 1;
      for (int i = 0; i < n; i++) {
        if (nulls != null && nulls[i]) {
          continue;
        }
        long m = micros(v, i);
        try {
          long r;
          if (fixed > 0) {
            r = Math.addExact(m, Math.multiplyExact(a.value(i), fixed));
          } else {
            long days = Math.floorDiv(m, MPD);
            long timeOfDay = Math.floorMod(m, MPD);
            r = LocalDate.ofEpochDay(days).plusMonths(Math.multiplyExact(a.value(i), monthsPerUnit)).toEpochDay() * MPD
                + timeOfDay;
          }
          out[i] = out(type, r);
        } catch (ArithmeticException | java.time.DateTimeException e) {
          throw EngineException.user("DATE_ADD overflows: " + a.value(i) + " " + unit + "s");
        }
      }
      return new LongColumn(type, out, nulls, n);
    }
  }

  /** DATE_DIFF(unit, from, to): the whole units from `from` to `to`, truncated toward zero. */
  static final class Diff implements Evaluator {
    private final String unit;
    private final SqlType type;
    private final Evaluator from;
    private final Evaluator to;

    Diff(String unit, SqlType type, Evaluator from, Evaluator to) {
      this.unit = unit;
      this.type = type;
      this.from = from;
      this.to = to;
      unitMicros(unit);
    }

    @Override
    public SqlType type() {
      return type;
    }

    @Override
    public Column evaluate(Batch batch) {
      LongColumn a = (LongColumn) from.evaluate(batch);
      LongColumn b = (LongColumn) to.evaluate(batch);
      int n = batch.rows();
      boolean[] nulls = Coercions.orNulls(a.nullMask(), b.nullMask(), n);
      long[] out = new long[n];
      long fixed = unitMicros(unit);
      for (int i = 0; i < n; i++) {
        if (nulls != null && nulls[i]) {
          continue;
        }
        long x = micros(a, i);
        long y = micros(b, i);
        if (fixed > 0) {
          out[i] = (y - x) / fixed;
        } else {
          long months = monthsBetween(x, y);
          out[i] = switch (unit) {
            case "quarter" -> months / 3;
            case "year" -> months / 12;
            default -> months;
          };
        }
      }
      return new LongColumn(type, out, nulls, n);
    }
  }

  /**
   * Whole months from {@code from} to {@code to} (microseconds), as Trino counts them (Joda-Time's
   * month field difference; negated when {@code to} is earlier): the month count, less one when the
   * remainder of {@code to} within its month is short of that of {@code from}; when {@code to} is
   * the last day of its month and
   * {@code from}'s day is later, {@code from}'s day counts as that last day (Jan 31 to Feb 29 is
   * one month).
   */
  static long monthsBetween(long from, long to) {
    if (to < from) {
      return -monthsBetween(to, from);
    }
    LocalDateTime a = dateTime(from);
    LocalDateTime b = dateTime(to);
    long difference = (b.getYear() - a.getYear()) * 12L + (b.getMonthValue() - a.getMonthValue());
    int lastDay = b.toLocalDate().lengthOfMonth();
    if (b.getDayOfMonth() == lastDay && a.getDayOfMonth() > lastDay) {
      a = a.withDayOfMonth(Math.min(lastDay, a.toLocalDate().lengthOfMonth()));
    }
    long remainderB = micros(b) - micros(b.toLocalDate().withDayOfMonth(1).atStartOfDay());
    long remainderA = micros(a) - micros(a.toLocalDate().withDayOfMonth(1).atStartOfDay());
    return remainderB < remainderA ? difference - 1 : difference;
  }

  /** FROM_UNIXTIME(seconds) to a TIMESTAMP (to the millisecond, as Trino), TO_UNIXTIME back to DOUBLE seconds. */
  static final class Unixtime implements Evaluator {
    private final Function op;
    private final SqlType type;
    private final Evaluator arg;

    Unixtime(Function op, SqlType type, Evaluator arg) {
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
      Column c = arg.evaluate(batch);
      if (op == Function.TO_UNIXTIME) {
        LongColumn t = (LongColumn) c;
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
          out[i] = micros(t, i) / 1e6;
        }
        return Casts.cast(new DoubleColumn(SqlType.DOUBLE, out, c.nullMask(), n), type);
      }
      DoubleColumn seconds = Coercions.toDouble(c);
      long[] out = new long[n];
      for (int i = 0; i < n; i++) {
        double s = seconds.value(i);
        if (seconds.isNull(i)) {
          continue;
        }
        if (!(Math.abs(s) < 9.2e12)) {
          throw EngineException.user("FROM_UNIXTIME: " + s + " seconds is out of range");
        }
        out[i] = Math.round(s * 1000) * 1000L;
      }
      return new LongColumn(type, out, c.nullMask(), n);
    }
  }

  /** DATE_FORMAT(value, format) and DATE_PARSE(string, format), with the {@link MySqlDateFormat} specifiers. */
  static final class Format implements Evaluator {
    private final boolean parse;
    private final SqlType type;
    private final Evaluator value;
    private final Evaluator format;
    private String cachedFormat;
    private DateTimeFormatter cachedParser;

    Format(boolean parse, SqlType type, Evaluator value, Evaluator format) {
      this.parse = parse;
      this.type = type;
      this.value = value;
      this.format = format;
    }

    @Override
    public SqlType type() {
      return type;
    }

    @Override
    public Column evaluate(Batch batch) {
      int n = batch.rows();
      Column v = value.evaluate(batch);
      BytesColumn f = (BytesColumn) format.evaluate(batch);
      boolean[] nulls = Coercions.orNulls(v.nullMask(), f.nullMask(), n);
      if (parse) {
        BytesColumn s = (BytesColumn) v;
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
          if (nulls == null || !nulls[i]) {
            out[i] = parse(s.string(i), f.string(i));
          }
        }
        return new LongColumn(type, out, nulls, n);
      }
      LongColumn t = (LongColumn) v;
      BytesColumn out = BytesColumn.withCapacity(type, n, n * 20);
      for (int i = 0; i < n; i++) {
        if (nulls != null && nulls[i]) {
          out.appendNull();
        } else {
          out.append(MySqlDateFormat.format(dateTime(micros(t, i)), f.string(i)).getBytes(StandardCharsets.UTF_8));
        }
      }
      return out;
    }

    private long parse(String s, String fmt) {
      if (!fmt.equals(cachedFormat)) {
        cachedParser = MySqlDateFormat.parser(fmt);
        cachedFormat = fmt;
      }
      try {
        return micros(LocalDateTime.parse(s, cachedParser));
      } catch (DateTimeParseException e) {
        throw EngineException.user("DATE_PARSE: '" + s + "' does not match the format '" + fmt + "'");
      }
    }
  }
}

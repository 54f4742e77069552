package dev.squall.engine.expr;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.DataType.Kind;
import dev.squall.proto.v1.Function;
import java.time.LocalDate;

/** EXTRACT of date fields and date/timestamp ± interval. Calendar: proleptic Gregorian, UTC. */
final class DateFunctions {
  private DateFunctions() {}

  /**
   * EXTRACT(YEAR | MONTH | DAY | QUARTER | DOW | DOY | WEEK | HOUR | MINUTE | SECOND FROM
   * date-or-timestamp) and Trino's ISO day of week; DOW is 1 = Sunday .. 7 = Saturday, ISO_DOW
   * 1 = Monday .. 7 = Sunday, WEEK the ISO-8601 week of the week-based year; a DATE's time fields are 0.
   */
  static final class Extract implements Evaluator {
    private final Function field;
    private final SqlType type;
    private final Evaluator arg;

    Extract(Function field, SqlType type, Evaluator arg) {
      this.field = field;
      this.type = type;
      this.arg = arg;
    }

    @Override
    public SqlType type() {
      return type;
    }

    @Override
    public Column evaluate(Batch batch) {
      LongColumn c = (LongColumn) arg.evaluate(batch);
      int n = batch.rows();
      boolean micros = c.type().kind() == Kind.TIMESTAMP;
      long[] v = c.values();
      long[] out = new long[n];
      for (int i = 0; i < n; i++) {
        if (c.isNull(i)) {
          continue;
        }
        long days = micros ? Math.floorDiv(v[i], Coercions.MICROS_PER_DAY) : v[i];
        long timeOfDay = micros ? Math.floorMod(v[i], Coercions.MICROS_PER_DAY) : 0;
        switch (field) {
          case EXTRACT_HOUR -> {
            out[i] = timeOfDay / 3_600_000_000L;
            continue;
          }
          case EXTRACT_MINUTE -> {
            out[i] = timeOfDay / 60_000_000L % 60;
            continue;
          }
          case EXTRACT_SECOND -> {
            out[i] = timeOfDay / 1_000_000L % 60;
            continue;
          }
          case EXTRACT_ISO_DOW -> {
            // 1970-01-01 was a Thursday (4 with Monday = 1).
            out[i] = Math.floorMod(days + 3, 7) + 1;
            continue;
          }
          default -> { }
        }
        if (field == Function.EXTRACT_DOW) {
          // 1970-01-01 was a Thursday (5 with Sunday = 1).
          out[i] = Math.floorMod(days + 4, 7) + 1;
          continue;
        }
        LocalDate d = LocalDate.ofEpochDay(days);
        out[i] = switch (field) {
          case EXTRACT_YEAR -> d.getYear();
          case EXTRACT_MONTH -> d.getMonthValue();
          case EXTRACT_DAY -> d.getDayOfMonth();
          case EXTRACT_QUARTER -> (d.getMonthValue() - 1) / 3 + 1;
          case EXTRACT_WEEK -> d.get(java.time.temporal.IsoFields.WEEK_OF_WEEK_BASED_YEAR);
          case EXTRACT_DOY -> d.getDayOfYear();
          default -> throw EngineException.badPlan("not an EXTRACT field: " + field);
        };
      }
      return new LongColumn(type, out, c.nullMask(), n);
    }
  }

  /**
   * date-or-timestamp ± interval. Day-time intervals are milliseconds (whole days for a DATE);
   * year-month intervals are months, added with the day clamped to the month's end (SQL standard).
   */
  static final class PlusInterval implements Evaluator {
    private final boolean minus;
    private final SqlType type;
    private final Evaluator date;
    private final Evaluator interval;

    PlusInterval(boolean minus, SqlType type, Evaluator date, Evaluator interval) {
      this.minus = minus;
      this.type = type;
      this.date = date;
      this.interval = interval;
    }

    @Override
    public SqlType type() {
      return type;
    }

    @Override
    public Column evaluate(Batch batch) {
      LongColumn d = (LongColumn) date.evaluate(batch);
      LongColumn iv = (LongColumn) interval.evaluate(batch);
      int n = batch.rows();
      boolean[] nulls = Coercions.orNulls(d.nullMask(), iv.nullMask(), n);
      boolean months = iv.type().kind() == Kind.INTERVAL_YEAR_MONTH;
      boolean inMicros = d.type().kind() == Kind.TIMESTAMP;
      boolean outMicros = type.kind() == Kind.TIMESTAMP;
      long[] out = new long[n];
      for (int i = 0; i < n; i++) {
        if (nulls != null && nulls[i]) {
          continue;
        }
        long amount = minus ? -iv.value(i) : iv.value(i);
        long micros = inMicros ? d.value(i) : d.value(i) * Coercions.MICROS_PER_DAY;
        long r;
        if (months) {
          long days = Math.floorDiv(micros, Coercions.MICROS_PER_DAY);
          long timeOfDay = Math.floorMod(micros, Coercions.MICROS_PER_DAY);
          r = LocalDate.ofEpochDay(days).plusMonths(amount).toEpochDay() * Coercions.MICROS_PER_DAY + timeOfDay;
        } else {
          r = micros + amount * 1000L;
        }
        out[i] = outMicros ? r : Math.floorDiv(r, Coercions.MICROS_PER_DAY);
      }
      return new LongColumn(type, out, nulls, n);
    }
  }
}

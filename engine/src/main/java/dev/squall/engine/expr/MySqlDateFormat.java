package dev.squall.engine.expr;

import dev.squall.engine.EngineException;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.ResolverStyle;
import java.time.format.SignStyle;
import java.time.format.TextStyle;
import java.time.temporal.ChronoField;
import java.util.Locale;

/**
 * The MySQL date format that Trino's DATE_FORMAT and DATE_PARSE use: {@code %Y} year, {@code %y}
 * two-digit year, {@code %m} / {@code %c} month, {@code %d} / {@code %e} day, {@code %H} / {@code %k}
 * hour 0-23, {@code %h} / {@code %I} / {@code %l} hour 1-12, {@code %i} minute, {@code %s} /
 * {@code %S} second, {@code %f} fraction of a second, {@code %p} AM/PM, {@code %j} day of year,
 * {@code %a} / {@code %W} weekday name, {@code %b} / {@code %M} month name, {@code %T}
 * ({@code %H:%i:%s}), {@code %r} ({@code %h:%i:%s %p}), {@code %%}. Names are English. Other
 * specifiers are refused with a user error naming them.
 */
final class MySqlDateFormat {
  private MySqlDateFormat() {}

  /** {@code t} formatted by {@code format}. */
  static String format(LocalDateTime t, String format) {
    StringBuilder b = new StringBuilder(format.length() + 8);
    for (int i = 0; i < format.length(); i++) {
      char c = format.charAt(i);
      if (c != '%' || i + 1 == format.length()) {
        b.append(c);
        continue;
      }
      char s = format.charAt(++i);
      switch (s) {
        case 'Y' -> b.append(pad(t.getYear(), 4));
        case 'y' -> b.append(pad(Math.floorMod(t.getYear(), 100), 2));
        case 'm' -> b.append(pad(t.getMonthValue(), 2));
        case 'c' -> b.append(t.getMonthValue());
        case 'd' -> b.append(pad(t.getDayOfMonth(), 2));
        case 'e' -> b.append(t.getDayOfMonth());
        case 'H' -> b.append(pad(t.getHour(), 2));
        case 'k' -> b.append(t.getHour());
        case 'h', 'I' -> b.append(pad(clockHour(t), 2));
        case 'l' -> b.append(clockHour(t));
        case 'i' -> b.append(pad(t.getMinute(), 2));
        case 's', 'S' -> b.append(pad(t.getSecond(), 2));
        case 'f' -> b.append(pad(t.getNano() / 1000, 6));
        case 'p' -> b.append(t.getHour() < 12 ? "AM" : "PM");
        case 'j' -> b.append(pad(t.getDayOfYear(), 3));
        case 'a' -> b.append(t.getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.US));
        case 'W' -> b.append(t.getDayOfWeek().getDisplayName(TextStyle.FULL, Locale.US));
        case 'b' -> b.append(t.getMonth().getDisplayName(TextStyle.SHORT, Locale.US));
        case 'M' -> b.append(t.getMonth().getDisplayName(TextStyle.FULL, Locale.US));
        case 'T' -> b.append(pad(t.getHour(), 2)).append(':').append(pad(t.getMinute(), 2)).append(':')
            .append(pad(t.getSecond(), 2));
        case 'r' -> b.append(pad(clockHour(t), 2)).append(':').append(pad(t.getMinute(), 2)).append(':')
            .append(pad(t.getSecond(), 2)).append(t.getHour() < 12 ? " AM" : " PM");
        case '%' -> b.append('%');
        default -> throw unsupported(s);
      }
    }
    return b.toString();
  }

  /**
   * A strict parser for {@code format}: every field it lacks defaults to 1970-01-01 00:00:00 as in
   * Trino, and a string that does not match is an error.
   */
  static DateTimeFormatter parser(String format) {
    DateTimeFormatterBuilder b = new DateTimeFormatterBuilder().parseCaseInsensitive();
    boolean clock12 = false;
    boolean hour = false;
    for (int i = 0; i < format.length(); i++) {
      char c = format.charAt(i);
      if (c != '%' || i + 1 == format.length()) {
        b.appendLiteral(c);
        continue;
      }
      char s = format.charAt(++i);
      switch (s) {
        case 'Y' -> b.appendValue(ChronoField.YEAR, 4, 9, SignStyle.NORMAL);
        case 'y' -> b.appendValueReduced(ChronoField.YEAR, 2, 2, 2000);
        case 'm' -> b.appendValue(ChronoField.MONTH_OF_YEAR, 2);
        case 'c' -> b.appendValue(ChronoField.MONTH_OF_YEAR, 1, 2, SignStyle.NOT_NEGATIVE);
        case 'd' -> b.appendValue(ChronoField.DAY_OF_MONTH, 2);
        case 'e' -> b.appendValue(ChronoField.DAY_OF_MONTH, 1, 2, SignStyle.NOT_NEGATIVE);
        case 'H' -> b.appendValue(ChronoField.HOUR_OF_DAY, 2);
        case 'k' -> b.appendValue(ChronoField.HOUR_OF_DAY, 1, 2, SignStyle.NOT_NEGATIVE);
        case 'h', 'I' -> b.appendValue(ChronoField.CLOCK_HOUR_OF_AMPM, 2);
        case 'l' -> b.appendValue(ChronoField.CLOCK_HOUR_OF_AMPM, 1, 2, SignStyle.NOT_NEGATIVE);
        case 'i' -> b.appendValue(ChronoField.MINUTE_OF_HOUR, 2);
        case 's', 'S' -> b.appendValue(ChronoField.SECOND_OF_MINUTE, 2);
        case 'f' -> b.appendFraction(ChronoField.NANO_OF_SECOND, 1, 9, false);
        case 'p' -> b.appendText(ChronoField.AMPM_OF_DAY, TextStyle.SHORT);
        case 'j' -> b.appendValue(ChronoField.DAY_OF_YEAR, 3);
        case 'a' -> b.appendText(ChronoField.DAY_OF_WEEK, TextStyle.SHORT);
        case 'W' -> b.appendText(ChronoField.DAY_OF_WEEK, TextStyle.FULL);
        case 'b' -> b.appendText(ChronoField.MONTH_OF_YEAR, TextStyle.SHORT);
        case 'M' -> b.appendText(ChronoField.MONTH_OF_YEAR, TextStyle.FULL);
        case 'T' -> b.appendPattern("HH:mm:ss");
        case 'r' -> b.appendPattern("hh:mm:ss a");
        case '%' -> b.appendLiteral('%');
        default -> throw unsupported(s);
      }
      clock12 |= s == 'h' || s == 'I' || s == 'l' || s == 'r';
      hour |= s == 'H' || s == 'k' || s == 'T' || clock12;
    }
    if (format.contains("%j")) {
      b.parseDefaulting(ChronoField.YEAR, 1970);
    } else {
      b.parseDefaulting(ChronoField.YEAR, 1970).parseDefaulting(ChronoField.MONTH_OF_YEAR, 1)
          .parseDefaulting(ChronoField.DAY_OF_MONTH, 1);
    }
    if (!hour) {
      b.parseDefaulting(ChronoField.HOUR_OF_DAY, 0);
    } else if (clock12 && !format.contains("%p") && !format.contains("%r")) {
      b.parseDefaulting(ChronoField.AMPM_OF_DAY, 0);
    }
    b.parseDefaulting(ChronoField.MINUTE_OF_HOUR, 0).parseDefaulting(ChronoField.SECOND_OF_MINUTE, 0)
        .parseDefaulting(ChronoField.NANO_OF_SECOND, 0);
    return b.toFormatter(Locale.US).withResolverStyle(ResolverStyle.STRICT)
        .withChronology(java.time.chrono.IsoChronology.INSTANCE);
  }

  private static int clockHour(LocalDateTime t) {
    int h = t.getHour() % 12;
    return h == 0 ? 12 : h;
  }

  private static String pad(long v, int width) {
    String s = Long.toString(Math.abs(v));
    StringBuilder b = new StringBuilder(width + 1);
    if (v < 0) {
      b.append('-');
    }
    for (int i = s.length(); i < width; i++) {
      b.append('0');
    }
    return b.append(s).toString();
  }

  private static EngineException unsupported(char specifier) {
    return EngineException.user("date format specifier %" + specifier + " is not supported");
  }
}

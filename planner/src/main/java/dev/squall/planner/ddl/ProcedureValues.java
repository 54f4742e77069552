package dev.squall.planner.ddl;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations and data sizes as Trino writes them in table procedure arguments and properties
 * (airlift's {@code Duration} and {@code DataSize} text forms): a decimal number and a unit,
 * {@code '7d'}, {@code '36h'}, {@code '1.5m'}, {@code '500ms'}; {@code '10MB'}, {@code '512kB'}
 * (binary multiples: 1 kB = 1024 B, as airlift's).
 */
public final class ProcedureValues {
  private ProcedureValues() {}

  private static final Pattern NUMBER_AND_UNIT = Pattern.compile("\\s*(\\d+(?:\\.\\d+)?)\\s*([a-zA-Z]+)\\s*");
  private static final Map<String, Long> DURATION_NANOS = Map.of(
      "ns", 1L, "us", 1_000L, "ms", 1_000_000L, "s", 1_000_000_000L, "m", 60_000_000_000L,
      "h", 3_600_000_000_000L, "d", 86_400_000_000_000L);
  private static final Map<String, Long> SIZE_BYTES = Map.of(
      "B", 1L, "kB", 1L << 10, "MB", 1L << 20, "GB", 1L << 30, "TB", 1L << 40, "PB", 1L << 50);

  /**
   * @throws IllegalArgumentException naming the text when it is not a number and one of ns, us,
   *     ms, s, m, h, d
   */
  public static Duration duration(String text) {
    Matcher m = NUMBER_AND_UNIT.matcher(text);
    Long unit = m.matches() ? DURATION_NANOS.get(m.group(2)) : null;
    if (unit == null) {
      throw new IllegalArgumentException("'" + text + "' is not a duration such as '7d', '12h' or '30m'");
    }
    return Duration.ofNanos(new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unit)).longValue());
  }

  /**
   * Bytes of a data size.
   *
   * @throws IllegalArgumentException naming the text when it is not a number and one of B, kB,
   *     MB, GB, TB, PB
   */
  public static long dataSize(String text) {
    Matcher m = NUMBER_AND_UNIT.matcher(text);
    Long unit = m.matches() ? SIZE_BYTES.get(m.group(2)) : null;
    if (unit == null) {
      throw new IllegalArgumentException("'" + text + "' is not a data size such as '10MB' or '512kB'");
    }
    return new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unit)).longValue();
  }

  /**
   * A duration in the largest unit (d, h, m, s, ms) that states it whole, e.g. {@code 7d},
   * {@code 36h}, {@code 0s}.
   */
  public static String text(Duration d) {
    long millis = d.toMillis();
    String[] units = {"d", "h", "m", "s"};
    long[] sizes = {86_400_000L, 3_600_000L, 60_000L, 1_000L};
    for (int i = 0; i < units.length; i++) {
      if (millis % sizes[i] == 0) {
        return millis / sizes[i] + units[i];
      }
    }
    return millis + "ms";
  }

  /** A duration as Trino prints it in messages: days with two decimals, e.g. {@code 7.00d}. */
  public static String days(Duration d) {
    return String.format(Locale.ROOT, "%.2fd", d.toMillis() / 86_400_000.0);
  }
}

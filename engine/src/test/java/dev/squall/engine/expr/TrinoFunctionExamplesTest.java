package dev.squall.engine.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.engine.EngineException;
import java.time.LocalDateTime;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Trino's documented examples of its string and date functions (trino.io, "Functions and
 * operators"), and the month-end rule of its date_diff (Joda-Time's month difference), as the
 * engine answers them. The answers over data are tested against DuckDB end to end.
 */
class TrinoFunctionExamplesTest {
  private static long micros(String t) {
    return DateTimeFunctions.micros(LocalDateTime.parse(t));
  }

  @Test
  void regularExpressionExamples() {
    assertThat(TextFunctions.extract(Pattern.compile("\\d+"), "1a 2b 14m", 0)).isEqualTo("1");
    assertThat(TextFunctions.extract(Pattern.compile("(\\d+)([a-z]+)"), "1a 2b 14m", 2)).isEqualTo("a");
    assertThat(TextFunctions.extract(Pattern.compile("x"), "1a 2b 14m", 0)).isNull();
    assertThat(TextFunctions.replace(Pattern.compile("\\d+[ab] "), "1a 2b 14m", "")).isEqualTo("14m");
    assertThat(TextFunctions.replace(Pattern.compile("(\\d+)([ab]) "), "1a 2b 14m", "3c$2 ")).isEqualTo("3ca 3cb 14m");
    assertThatThrownBy(() -> TextFunctions.extract(Pattern.compile("(a)"), "a", 2))
        .isInstanceOf(EngineException.class).hasMessageContaining("group 2");
  }

  @Test
  void stringExamples() {
    assertThat(TextFunctions.splitPart("a,b,,c", ",", 3)).isEmpty();
    assertThat(TextFunctions.splitPart("a,b,,c", ",", 4)).isEqualTo("c");
    assertThat(TextFunctions.splitPart("a,b,,c", ",", 5)).isNull();
    assertThat(TextFunctions.pad("abc", 6, "xy", true)).isEqualTo("xyxabc");
    assertThat(TextFunctions.pad("abc", 2, "xy", false)).isEqualTo("ab");
    assertThat(TextFunctions.strpos("h\uD83D\uDE00llo", "l")).isEqualTo(3);
    assertThatThrownBy(() -> TextFunctions.pad("abc", 5, "", true)).hasMessageContaining("padding");
    assertThatThrownBy(() -> TextFunctions.splitPart("a", ",", 0)).hasMessageContaining("greater than zero");
  }

  @Test
  void chrAndCodepointExamplesAndTheirErrors() {
    assertThat(TextFunctions.chr(65)).isEqualTo("A");
    assertThat(TextFunctions.chr(0x1F600)).isEqualTo("\uD83D\uDE00");
    assertThat(TextFunctions.codepoint("\uD83D\uDE00")).isEqualTo(0x1F600);
    assertThat(TextFunctions.codepoint("\u00e9")).isEqualTo(233);
    for (long bad : new long[] {-1, 0x110000, 0xD800}) {
      assertThatThrownBy(() -> TextFunctions.chr(bad)).isInstanceOf(EngineException.class)
          .hasMessageContaining("Not a valid Unicode code point");
    }
    assertThatThrownBy(() -> TextFunctions.codepoint("ab")).isInstanceOf(EngineException.class).hasMessageContaining("one character");
    assertThatThrownBy(() -> TextFunctions.codepoint("")).isInstanceOf(EngineException.class).hasMessageContaining("one character");
  }

  @Test
  void substrCountsANegativeStartFromTheEndAndGivesEmptyOutsideTheString() {
    java.util.function.BiFunction<Long, Long, String> substr = (start, length) ->
        new String(StringFunctions.substring("h\u00e9llo", start, length), java.nio.charset.StandardCharsets.UTF_8);
    long all = Long.MAX_VALUE;
    assertThat(substr.apply(2L, all)).isEqualTo("\u00e9llo");
    assertThat(substr.apply(2L, 2L)).isEqualTo("\u00e9l");
    assertThat(substr.apply(-3L, all)).isEqualTo("llo");
    assertThat(substr.apply(-4L, 2L)).isEqualTo("\u00e9l");
    assertThat(substr.apply(0L, 2L)).isEmpty();
    assertThat(substr.apply(-6L, all)).isEmpty();
    assertThat(substr.apply(6L, all)).isEmpty();
    assertThat(substr.apply(2L, 0L)).isEmpty();
    assertThat(substr.apply(2L, -1L)).isEmpty();
    assertThat(substr.apply(4L, 100L)).isEqualTo("lo");
    // A code point of four UTF-8 bytes (two UTF-16 chars) counts as one.
    java.util.function.BiFunction<Long, Long, String> emoji = (start, length) -> new String(
        StringFunctions.substring("h\u00e9l\uD83D\uDE00o", start, length), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(emoji.apply(4L, 1L)).isEqualTo("\uD83D\uDE00");
    assertThat(emoji.apply(-2L, all)).isEqualTo("\uD83D\uDE00o");
    assertThat(emoji.apply(3L, 2L)).isEqualTo("l\uD83D\uDE00");
    assertThat(emoji.apply(5L, all)).isEqualTo("o");
  }

  @Test
  void dateFormatAndParseExamples() {
    LocalDateTime t = LocalDateTime.parse("2022-10-20T05:10:00");
    assertThat(MySqlDateFormat.format(t, "%m-%d-%Y %H")).isEqualTo("10-20-2022 05");
    assertThat(MySqlDateFormat.format(t, "%W %b %e %r")).isEqualTo("Thursday Oct 20 05:10:00 AM");
    assertThat(LocalDateTime.parse("2022/10/20/05", MySqlDateFormat.parser("%Y/%m/%d/%H")))
        .isEqualTo(LocalDateTime.parse("2022-10-20T05:00:00"));
    assertThat(LocalDateTime.parse("20 Oct 2022 5:07 PM", MySqlDateFormat.parser("%d %b %Y %l:%i %p")))
        .isEqualTo(LocalDateTime.parse("2022-10-20T17:07:00"));
    assertThatThrownBy(() -> MySqlDateFormat.format(t, "%U")).hasMessageContaining("%U");
  }

  @Test
  void monthDifferencesCountAWholeMonthToAShorterMonthsLastDay() {
    assertThat(DateTimeFunctions.monthsBetween(micros("2020-01-31T00:00"), micros("2020-02-29T00:00"))).isEqualTo(1);
    assertThat(DateTimeFunctions.monthsBetween(micros("2020-01-31T00:00"), micros("2020-02-28T00:00"))).isZero();
    assertThat(DateTimeFunctions.monthsBetween(micros("2020-01-15T12:00"), micros("2020-02-15T11:59"))).isZero();
    assertThat(DateTimeFunctions.monthsBetween(micros("2020-01-15T12:00"), micros("2020-02-15T12:00"))).isEqualTo(1);
    assertThat(DateTimeFunctions.monthsBetween(micros("2020-03-15T00:00"), micros("2020-01-20T00:00"))).isEqualTo(-1);
    assertThat(DateTimeFunctions.monthsBetween(micros("1995-06-24T02:50:10"), micros("1995-06-17T12:00"))).isZero();
    assertThat(DateTimeFunctions.monthsBetween(micros("2020-02-29T00:00"), micros("2020-01-31T00:00"))).isEqualTo(-1);
    assertThat(DateTimeFunctions.monthsBetween(micros("2019-02-28T00:00"), micros("2020-02-29T00:00"))).isEqualTo(12);
  }

  @Test
  void roundingExamples() {
    assertThat(MathFunctions.roundLong(1250, -2, false)).isEqualTo(1300);
    assertThat(MathFunctions.roundLong(-1250, -2, false)).isEqualTo(-1300);
    assertThat(MathFunctions.roundLong(-1299, -2, true)).isEqualTo(-1200);
    assertThat(MathFunctions.roundDouble(-2.5, 0, false)).isEqualTo(-3.0);
    assertThat(MathFunctions.roundDouble(3.14159, 3, false)).isEqualTo(3.142);
    assertThat(MathFunctions.roundDouble(-1.98, 1, true)).isEqualTo(-1.9);
  }
}

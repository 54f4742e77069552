package dev.squall.cli.local;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/** The 22 TPC-H queries shipped in local-emulator, and their DuckDB spelling. */
final class TpchQueries {
  private static final Pattern INTERVAL_PRECISION = Pattern.compile("(interval\\s+'[^']*'\\s+(?:day|month|year))\\s*\\(\\d+\\)", Pattern.CASE_INSENSITIVE);

  private TpchQueries() {}

  /** Query {@code n} (1..22) as Squall runs it. */
  static String text(int n) {
    String name = String.format("/dev/squall/local/tpch/queries/q%02d.sql", n);
    try (InputStream in = TpchQueries.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The same query for DuckDB: only the interval-precision suffix, which DuckDB does not parse, goes. */
  static String forDuckDb(String sql) {
    return INTERVAL_PRECISION.matcher(sql).replaceAll("$1");
  }

  /** Whether the query's answer order is defined (a top-level ORDER BY). */
  static boolean ordered(String sql) {
    String s = sql.toLowerCase(java.util.Locale.ROOT);
    int lastParen = s.lastIndexOf(')');
    int order = s.lastIndexOf("order by");
    return order > lastParen;
  }
}

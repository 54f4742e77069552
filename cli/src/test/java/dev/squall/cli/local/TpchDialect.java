package dev.squall.cli.local;

import java.util.regex.Pattern;

/** How the TPC-H queries read for DuckDB, and whether their answers are ordered. */
public final class TpchDialect {
  private static final Pattern INTERVAL_PRECISION = Pattern.compile("(interval\\s+'[^']*'\\s+(?:day|month|year))\\s*\\(\\d+\\)", Pattern.CASE_INSENSITIVE);

  private TpchDialect() {}

  /** The same query for DuckDB: only the interval-precision suffix, which DuckDB does not parse, goes. */
  public static String forDuckDb(String sql) {
    return INTERVAL_PRECISION.matcher(sql).replaceAll("$1");
  }

  /** Whether the query's answer order is defined (a top-level ORDER BY). */
  public static boolean ordered(String sql) {
    String s = sql.toLowerCase(java.util.Locale.ROOT);
    int lastParen = s.lastIndexOf(')');
    int order = s.lastIndexOf("order by");
    return order > lastParen;
  }
}

package dev.squall.planner.sql;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Splits an optional {@code EXPLAIN} or {@code EXPLAIN (FORMAT TEXT|JSON)} prefix off a statement.
 * The prefix is blanked out with spaces rather than removed, so that line and column numbers of
 * errors in the query still point into the text the user sent.
 *
 * @param format {@code null} when the statement is not an EXPLAIN
 * @param query the statement text with the prefix replaced by blanks
 */
public record ExplainStatement(Format format, String query) {
  /** The output format of an EXPLAIN. */
  public enum Format { TEXT, JSON }

  private static final Pattern PREFIX = Pattern.compile(
      "^\\s*explain(\\s*\\(\\s*format\\s+(\\w+)\\s*\\))?(\\s+|$)",
      Pattern.CASE_INSENSITIVE);

  private static final Pattern ANALYZE_PREFIX = Pattern.compile("^\\s*explain\\s+analyze(\\s+|$)",
      Pattern.CASE_INSENSITIVE);

  /**
   * For {@code EXPLAIN ANALYZE <query>}: the query, its prefix blanked out as {@link #parse} does (so
   * error positions still point into the text sent); empty for any other statement.
   */
  public static Optional<String> analyzedQuery(String sql) {
    Matcher m = ANALYZE_PREFIX.matcher(sql);
    return m.find() ? Optional.of(blank(sql, m.end())) : Optional.empty();
  }

  /** True when the statement is an EXPLAIN. */
  public boolean isExplain() {
    return format != null;
  }

  /**
   * Parses the prefix.
   *
   * @throws IllegalArgumentException naming an unknown format, e.g. {@code FORMAT XML}
   */
  public static ExplainStatement parse(String sql) {
    Matcher m = PREFIX.matcher(sql);
    if (!m.find()) {
      return new ExplainStatement(null, sql);
    }
    Format format = Format.TEXT;
    if (m.group(2) != null) {
      String name = m.group(2).toUpperCase(Locale.ROOT);
      try {
        format = Format.valueOf(name);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "Unknown EXPLAIN format '" + m.group(2) + "'; expected TEXT or JSON");
      }
    }
    return new ExplainStatement(format, blank(sql, m.end()));
  }

  /** {@code sql} with its first {@code end} characters, line breaks apart, turned into spaces. */
  private static String blank(String sql, int end) {
    StringBuilder blanked = new StringBuilder(sql);
    for (int i = 0; i < end; i++) {
      char c = blanked.charAt(i);
      if (c != '\n' && c != '\r') {
        blanked.setCharAt(i, ' ');
      }
    }
    return blanked.toString();
  }
}

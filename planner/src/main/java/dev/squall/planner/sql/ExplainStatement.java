package dev.squall.planner.sql;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Splits an optional {@code EXPLAIN} or {@code EXPLAIN (option, ...)} prefix off a statement; the
 * options, as Trino's: {@code FORMAT TEXT|JSON} and {@code TYPE DISTRIBUTED} (Squall's EXPLAIN is
 * the distributed plan; Trino's LOGICAL, VALIDATE and IO types are refused by name).
 * The prefix is blanked out with spaces rather than removed, so that line and column numbers of
 * errors in the query still point into the text the user sent.
 *
 * @param format {@code null} when the statement is not an EXPLAIN
 * @param query the statement text with the prefix replaced by blanks
 */
public record ExplainStatement(Format format, String query) {
  /** The output format of an EXPLAIN. */
  public enum Format { TEXT, JSON }

  private static final Pattern PREFIX = Pattern.compile("^\\s*explain(\\s*\\(([^)]*)\\))?(\\s+|$)",
      Pattern.CASE_INSENSITIVE);
  private static final Pattern OPTION = Pattern.compile("\\s*(\\w+)\\s+(\\w+)\\s*");

  /** An EXPLAIN option that is malformed or not supported, at {@code offset} into the statement. */
  public static final class BadOptionException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final int offset;

    BadOptionException(String message, int offset) {
      super(message);
      this.offset = offset;
    }

    /** Characters from the statement's start to the option. */
    public int offset() {
      return offset;
    }
  }

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
      int at = m.start(2);
      for (String option : m.group(2).split(",", -1)) {
        format = option(option, at, format);
        at += option.length() + 1;
      }
    }
    return new ExplainStatement(format, blank(sql, m.end()));
  }

  /** Applies one {@code NAME VALUE} option found at {@code offset}; returns the format. */
  private static Format option(String option, int offset, Format format) {
    Matcher m = OPTION.matcher(option);
    int at = offset + (option.length() - option.stripLeading().length());
    if (!m.matches()) {
      throw new BadOptionException("EXPLAIN options are FORMAT TEXT|JSON and TYPE DISTRIBUTED, got '"
          + option.strip() + "'", at);
    }
    String name = m.group(1).toUpperCase(Locale.ROOT);
    String value = m.group(2).toUpperCase(Locale.ROOT);
    switch (name) {
      case "FORMAT":
        try {
          return Format.valueOf(value);
        } catch (IllegalArgumentException e) {
          throw new BadOptionException("Unknown EXPLAIN format '" + m.group(2) + "'; expected TEXT or JSON", at);
        }
      case "TYPE":
        if (value.equals("DISTRIBUTED")) {
          return format;
        }
        if (value.equals("LOGICAL") || value.equals("VALIDATE") || value.equals("IO")) {
          throw new BadOptionException("EXPLAIN (TYPE " + value + ") is not supported; Squall's EXPLAIN shows the"
              + " distributed plan (TYPE DISTRIBUTED)", at);
        }
        throw new BadOptionException("Unknown EXPLAIN type '" + m.group(2) + "'; expected DISTRIBUTED", at);
      default:
        throw new BadOptionException("Unknown EXPLAIN option '" + m.group(1) + "'; expected FORMAT or TYPE", at);
    }
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

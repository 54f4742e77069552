package dev.squall.planner.sql;

import dev.squall.planner.PlanningException;
import dev.squall.planner.PlanningException.Code;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Trino's time travel clauses, which Calcite's grammar lacks: {@code t FOR VERSION AS OF <snapshot
 * id>} and {@code t FOR TIMESTAMP AS OF TIMESTAMP '<yyyy-mm-dd[ hh:mm:ss[.fff]]>[ <zone>]'} (no
 * zone: UTC). Each clause is taken out of the text before Calcite parses it: the table name becomes
 * the quoted name {@code "t@<n>"}, where n indexes {@link #clauses()}, and the clause becomes
 * blanks, so every other position in the text is unchanged. The catalog schema resolves such a
 * name to the table read as of the clause's snapshot.
 *
 * <p>String literals, quoted identifiers and comments are skipped when looking for clauses.
 */
public final class TimeTravelClauses {
  /** Separates a table name from its clause index in a rewritten name. */
  public static final char MARK = '@';

  /** One clause: what it asks for, and where it stands in the text. */
  public record Clause(Kind kind, long value, String text, int line, int column) {}

  /** VERSION: value is a snapshot id; TIMESTAMP: value is epoch milliseconds. */
  public enum Kind { VERSION, TIMESTAMP }

  private static final Pattern CLAUSE = Pattern.compile(
      "(?i)\\bFOR\\s+(VERSION|TIMESTAMP)\\s+AS\\s+OF\\s+");
  private static final Pattern NUMBER = Pattern.compile("\\d+");
  private static final Pattern TIMESTAMP_LITERAL = Pattern.compile("(?i)TIMESTAMP\\s*'");

  private final String sql;
  private final List<Clause> clauses;

  private TimeTravelClauses(String sql, List<Clause> clauses) {
    this.sql = sql;
    this.clauses = List.copyOf(clauses);
  }

  /** The statement with every clause rewritten as described above. */
  public String sql() {
    return sql;
  }

  /** The clauses, by index. */
  public List<Clause> clauses() {
    return clauses;
  }

  /**
   * Finds and rewrites the clauses of {@code sql}.
   *
   * @throws PlanningException SYNTAX_ERROR or UNSUPPORTED at a clause that is not followed by a
   *     snapshot id or a timestamp literal, or that follows no table name
   */
  public static TimeTravelClauses rewrite(String sql) {
    String masked = mask(sql);
    Matcher m = CLAUSE.matcher(masked);
    StringBuilder out = new StringBuilder(sql);
    List<Clause> clauses = new ArrayList<>();
    int from = 0;
    while (m.find(from)) {
      int[] at = position(sql, m.start());
      Kind kind = m.group(1).equalsIgnoreCase("VERSION") ? Kind.VERSION : Kind.TIMESTAMP;
      int valueStart = m.end();
      int end;
      long value;
      if (kind == Kind.VERSION) {
        Matcher n = NUMBER.matcher(masked).region(valueStart, masked.length());
        if (!n.lookingAt()) {
          throw unsupported(sql, valueStart, "FOR VERSION AS OF takes a snapshot id (a whole number)");
        }
        try {
          value = Long.parseLong(n.group());
        } catch (NumberFormatException e) {
          throw new PlanningException(Code.VALIDATION_ERROR, "Snapshot id " + n.group() + " is out of range",
              position(sql, valueStart)[0], position(sql, valueStart)[1]);
        }
        end = n.end();
      } else {
        Matcher t = TIMESTAMP_LITERAL.matcher(masked).region(valueStart, masked.length());
        if (!t.lookingAt()) {
          throw unsupported(sql, valueStart, "FOR TIMESTAMP AS OF takes a literal TIMESTAMP 'yyyy-mm-dd hh:mm:ss'");
        }
        int close = masked.indexOf('\'', t.end());
        String literal = sql.substring(t.end(), close);
        value = epochMillis(literal, sql, valueStart);
        end = close + 1;
      }
      int nameEnd = m.start();
      while (nameEnd > 0 && Character.isWhitespace(masked.charAt(nameEnd - 1))) {
        nameEnd--;
      }
      int nameStart = nameStart(masked, nameEnd);
      if (nameStart == nameEnd) {
        throw new PlanningException(Code.SYNTAX_ERROR, "Syntax error: FOR " + kind + " AS OF must follow a table name",
            at[0], at[1]);
      }
      String name = masked.charAt(nameStart) == '"'
          ? sql.substring(nameStart + 1, nameEnd - 1) : sql.substring(nameStart, nameEnd);
      String replacement = "\"" + name + MARK + clauses.size() + "\"";
      clauses.add(new Clause(kind, value, sql.substring(m.start(), end).replaceAll("\\s+", " "), at[0], at[1]));
      for (int k = nameStart; k < end; k++) {
        int r = k - nameStart;
        char c = sql.charAt(k);
        out.setCharAt(k, r < replacement.length() ? replacement.charAt(r) : (c == '\n' || c == '\r' ? c : ' '));
      }
      from = end;
    }
    return new TimeTravelClauses(out.toString(), clauses);
  }

  /** Start of the identifier (plain or double-quoted) that ends at {@code end} in the masked text. */
  private static int nameStart(String masked, int end) {
    if (end > 0 && masked.charAt(end - 1) == '"') {
      int open = masked.lastIndexOf('"', end - 2);
      return open < 0 ? end : open;
    }
    int start = end;
    while (start > 0 && (Character.isLetterOrDigit(masked.charAt(start - 1)) || masked.charAt(start - 1) == '_'
        || masked.charAt(start - 1) == '$')) {
      start--;
    }
    return start;
  }

  /** Parses the literal: a date, or a date and time, then an optional zone (UTC when absent). */
  private static long epochMillis(String literal, String sql, int at) {
    String text = literal.trim();
    ZoneId zone = ZoneOffset.UTC;
    int space = text.lastIndexOf(' ');
    if (space > 0 && !Character.isDigit(text.charAt(space + 1))) {
      try {
        zone = ZoneId.of(text.substring(space + 1));
      } catch (DateTimeException e) {
        throw invalidTimestamp(literal, sql, at);
      }
      text = text.substring(0, space).trim();
    } else if (text.matches(".*\\d[+-]\\d{2}:\\d{2}$")) {
      zone = ZoneId.of(text.substring(text.length() - 6));
      text = text.substring(0, text.length() - 6).trim();
    }
    try {
      LocalDateTime local = text.length() <= 10 ? LocalDate.parse(text).atStartOfDay()
          : LocalDateTime.parse(text.replace(' ', 'T'));
      return local.atZone(zone).toInstant().toEpochMilli();
    } catch (DateTimeException e) {
      throw invalidTimestamp(literal, sql, at);
    }
  }

  private static PlanningException invalidTimestamp(String literal, String sql, int at) {
    int[] p = position(sql, at);
    return new PlanningException(Code.VALIDATION_ERROR, "Invalid timestamp '" + literal
        + "': expected 'yyyy-mm-dd[ hh:mm:ss[.fff]][ zone]'", p[0], p[1]);
  }

  private static PlanningException unsupported(String sql, int offset, String message) {
    int[] p = position(sql, offset);
    return new PlanningException(Code.UNSUPPORTED, "Unsupported SQL: " + message, p[0], p[1]);
  }

  /**
   * The text with the insides of string literals, quoted identifiers and comments replaced by
   * '_' (quotes kept), so that patterns never match inside them; same length as {@code sql}.
   */
  static String mask(String sql) {
    StringBuilder b = new StringBuilder(sql);
    int i = 0;
    while (i < sql.length()) {
      char c = sql.charAt(i);
      if (c == '\'' || c == '"') {
        int j = i + 1;
        while (j < sql.length()) {
          if (sql.charAt(j) == c) {
            if (j + 1 < sql.length() && sql.charAt(j + 1) == c) {
              b.setCharAt(j, '_');
              b.setCharAt(j + 1, '_');
              j += 2;
              continue;
            }
            break;
          }
          b.setCharAt(j, '_');
          j++;
        }
        i = j + 1;
      } else if (sql.startsWith("--", i)) {
        while (i < sql.length() && sql.charAt(i) != '\n') {
          b.setCharAt(i++, ' ');
        }
      } else if (sql.startsWith("/*", i)) {
        int close = sql.indexOf("*/", i + 2);
        int stop = close < 0 ? sql.length() : close + 2;
        for (; i < stop; i++) {
          if (sql.charAt(i) != '\n') {
            b.setCharAt(i, ' ');
          }
        }
      } else {
        i++;
      }
    }
    return b.toString();
  }

  /** 1-based line and column of an offset. */
  static int[] position(String sql, int offset) {
    int line = 1;
    int column = 1;
    for (int k = 0; k < offset && k < sql.length(); k++) {
      if (sql.charAt(k) == '\n') {
        line++;
        column = 1;
      } else {
        column++;
      }
    }
    return new int[] {line, column};
  }
}

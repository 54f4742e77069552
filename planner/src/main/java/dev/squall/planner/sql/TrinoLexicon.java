package dev.squall.planner.sql;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Words that Calcite's parser reserves but Trino's does not, made parseable by quoting them before
 * Calcite sees the text: identifiers such as {@code running}, {@code prev}, {@code empty},
 * {@code value}, {@code dec} or {@code returns} (a column or alias in Trino), {@code year} where it
 * names a column or alias rather than a date-time unit or function, {@code partition} but before
 * BY, and function names that Calcite's
 * grammar takes for something else: {@code day(x)}, {@code hour(x)}, {@code minute(x)},
 * {@code second(x)} (interval units in Calcite) and {@code date_diff(...)}, {@code date_trunc(...)}
 * (BigQuery's argument order in Calcite). Text inside string literals, quoted identifiers and
 * comments is left alone, and so are {@code DEC} as a type in a CAST, {@code FETCH NEXT}, a
 * unit after an interval literal ({@code interval '1' day (3)}) and the header of a CREATE TABLE
 * (partition transforms such as {@code day(col)}).
 *
 * <p>Quoting inserts characters; {@link Rewritten#originalColumn} maps a position in the rewritten
 * text back to the text the user sent, so that errors point where they did.
 */
public final class TrinoLexicon {
  /** Reserved by Calcite, not by Trino, and (but for FETCH NEXT) never a keyword in SQL that Squall runs. */
  private static final Set<String> IDENTIFIERS = Set.of("RUNNING", "PREV", "NEXT", "EMPTY", "VALUE", "DEC",
      "FINAL", "CLASSIFIER", "MEASURES", "PATTERN", "DEFINE", "SUBSET", "MATCH_NUMBER", "ONE", "PER", "PAST",
      "RETURNS");
  /**
   * Date-time units Calcite reserves that Trino lets name columns ({@code d_year as year},
   * {@code t.year}): identifiers unless a unit (after an interval's string, around TO, before
   * FROM in EXTRACT) or a call ({@code year(d)}).
   */
  private static final Set<String> UNITS = Set.of("YEAR");
  /**
   * Reserved by Calcite, not by Trino, and a keyword in SQL that Squall runs only before BY:
   * {@code partition} names a column of {@code "t$partitions"} and {@code "t$files"}.
   */
  private static final Set<String> UNLESS_BEFORE_BY = Set.of("PARTITION");
  /** Function names that Calcite's grammar reads another way when followed by '('. */
  private static final Set<String> FUNCTIONS = Set.of("DAY", "HOUR", "MINUTE", "SECOND", "DATE_DIFF", "DATE_TRUNC");

  private TrinoLexicon() {}

  /**
   * The statement with those words quoted, and the map back to the original positions.
   *
   * @param sql a statement as the user sent it
   */
  public static Rewritten rewrite(String sql) {
    List<Token> tokens = tokens(sql);
    StringBuilder out = new StringBuilder(sql.length() + 16);
    Map<Integer, List<Integer>> insertions = new HashMap<>();
    int copied = 0;
    for (int t = queryStart(tokens); t < tokens.size(); t++) {
      Token token = tokens.get(t);
      if (token.kind != Kind.WORD || !quote(tokens, t)) {
        continue;
      }
      out.append(sql, copied, token.start);
      insertions.computeIfAbsent(token.line, l -> new ArrayList<>()).add(token.column);
      out.append('"').append(sql, token.start, token.end).append('"');
      // The closing quote sits after the word: one more inserted character before what follows it.
      insertions.get(token.line).add(token.column + (token.end - token.start));
      copied = token.end;
    }
    out.append(sql, copied, sql.length());
    return new Rewritten(out.toString(), insertions);
  }

  /**
   * Where rewriting starts: at the query of a CREATE TABLE (its first SELECT or VALUES), whose
   * header Squall parses itself and where {@code day(col)} is a partition transform; else at 0.
   */
  private static int queryStart(List<Token> tokens) {
    // CREATE comes first, or after an EXPLAIN [(FORMAT f)] prefix.
    int first = -1;
    for (int t = 0; t < Math.min(tokens.size(), 7) && first < 0; t++) {
      Token k = tokens.get(t);
      if (k.isWord("CREATE")) {
        first = t;
      } else if (!(k.isWord("EXPLAIN") || k.isWord("FORMAT") || k.isWord("TEXT") || k.isWord("JSON")
          || k.isPunctuation('(') || k.isPunctuation(')'))) {
        return 0;
      }
    }
    if (first < 0) {
      return 0;
    }
    for (int t = first; t < tokens.size(); t++) {
      if (tokens.get(t).isWord("SELECT") || tokens.get(t).isWord("VALUES")) {
        return t;
      }
    }
    return tokens.size();
  }

  private static boolean quote(List<Token> tokens, int t) {
    String word = tokens.get(t).text.toUpperCase(Locale.ROOT);
    boolean call = t + 1 < tokens.size() && tokens.get(t + 1).isPunctuation('(');
    Token previous = t > 0 ? tokens.get(t - 1) : null;
    if (FUNCTIONS.contains(word)) {
      // Not the unit of an interval literal or qualifier: interval '1' day (3), year to month.
      return call && (previous == null || (previous.kind != Kind.STRING && !previous.isWord("TO")));
    }
    if (UNITS.contains(word)) {
      Token next = t + 1 < tokens.size() ? tokens.get(t + 1) : null;
      boolean unit = previous != null && (previous.kind == Kind.STRING || previous.isWord("TO"))
          || next != null && (next.isWord("TO") || next.isWord("FROM"));
      return !call && !unit;
    }
    if (UNLESS_BEFORE_BY.contains(word)) {
      return !call && !(t + 1 < tokens.size() && tokens.get(t + 1).isWord("BY"));
    }
    if (!IDENTIFIERS.contains(word) || call) {
      return false;
    }
    if (word.equals("DEC") && previous != null && previous.isWord("AS") && insideCast(tokens, t)) {
      return false;
    }
    if (word.equals("NEXT") && previous != null && previous.isWord("FETCH")) {
      // FETCH NEXT n ROWS ONLY.
      return false;
    }
    return true;
  }

  /** Whether token t sits directly inside the parentheses of CAST or TRY_CAST. */
  private static boolean insideCast(List<Token> tokens, int t) {
    int depth = 0;
    for (int i = t - 1; i > 0; i--) {
      Token k = tokens.get(i);
      if (k.isPunctuation(')')) {
        depth++;
      } else if (k.isPunctuation('(')) {
        if (depth == 0) {
          return tokens.get(i - 1).isWord("CAST") || tokens.get(i - 1).isWord("TRY_CAST");
        }
        depth--;
      }
    }
    return false;
  }

  private enum Kind { WORD, STRING, OTHER }

  private record Token(Kind kind, String text, int start, int end, int line, int column) {
    boolean isWord(String word) {
      return kind == Kind.WORD && text.equalsIgnoreCase(word);
    }

    boolean isPunctuation(char c) {
      return kind == Kind.OTHER && text.length() == 1 && text.charAt(0) == c;
    }
  }

  /** Significant tokens: words, string literals and single other characters; quoted identifiers and comments skipped. */
  private static List<Token> tokens(String sql) {
    List<Token> tokens = new ArrayList<>();
    int line = 1;
    int lineStart = 0;
    int i = 0;
    int n = sql.length();
    while (i < n) {
      char c = sql.charAt(i);
      int start = i;
      int column = i - lineStart + 1;
      if (c == '\n') {
        line++;
        lineStart = i + 1;
        i++;
      } else if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
        while (i < n && sql.charAt(i) != '\n') {
          i++;
        }
      } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
        int end = sql.indexOf("*/", i + 2);
        end = end < 0 ? n : end + 2;
        for (int k = i; k < end; k++) {
          if (sql.charAt(k) == '\n') {
            line++;
            lineStart = k + 1;
          }
        }
        i = end;
      } else if (c == '\'' || c == '"') {
        i++;
        while (i < n) {
          char d = sql.charAt(i);
          if (d == '\n') {
            line++;
            lineStart = i + 1;
          }
          if (d == c) {
            if (i + 1 < n && sql.charAt(i + 1) == c) {
              i += 2;
              continue;
            }
            i++;
            break;
          }
          i++;
        }
        if (c == '\'') {
          tokens.add(new Token(Kind.STRING, sql.substring(start, i), start, i, line, column));
        } else {
          tokens.add(new Token(Kind.OTHER, "\"", start, i, line, column));
        }
      } else if (Character.isLetter(c) || c == '_') {
        while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_' || sql.charAt(i) == '$')) {
          i++;
        }
        tokens.add(new Token(Kind.WORD, sql.substring(start, i), start, i, line, column));
      } else if (Character.isDigit(c)) {
        while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '.')) {
          i++;
        }
        tokens.add(new Token(Kind.OTHER, sql.substring(start, i), start, i, line, column));
      } else {
        tokens.add(new Token(Kind.OTHER, String.valueOf(c), start, i + 1, line, column));
        i++;
      }
    }
    return tokens;
  }

  /**
   * A rewritten statement.
   *
   * @param sql the text to parse
   * @param insertions per 1-based line, the 1-based columns (in the original text) before which
   *     one quote character was inserted
   */
  public record Rewritten(String sql, Map<Integer, List<Integer>> insertions) {
    /** The column in the original text of {@code column} on {@code line} of the rewritten text (0 stays 0). */
    public int originalColumn(int line, int column) {
      List<Integer> at = insertions.get(line);
      if (at == null || column <= 0) {
        return column;
      }
      // Walk the insertions in order, each shifting everything after it one column right.
      int shift = 0;
      for (int original : at) {
        if (original + shift < column) {
          shift++;
        } else {
          break;
        }
      }
      return column - shift;
    }
  }
}

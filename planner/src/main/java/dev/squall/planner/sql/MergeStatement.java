package dev.squall.planner.sql;

import dev.squall.planner.PlanningException;
import dev.squall.planner.PlanningException.Code;
import dev.squall.planner.sql.CreateTableAsStatement.NamePart;
import dev.squall.planner.sql.HeaderTokenizer.Kind;
import dev.squall.planner.sql.HeaderTokenizer.Token;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * {@code MERGE INTO t [[AS] a] USING s [[AS] b] ON condition WHEN ... [WHEN ...]} in Trino's form,
 * which Calcite's parser does not read (several WHEN clauses, {@code AND} conditions, DELETE):
 *
 * <pre>
 * WHEN MATCHED [AND c] THEN UPDATE SET col = expr [, ...]
 * WHEN MATCHED [AND c] THEN DELETE
 * WHEN NOT MATCHED [AND c] THEN INSERT [(col, ...)] VALUES (expr, ...)
 * </pre>
 *
 * Squall splits the statement into its parts itself; every expression and the source query are
 * parsed by Calcite from their own text, placed at their line and column in the statement so
 * that errors carry the statement's positions. A fragment can be parsed again for a fresh tree
 * ({@link Fragment#parse()}), since the planner puts a condition in several places.
 *
 * @param target the target table's name
 * @param targetAlias the target's alias, or null
 * @param source the source table's name, or its query
 * @param sourceAlias the source's alias (required for a query), or null
 * @param condition the ON condition
 * @param clauses the WHEN clauses in order (the first whose condition holds applies to a row)
 */
public record MergeStatement(SqlIdentifier target, SqlIdentifier targetAlias, Fragment source,
    SqlIdentifier sourceAlias, Fragment condition, List<Clause> clauses) {

  /** What a WHEN clause does. */
  public enum Action { UPDATE, DELETE, INSERT }

  /**
   * One WHEN clause.
   *
   * @param matched true for WHEN MATCHED
   * @param condition the clause's AND condition, or null
   * @param columns UPDATE: the SET columns; INSERT: the column list, or null when absent
   * @param values UPDATE: the SET values; INSERT: the VALUES expressions; DELETE: empty
   * @param position the WHEN keyword's position
   */
  public record Clause(boolean matched, Fragment condition, Action action, List<SqlIdentifier> columns,
      List<Fragment> values, SqlParserPos position) {}

  /** A piece of the statement's text that Calcite parses, at its place in the statement. */
  public static final class Fragment {
    private final String padded;
    private final boolean query;
    private final SqlParserPos position;

    Fragment(String sql, Token first, int endOffset, boolean query) {
      this.padded = "\n".repeat(first.line() - 1) + " ".repeat(first.column() - 1)
          + sql.substring(first.offset(), endOffset);
      this.query = query;
      this.position = new SqlParserPos(first.line(), first.column());
    }

    /** True when the fragment is a query (a parenthesized MERGE source). */
    public boolean isQuery() {
      return query;
    }

    /** Where the fragment starts. */
    public SqlParserPos position() {
      return position;
    }

    /**
     * A new parse tree of the fragment.
     *
     * @throws PlanningException SYNTAX_ERROR with the statement's line and column
     */
    public SqlNode parse() {
      try {
        SqlParser parser = SqlParser.create(padded, SqlFrontEnd.parserConfig());
        return query ? parser.parseQuery() : parser.parseExpression();
      } catch (SqlParseException e) {
        SqlParserPos pos = e.getPos();
        throw new PlanningException(Code.SYNTAX_ERROR, "Syntax error in MERGE: " + SqlFrontEnd.syntaxMessage(e),
            pos == null || pos.getLineNum() == 0 ? position.getLineNum() : pos.getLineNum(),
            pos == null || pos.getColumnNum() == 0 ? position.getColumnNum() : pos.getColumnNum(), e);
      }
    }
  }

  /**
   * The MERGE statement in {@code sql}, or empty when the statement does not start with MERGE.
   *
   * @throws PlanningException SYNTAX_ERROR for a malformed statement; UNSUPPORTED for forms Squall
   *     does not run (WHEN NOT MATCHED BY SOURCE, VALUES with several rows); with positions
   */
  public static Optional<MergeStatement> parse(String sql) {
    Token first = new HeaderTokenizer(sql).first();
    if (first == null || !first.isKeyword("MERGE")) {
      return Optional.empty();
    }
    List<Token> tokens = new ArrayList<>(new HeaderTokenizer(sql, true).tokenizeAll());
    int end = sql.length();
    while (!tokens.isEmpty() && tokens.get(tokens.size() - 1).isPunctuation(';')) {
      end = tokens.remove(tokens.size() - 1).offset();
    }
    return Optional.of(new Reader(sql.substring(0, end), tokens).statement());
  }

  /** Reads the statement's tokens in order. */
  private static final class Reader {
    private final String sql;
    private final List<Token> tokens;
    private final TokenCursor cursor;

    Reader(String sql, List<Token> tokens) {
      this.sql = sql;
      this.tokens = tokens;
      this.cursor = new TokenCursor(sql, "MERGE", List.copyOf(tokens));
    }

    MergeStatement statement() {
      cursor.expectKeyword("MERGE");
      cursor.expectKeyword("INTO");
      SqlIdentifier target = name("a table name");
      SqlIdentifier targetAlias = alias("USING");
      cursor.expectKeyword("USING");
      Fragment source;
      Token at = cursor.peek();
      if (at != null && at.isPunctuation('(')) {
        int close = closing(cursor.position());
        if (close == cursor.position() + 1) {
          throw cursor.syntax(tokens.get(close), "expected a query");
        }
        source = new Fragment(sql, tokens.get(cursor.position() + 1), tokens.get(close).offset(), true);
        cursor.reset(close + 1);
      } else {
        Token start = cursor.peek();
        name("a source table name or a parenthesized query");
        source = new Fragment(sql, start, endOf(cursor.position() - 1), false);
      }
      SqlIdentifier sourceAlias = alias("ON");
      if (source.isQuery() && sourceAlias == null) {
        throw cursor.syntax(cursor.peek(), "expected an alias after the source query");
      }
      cursor.expectKeyword("ON");
      Fragment condition = expressionUntil(t -> t.isKeyword("WHEN"), "a join condition");
      List<Clause> clauses = new ArrayList<>();
      do {
        clauses.add(clause());
      } while (cursor.peek() != null);
      return new MergeStatement(target, targetAlias, source, sourceAlias, condition, List.copyOf(clauses));
    }

    private Clause clause() {
      Token when = cursor.expectKeyword("WHEN");
      boolean matched = !cursor.acceptKeyword("NOT");
      cursor.expectKeyword("MATCHED");
      if (cursor.peek() != null && cursor.peek().isKeyword("BY")) {
        throw TokenCursor.unsupported(cursor.peek(), "MERGE with WHEN " + (matched ? "" : "NOT ")
            + "MATCHED BY SOURCE or BY TARGET");
      }
      Fragment condition = null;
      if (cursor.acceptKeyword("AND")) {
        condition = expressionUntil(t -> t.isKeyword("THEN"), "a condition after AND");
      }
      cursor.expectKeyword("THEN");
      SqlParserPos pos = new SqlParserPos(when.line(), when.column());
      Token action = cursor.peek();
      if (matched && cursor.acceptKeyword("UPDATE")) {
        cursor.expectKeyword("SET");
        List<SqlIdentifier> columns = new ArrayList<>();
        List<Fragment> values = new ArrayList<>();
        do {
          columns.add(column());
          cursor.expectPunctuation('=');
          values.add(expressionUntil(t -> t.isKeyword("WHEN") || t.isPunctuation(','), "a value"));
        } while (cursor.acceptPunctuation(','));
        return new Clause(true, condition, Action.UPDATE, List.copyOf(columns), List.copyOf(values), pos);
      }
      if (matched && cursor.acceptKeyword("DELETE")) {
        return new Clause(true, condition, Action.DELETE, List.of(), List.of(), pos);
      }
      if (!matched && cursor.acceptKeyword("INSERT")) {
        List<SqlIdentifier> columns = null;
        if (cursor.acceptPunctuation('(')) {
          columns = new ArrayList<>();
          do {
            columns.add(column());
          } while (cursor.acceptPunctuation(','));
          cursor.expectPunctuation(')');
          columns = List.copyOf(columns);
        }
        cursor.expectKeyword("VALUES");
        Token open = cursor.peek();
        if (open == null || !open.isPunctuation('(')) {
          throw cursor.syntax(open, "expected '('");
        }
        int close = closing(cursor.position());
        cursor.next();
        List<Fragment> values = new ArrayList<>();
        do {
          values.add(expressionUntil(t -> t.isPunctuation(',') || t.isPunctuation(')'), "a value"));
        } while (cursor.acceptPunctuation(','));
        if (cursor.position() != close) {
          throw cursor.syntax(cursor.peek(), "expected ')'");
        }
        cursor.next();
        if (cursor.peek() != null && cursor.peek().isPunctuation(',')) {
          throw TokenCursor.unsupported(cursor.peek(), "MERGE INSERT of several VALUES rows; one row per clause");
        }
        return new Clause(false, condition, Action.INSERT, columns, List.copyOf(values), pos);
      }
      throw cursor.syntax(action, matched ? "expected UPDATE or DELETE after WHEN MATCHED ... THEN"
          : "expected INSERT after WHEN NOT MATCHED ... THEN");
    }

    /** A dotted name as an identifier at its first part's position. */
    private SqlIdentifier name(String expected) {
      List<NamePart> parts = cursor.qualifiedName(expected);
      return new SqlIdentifier(parts.stream().map(NamePart::text).toList(),
          new SqlParserPos(parts.get(0).line(), parts.get(0).column()));
    }

    /** A column name (one part). */
    private SqlIdentifier column() {
      NamePart part = cursor.namePart("a column name");
      return new SqlIdentifier(part.text(), new SqlParserPos(part.line(), part.column()));
    }

    /** {@code [AS] alias}, unless the next token is {@code next}; null when there is none. */
    private SqlIdentifier alias(String next) {
      boolean as = cursor.acceptKeyword("AS");
      Token t = cursor.peek();
      if (!as && (t == null || t.isKeyword(next) || t.kind() == Kind.PUNCTUATION)) {
        return null;
      }
      NamePart part = cursor.namePart("an alias");
      return new SqlIdentifier(part.text(), new SqlParserPos(part.line(), part.column()));
    }

    /**
     * The expression from the next token up to (not including) the first token outside
     * parentheses and CASE ... END that {@code stop} accepts, or the end.
     */
    private Fragment expressionUntil(Predicate<Token> stop, String expected) {
      int start = cursor.position();
      int depth = 0;
      int cases = 0;
      int k = start;
      for (; k < tokens.size(); k++) {
        Token t = tokens.get(k);
        if (depth == 0 && cases == 0 && stop.test(t)) {
          break;
        }
        if (t.isPunctuation('(')) {
          depth++;
        } else if (t.isPunctuation(')')) {
          if (depth == 0) {
            break;
          }
          depth--;
        } else if (depth == 0 && t.isKeyword("CASE")) {
          cases++;
        } else if (depth == 0 && t.isKeyword("END") && cases > 0) {
          cases--;
        }
      }
      if (k == start) {
        throw cursor.syntax(cursor.peek(), "expected " + expected);
      }
      int end = k < tokens.size() ? tokens.get(k).offset() : endOf(k - 1);
      cursor.reset(k);
      return new Fragment(sql, tokens.get(start), end, false);
    }

    /** Index of the ')' closing the '(' at token {@code open}. */
    private int closing(int open) {
      int depth = 0;
      for (int k = open; k < tokens.size(); k++) {
        if (tokens.get(k).isPunctuation('(')) {
          depth++;
        } else if (tokens.get(k).isPunctuation(')') && --depth == 0) {
          return k;
        }
      }
      throw cursor.syntax(tokens.get(open), "'(' is not closed");
    }

    /**
     * An offset past token {@code k}: where the next token starts (blanks and comments between do
     * no harm to Calcite), or the end of the statement.
     */
    private int endOf(int k) {
      return k + 1 < tokens.size() ? tokens.get(k + 1).offset() : sql.length();
    }
  }
}

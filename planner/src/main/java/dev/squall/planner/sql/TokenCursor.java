package dev.squall.planner.sql;

import dev.squall.planner.PlanningException;
import dev.squall.planner.PlanningException.Code;
import dev.squall.planner.sql.CreateTableAsStatement.NamePart;
import dev.squall.planner.sql.HeaderTokenizer.Kind;
import dev.squall.planner.sql.HeaderTokenizer.Token;
import java.util.ArrayList;
import java.util.List;

/**
 * A cursor over the tokens of one statement that Squall parses itself (metadata statements and
 * DDL), with the expectations those grammars share. Errors name what was expected and what was
 * found, at the found token's line and column (or just after the statement's end).
 */
final class TokenCursor {
  private final String sql;
  private final String statement;
  private final List<Token> tokens;
  private int i;

  /**
   * @param statement how errors name the statement, e.g. "SHOW TABLES"
   */
  TokenCursor(String sql, String statement) {
    this(sql, statement, (String) null);
  }

  /**
   * @param stopKeyword when not null, tokens end at the first unquoted {@code stopKeyword}
   *     (included): the text after it, e.g. a query after {@code AS}, is not tokenized
   */
  TokenCursor(String sql, String statement, String stopKeyword) {
    this.sql = sql;
    this.statement = statement;
    HeaderTokenizer tokenizer = new HeaderTokenizer(sql);
    this.tokens = stopKeyword == null ? tokenizer.tokenizeAll() : tokenizer.tokenizeUntil(stopKeyword);
  }

  /** A cursor over tokens the caller has already made of {@code sql}. */
  TokenCursor(String sql, String statement, List<Token> tokens) {
    this.sql = sql;
    this.statement = statement;
    this.tokens = tokens;
  }

  /** Every token of the statement. */
  List<Token> tokens() {
    return tokens;
  }

  /** The next token, or null at the end. */
  Token peek() {
    return i < tokens.size() ? tokens.get(i) : null;
  }

  /** The token {@code ahead} places after the next one, or null past the end. */
  Token peek(int ahead) {
    return i + ahead < tokens.size() ? tokens.get(i + ahead) : null;
  }

  Token next() {
    Token t = peek();
    if (t == null) {
      throw syntax(null, "expected more");
    }
    i++;
    return t;
  }

  /** Index of the next token; with {@link #reset} lets a grammar try an alternative. */
  int position() {
    return i;
  }

  void reset(int position) {
    i = position;
  }

  /** Consumes the next token when it is {@code keyword}. */
  boolean acceptKeyword(String keyword) {
    Token t = peek();
    if (t != null && t.isKeyword(keyword)) {
      i++;
      return true;
    }
    return false;
  }

  boolean acceptPunctuation(char c) {
    Token t = peek();
    if (t != null && t.isPunctuation(c)) {
      i++;
      return true;
    }
    return false;
  }

  Token expectKeyword(String keyword) {
    Token t = peek();
    if (t == null || !t.isKeyword(keyword)) {
      throw syntax(t, "expected " + keyword);
    }
    i++;
    return t;
  }

  void expectPunctuation(char c) {
    Token t = peek();
    if (t == null || !t.isPunctuation(c)) {
      throw syntax(t, "expected '" + c + "'");
    }
    i++;
  }

  /** Consumes {@code IF EXISTS} when it comes next. */
  boolean acceptIfExists() {
    Token t = peek();
    Token after = peek(1);
    if (t != null && t.isKeyword("IF") && after != null && after.isKeyword("EXISTS")) {
      i += 2;
      return true;
    }
    return false;
  }

  /** Consumes {@code IF NOT EXISTS} when it comes next. */
  boolean acceptIfNotExists() {
    Token t = peek();
    if (t == null || !t.isKeyword("IF")) {
      return false;
    }
    i++;
    expectKeyword("NOT");
    expectKeyword("EXISTS");
    return true;
  }

  /** One identifier, quoted or not. */
  NamePart namePart(String expected) {
    Token t = peek();
    if (t == null || (t.kind() != Kind.IDENTIFIER && t.kind() != Kind.QUOTED_IDENTIFIER)) {
      throw syntax(t, "expected " + expected);
    }
    i++;
    return new NamePart(t.text(), t.kind() == Kind.QUOTED_IDENTIFIER, t.line(), t.column());
  }

  /** A dotted name: one or more identifiers separated by '.'. */
  List<NamePart> qualifiedName(String expected) {
    List<NamePart> name = new ArrayList<>();
    name.add(namePart(expected));
    while (acceptPunctuation('.')) {
      name.add(namePart("a name part after '.'"));
    }
    return List.copyOf(name);
  }

  /** A single-quoted string literal's text. */
  String string(String expected) {
    Token t = peek();
    if (t == null || t.kind() != Kind.STRING) {
      throw syntax(t, "expected " + expected);
    }
    i++;
    return t.text();
  }

  /** Fails unless every token has been consumed. */
  void expectEnd() {
    Token t = peek();
    if (t != null) {
      throw syntax(t, "expected the end of the statement");
    }
  }

  PlanningException syntax(Token at, String message) {
    if (at == null) {
      int[] end = endPosition();
      return new PlanningException(Code.SYNTAX_ERROR,
          "Syntax error in " + statement + ": " + message + " but the statement ended", end[0], end[1]);
    }
    return new PlanningException(Code.SYNTAX_ERROR,
        "Syntax error in " + statement + ": " + message + ", found '" + at.text() + "'", at.line(), at.column());
  }

  static PlanningException unsupported(Token at, String message) {
    return new PlanningException(Code.UNSUPPORTED, "Unsupported SQL: " + message, at.line(), at.column());
  }

  private int[] endPosition() {
    int line = 1;
    int column = 1;
    for (int k = 0; k < sql.length(); k++) {
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

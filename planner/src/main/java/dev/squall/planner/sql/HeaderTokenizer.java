package dev.squall.planner.sql;

import dev.squall.planner.PlanningException;
import dev.squall.planner.PlanningException.Code;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits the head of a statement into SQL tokens with their 1-based line and column, for the few
 * statement headers Squall parses itself (see {@link CreateTableAsStatement}). It knows
 * identifiers (unquoted, or double-quoted with {@code ""} as an escaped quote), unsigned integers,
 * string literals (single-quoted with {@code ''} as an escaped quote), the punctuation
 * {@code ( ) , . - = [ ] ;}, white space and comments ({@code -- ...} and
 * {@code /* ... *}{@code /}). Tokenizing stops at the first keyword for which
 * {@link #tokenizeUntil} is asked, so the query text after it is never looked at.
 */
final class HeaderTokenizer {
  /** Kinds of token. */
  enum Kind { IDENTIFIER, QUOTED_IDENTIFIER, NUMBER, STRING, PUNCTUATION }

  /**
   * One token.
   *
   * @param text the identifier or string (without quotes, escapes resolved), number or punctuation
   *     character
   * @param offset index of the token's first character in the statement text
   */
  record Token(Kind kind, String text, int offset, int line, int column) {
    /** True for an unquoted identifier equal to {@code keyword}, ignoring case. */
    boolean isKeyword(String keyword) {
      return kind == Kind.IDENTIFIER && text.equalsIgnoreCase(keyword);
    }

    boolean isPunctuation(char c) {
      return kind == Kind.PUNCTUATION && text.charAt(0) == c;
    }
  }

  private final String sql;
  private int pos;
  private int line = 1;
  private int column = 1;

  /** True when any other character is a punctuation token of its own (for whole statements). */
  private final boolean anyPunctuation;

  HeaderTokenizer(String sql) {
    this(sql, false);
  }

  /**
   * @param anyPunctuation true to take any character that starts no other token as a one-character
   *     punctuation token instead of refusing it, so that whole statements with operators tokenize
   */
  HeaderTokenizer(String sql, boolean anyPunctuation) {
    this.sql = sql;
    this.anyPunctuation = anyPunctuation;
  }

  /**
   * Tokens up to and including the first unquoted identifier equal to {@code stopKeyword}
   * (ignoring case), or to the end of the text.
   *
   * @throws PlanningException SYNTAX_ERROR for an unterminated quoted identifier or comment, or a
   *     character that cannot start a header token
   */
  List<Token> tokenizeUntil(String stopKeyword) {
    List<Token> tokens = new ArrayList<>();
    Token t;
    while ((t = next()) != null) {
      tokens.add(t);
      if (t.isKeyword(stopKeyword)) {
        break;
      }
    }
    return tokens;
  }

  /** Every token of the text. */
  List<Token> tokenizeAll() {
    List<Token> tokens = new ArrayList<>();
    Token t;
    while ((t = next()) != null) {
      tokens.add(t);
    }
    return tokens;
  }

  /** The first token of the text, or {@code null} when it holds only blanks and comments. */
  Token first() {
    return next();
  }

  private Token next() {
    skipBlanksAndComments();
    if (pos >= sql.length()) {
      return null;
    }
    int startLine = line;
    int startColumn = column;
    int start = pos;
    char c = sql.charAt(pos);
    if (Character.isLetter(c) || c == '_') {
      while (pos < sql.length() && isIdentifierPart(sql.charAt(pos))) {
        advance();
      }
      return new Token(Kind.IDENTIFIER, sql.substring(start, pos), start, startLine, startColumn);
    }
    if (Character.isDigit(c)) {
      while (pos < sql.length() && Character.isDigit(sql.charAt(pos))) {
        advance();
      }
      return new Token(Kind.NUMBER, sql.substring(start, pos), start, startLine, startColumn);
    }
    if (c == '\'') {
      return quoted('\'', Kind.STRING, "string literal", start, startLine, startColumn);
    }
    if (c == '"') {
      return quoted('"', Kind.QUOTED_IDENTIFIER, "quoted identifier", start, startLine, startColumn);
    }
    if ("(),.-=>[];".indexOf(c) >= 0 || anyPunctuation) {
      advance();
      return new Token(Kind.PUNCTUATION, String.valueOf(c), start, startLine, startColumn);
    }
    throw new PlanningException(Code.SYNTAX_ERROR,
        "Syntax error: unexpected character '" + c + "'", startLine, startColumn);
  }

  /** A token enclosed in {@code quote}, a doubled quote standing for one. */
  private Token quoted(char quote, Kind kind, String what, int start, int startLine, int startColumn) {
    advance();
    StringBuilder name = new StringBuilder();
    while (true) {
      if (pos >= sql.length()) {
        throw new PlanningException(Code.SYNTAX_ERROR,
            "Syntax error: " + what + " is not closed", startLine, startColumn);
      }
      char q = sql.charAt(pos);
      advance();
      if (q == quote) {
        if (pos < sql.length() && sql.charAt(pos) == quote) {
          name.append(quote);
          advance();
        } else {
          break;
        }
      } else {
        name.append(q);
      }
    }
    return new Token(kind, name.toString(), start, startLine, startColumn);
  }

  private static boolean isIdentifierPart(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '$';
  }

  private void skipBlanksAndComments() {
    while (pos < sql.length()) {
      char c = sql.charAt(pos);
      if (Character.isWhitespace(c)) {
        advance();
      } else if (sql.startsWith("--", pos)) {
        while (pos < sql.length() && sql.charAt(pos) != '\n') {
          advance();
        }
      } else if (sql.startsWith("/*", pos)) {
        int startLine = line;
        int startColumn = column;
        advance();
        advance();
        while (pos < sql.length() && !sql.startsWith("*/", pos)) {
          advance();
        }
        if (pos >= sql.length()) {
          throw new PlanningException(Code.SYNTAX_ERROR,
              "Syntax error: comment is not closed", startLine, startColumn);
        }
        advance();
        advance();
      } else {
        return;
      }
    }
  }

  private void advance() {
    if (sql.charAt(pos) == '\n') {
      line++;
      column = 1;
    } else {
      column++;
    }
    pos++;
  }
}

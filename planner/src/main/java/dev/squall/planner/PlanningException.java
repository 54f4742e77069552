package dev.squall.planner;

import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.QueryError;

/**
 * A query that cannot be planned. Raised before any task runs, so a refused query has no side
 * effect. {@link #line()} and {@link #column()} are 1-based positions in the SQL text as the user
 * sent it (0 when the problem has no position, e.g. an internal error).
 */
public final class PlanningException extends RuntimeException {
  /** Why planning failed. Every code but {@link #INTERNAL} is the user's to fix. */
  public enum Code {
    SYNTAX_ERROR,
    UNKNOWN_TABLE,
    /** A schema (Iceberg namespace) that does not exist. */
    UNKNOWN_SCHEMA,
    /** CREATE SCHEMA names a schema that exists. */
    SCHEMA_EXISTS,
    UNKNOWN_COLUMN,
    /** CREATE TABLE (AS) or ALTER TABLE RENAME TO names a table that exists. */
    TABLE_EXISTS,
    /** Any other validation failure: types, ambiguous names, wrong GROUP BY, ... */
    VALIDATION_ERROR,
    /** Valid SQL that Squall does not run (yet), e.g. GROUPING SETS. */
    UNSUPPORTED,
    INTERNAL;

    /** The wire-level category of this code. */
    public ErrorCode errorCode() {
      return this == INTERNAL ? ErrorCode.INTERNAL_ERROR : ErrorCode.USER_ERROR;
    }
  }

  private final Code code;
  private final int line;
  private final int column;

  public PlanningException(Code code, String message, int line, int column, Throwable cause) {
    super(message, cause);
    this.code = code;
    this.line = line;
    this.column = column;
  }

  public PlanningException(Code code, String message, int line, int column) {
    this(code, message, line, column, null);
  }

  /**
   * An error at character {@code offset} of {@code sql} (0-based), positioned by 1-based line and
   * column as every other error.
   */
  public static PlanningException atOffset(Code code, String message, String sql, int offset, Throwable cause) {
    int line = 1;
    int column = 1;
    for (int i = 0; i < offset && i < sql.length(); i++) {
      boolean lineBreak = sql.charAt(i) == '\n';
      line += lineBreak ? 1 : 0;
      column = lineBreak ? 1 : column + 1;
    }
    return new PlanningException(code, message, line, column, cause);
  }

  /** An error with no position in the SQL text. */
  public static PlanningException unpositioned(Code code, String message) {
    return new PlanningException(code, message, 0, 0);
  }

  public Code code() {
    return code;
  }

  /** 1-based line of the offending construct, 0 when unknown. */
  public int line() {
    return line;
  }

  /** 1-based column of the offending construct, 0 when unknown. */
  public int column() {
    return column;
  }

  /** This error as the wire message the coordinator returns. */
  public QueryError toQueryError() {
    return QueryError.newBuilder()
        .setCode(code.errorCode())
        .setMessage(getMessage())
        .setLine(line)
        .setColumn(column)
        .build();
  }

  @Override
  public String getMessage() {
    String base = super.getMessage();
    return line > 0 ? base + " (line " + line + ", column " + column + ")" : base;
  }

  /** The message without the position suffix. */
  public String reason() {
    return super.getMessage();
  }
}

package dev.squall.coordinator.api;

import dev.squall.proto.v1.ErrorCode;
import java.util.Objects;

/**
 * A failure to report to the client: an {@link ErrorCode} category, a message naming the problem,
 * and for SQL errors the 1-based line and column (0 when not applicable). The HTTP layer maps the
 * category to a status code.
 */
public class SquallException extends RuntimeException {
  private final ErrorCode code;
  private final int line;
  private final int column;

  public SquallException(ErrorCode code, String message) {
    this(code, message, 0, 0, null);
  }

  public SquallException(ErrorCode code, String message, int line, int column, Throwable cause) {
    super(Objects.requireNonNull(message, "message"), cause);
    this.code = Objects.requireNonNull(code, "code");
    this.line = line;
    this.column = column;
  }

  /** A user error: the request or the SQL is wrong. */
  public static SquallException userError(String format, Object... args) {
    return new SquallException(ErrorCode.USER_ERROR, String.format(format, args));
  }

  public ErrorCode code() {
    return code;
  }

  /** 1-based line in the SQL text, 0 when not applicable. */
  public int line() {
    return line;
  }

  /** 1-based column in the SQL text, 0 when not applicable. */
  public int column() {
    return column;
  }
}

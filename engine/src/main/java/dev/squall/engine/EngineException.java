package dev.squall.engine;

import dev.squall.proto.v1.ErrorCode;

/**
 * A failure of fragment execution that carries a wire {@link ErrorCode}, so that the task function
 * can report it in {@code TaskError} unchanged: {@code USER_ERROR} for division by zero, overflow and
 * bad casts; {@code INSUFFICIENT_RESOURCES} for the task memory budget; {@code INTERNAL_ERROR} for
 * plans the engine cannot run.
 */
public class EngineException extends RuntimeException {
  private final ErrorCode code;

  public EngineException(ErrorCode code, String message) {
    super(message);
    this.code = code;
  }

  public EngineException(ErrorCode code, String message, Throwable cause) {
    super(message, cause);
    this.code = code;
  }

  /** The error category reported to the coordinator. */
  public ErrorCode code() {
    return code;
  }

  /** A SQL-level error of the query's data (division by zero, overflow, bad cast). */
  public static EngineException user(String message) {
    return new EngineException(ErrorCode.USER_ERROR, message);
  }

  /** A plan the engine cannot run (malformed or unsupported operator or expression). */
  /** The task was told to stop (its job was cancelled, or its invocation is ending). */
  public static EngineException cancelled() {
    return new EngineException(ErrorCode.CANCELLED, "task was cancelled");
  }

  public static EngineException badPlan(String message) {
    return new EngineException(ErrorCode.INTERNAL_ERROR, "invalid plan: " + message);
  }
}

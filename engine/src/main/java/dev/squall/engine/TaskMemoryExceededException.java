package dev.squall.engine;

import dev.squall.proto.v1.ErrorCode;

/**
 * The task's memory budget ({@code TaskSpec.memory_budget_bytes}) would be exceeded. The message
 * starts with "task memory exceeded" and names the operator that asked for memory, the bytes it
 * asked for, and the budget.
 */
public final class TaskMemoryExceededException extends EngineException {
  private final String operator;

  /** @param requestedBytes the bytes asked for, or -1 when unknown (an Arrow allocation failed) */
  public TaskMemoryExceededException(String operator, long requestedBytes, long budgetBytes,
      Throwable cause) {
    super(ErrorCode.INSUFFICIENT_RESOURCES,
        requestedBytes >= 0
            ? String.format("task memory exceeded: operator %s requested %d more bytes over the task budget of %d bytes",
                operator, requestedBytes, budgetBytes)
            : String.format("task memory exceeded: operator %s could not allocate an Arrow buffer within the task budget of %d bytes",
                operator, budgetBytes), cause);
    this.operator = operator;
  }

  /** The name of the operator whose allocation failed, e.g. {@code HashJoin#3}. */
  public String operator() {
    return operator;
  }
}

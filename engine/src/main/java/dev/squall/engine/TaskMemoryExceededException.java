package dev.squall.engine;

import dev.squall.proto.v1.ErrorCode;

/**
 * The task's memory budget ({@code TaskSpec.memory_budget_bytes}) would be exceeded. The message
 * starts with "task memory exceeded" and names the operator that asked for memory, the bytes it
 * asked for, and the budget.
 */
public final class TaskMemoryExceededException extends EngineException {
  private final String operator;
  private static final String RAISE =
      "; raise the task memory (SQUALL_TASK_MEMORY_MB, squall local --task-memory-mb) or let operators spill to disk"
          + " (SQUALL_SPILL_DIR, SQUALL_SPILL_DISK_MB)";

  /** @param requestedBytes the bytes asked for, or -1 when unknown (an Arrow allocation failed) */
  public TaskMemoryExceededException(String operator, long requestedBytes, long budgetBytes,
      Throwable cause) {
    this(operator, -1, requestedBytes, budgetBytes, cause);
  }

  /**
   * @param heldBytes the heap bytes the operator's state held when it asked, or -1 when unknown
   * @param requestedBytes the bytes asked for, or -1 when unknown (an Arrow allocation failed)
   */
  public TaskMemoryExceededException(String operator, long heldBytes, long requestedBytes, long budgetBytes,
      Throwable cause) {
    super(ErrorCode.INSUFFICIENT_RESOURCES, "task memory exceeded: operator " + operator
        + (heldBytes >= 0 ? " holding " + heldBytes + " bytes" : "")
        + (requestedBytes >= 0
            ? String.format(" requested %d more bytes over the task budget of %d bytes", requestedBytes, budgetBytes)
            : String.format(" could not allocate an Arrow buffer within the task budget of %d bytes", budgetBytes))
        + RAISE, cause);
    this.operator = operator;
  }

  /** The name of the operator whose allocation failed, e.g. {@code HashJoin#3}. */
  public String operator() {
    return operator;
  }
}

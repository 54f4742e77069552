package dev.squall.engine.spill;

import dev.squall.engine.EngineException;
import dev.squall.proto.v1.ErrorCode;

/**
 * An operator over its memory budget could not spill because the task's spill files would pass
 * the task's disk budget: memory and disk are both exhausted. INSUFFICIENT_RESOURCES; the message
 * names the operator, what it held and the settings to raise, never a path.
 */
public final class SpillDiskExceededException extends EngineException {
  /**
   * @param operatorBytes bytes of the operator's spill files on disk
   * @param taskBytes bytes of all the task's spill files on disk
   */
  SpillDiskExceededException(String operator, long operatorBytes, long taskBytes, long budgetBytes) {
    super(ErrorCode.INSUFFICIENT_RESOURCES, String.format(
        "task memory and spill disk exhausted: operator %s could not spill more; the task's spill files hold %d bytes"
            + " (%d of them the operator's) of the disk budget of %d bytes; raise the spill disk budget (%s, squall"
            + " local --spill-disk-mb) or the task memory (SQUALL_TASK_MEMORY_MB, squall local --task-memory-mb)",
        operator, taskBytes, operatorBytes, budgetBytes, SpillSettings.DISK_BUDGET_SETTING));
  }
}

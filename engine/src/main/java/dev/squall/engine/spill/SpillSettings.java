package dev.squall.engine.spill;

import java.nio.file.Path;

/**
 * Where a task may spill operator state and how much of that disk it may use.
 *
 * @param directory the directory spill files go under (each task makes its own subdirectory); on
 *     Lambda a directory under {@code /tmp}
 * @param diskBudgetBytes the most bytes of spill files a task may hold at once; 0 turns spilling
 *     off, so that an operator over the memory budget fails as it would without a disk
 */
public record SpillSettings(Path directory, long diskBudgetBytes) {
  /** Spilling off: operators over their memory budget fail with INSUFFICIENT_RESOURCES. */
  public static final SpillSettings DISABLED = new SpillSettings(null, 0);

  /** The setting naming the spill directory (task function environment). */
  public static final String DIRECTORY_SETTING = "SQUALL_SPILL_DIR";

  /** The setting naming the disk budget in MiB (task function environment). */
  public static final String DISK_BUDGET_SETTING = "SQUALL_SPILL_DISK_MB";

  /** Whether operators may spill. */
  public boolean enabled() {
    return directory != null && diskBudgetBytes > 0;
  }
}

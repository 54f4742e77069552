package dev.squall.planner.stage;

/**
 * Task counts of stages from estimated sizes: {@code ceil(bytes / targetBytesPerTask)} for stages
 * that read exchanges, {@code ceil(dataFileBytes / targetSplitSize)} for leaf stages (an estimate;
 * scan planning gives the real count), always within {@code [1, maxTasks]}.
 */
public record TaskCountEstimator(long targetBytesPerTask, long targetSplitSizeBytes, int maxTasks) {

  /** Tasks for a stage whose inputs hold {@code bytes} estimated bytes. */
  public int forBytes(double bytes) {
    return clamp(Math.ceil(bytes / targetBytesPerTask));
  }

  /** Estimated tasks for a leaf stage that reads {@code fileBytes} bytes of data files. */
  public int forScan(double fileBytes) {
    return clamp(Math.ceil(fileBytes / targetSplitSizeBytes));
  }

  private int clamp(double tasks) {
    if (Double.isNaN(tasks) || tasks < 1) {
      return 1;
    }
    return (int) Math.min(maxTasks, tasks);
  }
}

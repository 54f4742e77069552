package dev.squall.engine.scan;

/**
 * What a scan's row-group choice did, summed over its splits (one scan operator's; updated by the
 * thread that opens a split, read once the scan has ended).
 */
public final class ScanCounters {
  private long rowGroups;
  private long rowGroupsRead;
  private long runtimeSkipped;
  private long runtimeBytesSkipped;

  synchronized void counted(long groups, long read, long skippedByRuntime, long bytesSkippedByRuntime) {
    rowGroups += groups;
    rowGroupsRead += read;
    runtimeSkipped += skippedByRuntime;
    runtimeBytesSkipped += bytesSkippedByRuntime;
  }

  /** Row groups of the splits (by midpoint). */
  public synchronized long rowGroups() {
    return rowGroups;
  }

  public synchronized long rowGroupsRead() {
    return rowGroupsRead;
  }

  /** Row groups the pushed filter would have read but a runtime filter skipped. */
  public synchronized long runtimeSkipped() {
    return runtimeSkipped;
  }

  /** Compressed bytes of those row groups. */
  public synchronized long runtimeBytesSkipped() {
    return runtimeBytesSkipped;
  }
}

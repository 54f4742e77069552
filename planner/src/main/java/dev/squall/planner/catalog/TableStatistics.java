package dev.squall.planner.catalog;

import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;

/**
 * Size of a table's current snapshot, from the Iceberg snapshot summary
 * ({@code total-records}, {@code total-files-size}, {@code total-data-files}).
 *
 * @param rowCount records in live data files (delete files not subtracted)
 * @param fileBytes bytes of live data files on storage (compressed Parquet)
 * @param dataFiles number of live data files
 * @param snapshotId the snapshot these figures describe, 0 for a table without snapshots
 */
public record TableStatistics(long rowCount, long fileBytes, long dataFiles, long snapshotId) {
  /** Statistics of an empty table (no snapshot yet). */
  public static final TableStatistics EMPTY = new TableStatistics(0, 0, 0, 0);

  /** Reads the summary of a snapshot; a missing figure counts as 0. */
  public static TableStatistics of(Snapshot snapshot) {
    if (snapshot == null) {
      return EMPTY;
    }
    Map<String, String> summary = snapshot.summary() == null ? Map.of() : snapshot.summary();
    return new TableStatistics(
        number(summary, SnapshotSummary.TOTAL_RECORDS_PROP),
        number(summary, SnapshotSummary.TOTAL_FILE_SIZE_PROP),
        number(summary, SnapshotSummary.TOTAL_DATA_FILES_PROP),
        snapshot.snapshotId());
  }

  private static long number(Map<String, String> summary, String key) {
    String value = summary.get(key);
    if (value == null) {
      return 0;
    }
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}

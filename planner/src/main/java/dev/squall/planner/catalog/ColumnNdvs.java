package dev.squall.planner.catalog;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.BlobMetadata;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.puffin.StandardBlobTypes;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * The distinct values of a snapshot's columns from its Puffin statistics file (written by
 * {@code ANALYZE}, or by Trino or Spark): for each {@code apache-datasketches-theta-v1} blob over
 * one field, the {@value #NDV_PROPERTY} property of its metadata in the table metadata. The file is
 * the snapshot's own or, when it has none, that of its nearest ancestor that has one (as Trino reads
 * them): a table analyzed once keeps its figures across later commits, which changed the data only
 * in part (callers cap a figure at the snapshot's row count). The Puffin file is not opened: the figures are in the table metadata already loaded, so nothing is
 * cached (a statistics commit changes them without a new snapshot).
 */
public final class ColumnNdvs {
  /** The blob property holding the sketch's estimate (Iceberg's spec: a decimal integer). */
  public static final String NDV_PROPERTY = "ndv";

  private static final ColumnNdvs NONE = new ColumnNdvs(Map.of());

  private final Map<Integer, Long> byFieldId;

  private ColumnNdvs(Map<Integer, Long> byFieldId) {
    this.byFieldId = byFieldId;
  }

  /** The distinct values of a column by Iceberg field id, or null when the snapshot has none. */
  public Long ndv(int fieldId) {
    return byFieldId.get(fieldId);
  }

  /** True when no column has a figure. */
  public boolean isEmpty() {
    return byFieldId.isEmpty();
  }

  /**
   * The figures of one snapshot of a table (its own statistics file or its nearest ancestor's); none
   * for a null snapshot.
   */
  public static ColumnNdvs of(Table table, Snapshot snapshot) {
    if (snapshot == null) {
      return NONE;
    }
    List<StatisticsFile> files = table.statisticsFiles();
    if (files.isEmpty()) {
      return NONE;
    }
    Map<Long, StatisticsFile> bySnapshot = new HashMap<>();
    files.forEach(f -> bySnapshot.put(f.snapshotId(), f));
    // Ancestors whose snapshots were expired end the walk (their parents are no longer known).
    for (Snapshot s : SnapshotUtil.ancestorsOf(snapshot.snapshotId(), table::snapshot)) {
      StatisticsFile file = bySnapshot.get(s.snapshotId());
      if (file != null) {
        return read(file);
      }
    }
    return NONE;
  }

  private static ColumnNdvs read(StatisticsFile file) {
    Map<Integer, Long> ndvs = new HashMap<>();
    for (BlobMetadata blob : file.blobMetadata()) {
      if (!StandardBlobTypes.APACHE_DATASKETCHES_THETA_V1.equals(blob.type()) || blob.fields().size() != 1) {
        continue;
      }
      String ndv = blob.properties() == null ? null : blob.properties().get(NDV_PROPERTY);
      if (ndv == null) {
        continue;
      }
      try {
        long value = Long.parseLong(ndv.trim());
        if (value >= 0) {
          ndvs.put(blob.fields().get(0), value);
        }
      } catch (NumberFormatException e) {
        // A writer's malformed figure is no statistic; the manifests' bounds still apply.
      }
    }
    return ndvs.isEmpty() ? NONE : new ColumnNdvs(Map.copyOf(ndvs));
  }
}

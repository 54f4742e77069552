package dev.squall.planner.catalog;

import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.BlobMetadata;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.puffin.StandardBlobTypes;

/**
 * The distinct values of a snapshot's columns from its Puffin statistics file (written by
 * {@code ANALYZE}, or by Trino or Spark): for each {@code apache-datasketches-theta-v1} blob over
 * one field, the {@value #NDV_PROPERTY} property of its metadata in the table metadata. Only the
 * statistics file of the snapshot itself counts (a later commit may have changed the data). The
 * Puffin file is not opened: the figures are in the table metadata already loaded, so nothing is
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

  /** The figures of one snapshot of a table; none for a null snapshot. */
  public static ColumnNdvs of(Table table, Snapshot snapshot) {
    if (snapshot == null) {
      return NONE;
    }
    return read(table, snapshot.snapshotId());
  }

  private static ColumnNdvs read(Table table, long snapshotId) {
    Map<Integer, Long> ndvs = new HashMap<>();
    for (StatisticsFile file : table.statisticsFiles()) {
      if (file.snapshotId() != snapshotId) {
        continue;
      }
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
    }
    return ndvs.isEmpty() ? NONE : new ColumnNdvs(Map.copyOf(ndvs));
  }
}

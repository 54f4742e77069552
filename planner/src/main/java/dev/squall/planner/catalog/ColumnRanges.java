package dev.squall.planner.catalog;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.RuntimeIOException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The value range of each integral column (INT, BIGINT, DATE) of one snapshot, from the lower and
 * upper bounds Iceberg keeps per data file in its manifests: the smallest lower bound and the
 * largest upper bound over the live data files. The planner reads it as an upper bound on a
 * column's distinct values ({@code upper - lower + 1}), which is what separates a join on a
 * low-cardinality key (TPC-H's 25 nation keys) from a key/foreign-key join when no NDV sketch
 * exists.
 *
 * <p>A column is left out when any live data file lacks its bounds (metrics mode {@code none} or
 * {@code counts}, or a file written without statistics): a partial range would understate the
 * domain. Reading the ranges plans the snapshot's files once (manifests only, no data files);
 * results are cached per table location and snapshot id, since a snapshot never changes.
 */
public final class ColumnRanges {
  /**
   * A closed range of a column's values as longs (a DATE as days since 1970-01-01), and the mean
   * over the data files of the share of it that one file's bounds cover: near 1 when every file
   * holds values from all over the range, small when the files are clustered on the column (so
   * that a filter on it can skip most files by their bounds).
   */
  public record Range(long lower, long upper, double meanFileShare) {
    public Range(long lower, long upper) {
      this(lower, upper, 1.0);
    }

    /** Values the range can hold, at least 1; saturates at {@code Long.MAX_VALUE}. */
    public double width() {
      return Math.max(1.0, (double) upper - (double) lower + 1.0);
    }
  }

  private static final int CACHED_SNAPSHOTS = 256;
  private static final Map<String, ColumnRanges> CACHE = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, ColumnRanges> eldest) {
      return size() > CACHED_SNAPSHOTS;
    }
  };

  private static final ColumnRanges NONE = new ColumnRanges(Map.of());

  private final Map<Integer, Range> byFieldId;

  private ColumnRanges(Map<Integer, Range> byFieldId) {
    this.byFieldId = byFieldId;
  }

  /** The range of a column by Iceberg field id, or null when unknown or not integral. */
  public Range range(int fieldId) {
    return byFieldId.get(fieldId);
  }

  /**
   * The ranges of a table's current snapshot (cached per snapshot).
   *
   * @throws RuntimeIOException when a manifest cannot be read
   */
  public static ColumnRanges of(Table table) {
    Snapshot snapshot = table.currentSnapshot();
    if (snapshot == null) {
      return NONE;
    }
    String key = table.location() + "#" + snapshot.snapshotId();
    synchronized (CACHE) {
      ColumnRanges cached = CACHE.get(key);
      if (cached != null) {
        return cached;
      }
    }
    ColumnRanges ranges = read(table, snapshot);
    synchronized (CACHE) {
      CACHE.put(key, ranges);
    }
    return ranges;
  }

  private static ColumnRanges read(Table table, Snapshot snapshot) {
    Map<Integer, Type> integral = new HashMap<>();
    for (Types.NestedField field : table.schemas().get(snapshot.schemaId() == null
        ? table.schema().schemaId() : snapshot.schemaId()).columns()) {
      Type.TypeID id = field.type().typeId();
      if (id == Type.TypeID.INTEGER || id == Type.TypeID.LONG || id == Type.TypeID.DATE) {
        integral.put(field.fieldId(), field.type());
      }
    }
    if (integral.isEmpty()) {
      return NONE;
    }
    Map<Integer, long[]> bounds = new HashMap<>();
    // Per column: the sum of the files' bound widths, and the number of files.
    Map<Integer, double[]> fileWidths = new HashMap<>();
    Map<Integer, Boolean> complete = new HashMap<>();
    integral.keySet().forEach(id -> complete.put(id, true));
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(snapshot.snapshotId()).includeColumnStats().planFiles()) {
      for (FileScanTask task : tasks) {
        DataFile file = task.file();
        for (Map.Entry<Integer, Type> column : integral.entrySet()) {
          int id = column.getKey();
          if (!complete.get(id)) {
            continue;
          }
          Long lower = bound(file.lowerBounds(), id, column.getValue());
          Long upper = bound(file.upperBounds(), id, column.getValue());
          if (lower == null || upper == null) {
            if (!allNull(file, id)) {
              complete.put(id, false);
            }
            continue;
          }
          long[] range = bounds.computeIfAbsent(id, k -> new long[] {Long.MAX_VALUE, Long.MIN_VALUE});
          range[0] = Math.min(range[0], lower);
          range[1] = Math.max(range[1], upper);
          double[] widths = fileWidths.computeIfAbsent(id, k -> new double[2]);
          widths[0] += (double) upper - (double) lower + 1.0;
          widths[1]++;
        }
      }
    } catch (IOException e) {
      throw new RuntimeIOException(e);
    }
    Map<Integer, Range> ranges = new HashMap<>();
    bounds.forEach((id, range) -> {
      if (complete.get(id) && range[0] <= range[1]) {
        double width = Math.max(1.0, (double) range[1] - (double) range[0] + 1.0);
        // A file's bounds lie within the range: its share is its width over the range's.
        double[] widths = fileWidths.get(id);
        double share = Math.min(1.0, widths[0] / widths[1] / width);
        ranges.put(id, new Range(range[0], range[1], share));
      }
    });
    return new ColumnRanges(Map.copyOf(ranges));
  }

  /** True when the file's metrics say every value of the column is null. */
  private static boolean allNull(DataFile file, int id) {
    Map<Integer, Long> nulls = file.nullValueCounts();
    Map<Integer, Long> values = file.valueCounts();
    if (nulls == null || values == null) {
      return false;
    }
    Long n = nulls.get(id);
    Long v = values.get(id);
    return n != null && v != null && n.longValue() == v.longValue();
  }

  private static Long bound(Map<Integer, ByteBuffer> bounds, int id, Type type) {
    if (bounds == null) {
      return null;
    }
    ByteBuffer buffer = bounds.get(id);
    if (buffer == null) {
      return null;
    }
    Object value = Conversions.fromByteBuffer(type, buffer);
    return value instanceof Number number ? number.longValue() : null;
  }
}

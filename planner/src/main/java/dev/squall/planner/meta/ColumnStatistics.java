package dev.squall.planner.meta;

import dev.squall.planner.catalog.ColumnNdvs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * {@code SHOW STATS FOR t}, from Iceberg metadata alone, with Trino's columns: one row per
 * top-level column ({@code column_name}, {@code data_size} = the column's bytes in the data files,
 * {@code distinct_values_count} from a Puffin theta sketch's {@code ndv} property when the snapshot
 * has one ({@link ColumnNdvs}), {@code nulls_fraction} from the data files' null counts, {@code low_value} and
 * {@code high_value} from their lower and upper bounds for numbers, dates and timestamps), then a
 * row with a NULL column name and the snapshot's {@code row_count}. Row-level deletes are not
 * subtracted, as in Trino. A figure the metadata lacks is NULL.
 */
public final class ColumnStatistics {
  private ColumnStatistics() {}

  /** The answer's columns. */
  static final List<MetadataRelation.Column> COLUMNS = List.of(
      MetadataRelation.varchar("column_name"),
      new MetadataRelation.Column("data_size", SqlTypeName.DOUBLE),
      new MetadataRelation.Column("distinct_values_count", SqlTypeName.DOUBLE),
      new MetadataRelation.Column("nulls_fraction", SqlTypeName.DOUBLE),
      new MetadataRelation.Column("row_count", SqlTypeName.DOUBLE),
      MetadataRelation.varchar("low_value"),
      MetadataRelation.varchar("high_value"));

  /** Statistics of {@code snapshot} of {@code table} (null: an empty table) under {@code schema}. */
  public static MetadataRelation of(Table table, Snapshot snapshot, Schema schema) {
    List<Types.NestedField> columns = schema.columns();
    long rows = 0;
    Map<Integer, Long> sizes = new HashMap<>();
    Map<Integer, Long> nulls = new HashMap<>();
    Map<Integer, Object> lows = new HashMap<>();
    Map<Integer, Object> highs = new HashMap<>();
    Map<Integer, Boolean> complete = new HashMap<>();
    if (snapshot != null) {
      try (CloseableIterable<FileScanTask> files = table.newScan().useSnapshot(snapshot.snapshotId())
          .includeColumnStats().planFiles()) {
        for (FileScanTask task : files) {
          DataFile file = task.file();
          rows += file.recordCount();
          for (Types.NestedField f : columns) {
            int id = f.fieldId();
            add(sizes, id, file.columnSizes());
            if (file.nullValueCounts() == null || !file.nullValueCounts().containsKey(id)) {
              complete.put(id, false);
            } else {
              nulls.merge(id, file.nullValueCounts().get(id), Long::sum);
            }
            if (f.type().isPrimitiveType()) {
              bound(lows, id, f.type(), file.lowerBounds(), -1);
              bound(highs, id, f.type(), file.upperBounds(), 1);
            }
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("reading the data files of " + table.name() + " failed", e);
      }
    }
    ColumnNdvs ndvs = ColumnNdvs.of(table, snapshot);
    List<List<Object>> out = new ArrayList<>();
    for (Types.NestedField f : columns) {
      int id = f.fieldId();
      List<Object> row = new ArrayList<>();
      row.add(f.name());
      row.add(sizes.containsKey(id) ? sizes.get(id).doubleValue() : null);
      Long ndv = ndvs.ndv(id);
      row.add(ndv == null ? null : ndv.doubleValue());
      row.add(nullsFraction(rows, nulls.get(id), complete.getOrDefault(id, true)));
      row.add(null);
      row.add(render(f.type(), lows.get(id)));
      row.add(render(f.type(), highs.get(id)));
      out.add(row);
    }
    List<Object> total = new ArrayList<>();
    total.add(null);
    total.add(null);
    total.add(null);
    total.add(null);
    total.add((double) rows);
    total.add(null);
    total.add(null);
    out.add(total);
    return new MetadataRelation(COLUMNS, out);
  }

  private static Double nullsFraction(long rows, Long nulls, boolean complete) {
    if (rows == 0) {
      return 0.0;
    }
    return nulls != null && complete ? nulls / (double) rows : null;
  }

  private static void add(Map<Integer, Long> into, int id, Map<Integer, Long> figures) {
    if (figures != null && figures.containsKey(id)) {
      into.merge(id, figures.get(id), Long::sum);
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static void bound(Map<Integer, Object> into, int id, Type type, Map<Integer, ByteBuffer> bounds, int sign) {
    if (bounds == null || !bounds.containsKey(id)) {
      return;
    }
    Object value = Conversions.fromByteBuffer(type, bounds.get(id));
    Object current = into.get(id);
    java.util.Comparator cmp = Comparators.forType(type.asPrimitiveType());
    if (current == null || sign * cmp.compare(value, current) > 0) {
      into.put(id, value);
    }
  }

  /** Bounds of numbers, dates and timestamps as text; other types have none (string bounds may be truncated). */
  private static String render(Type type, Object value) {
    if (value == null) {
      return null;
    }
    return switch (type.typeId()) {
      case INTEGER, LONG, FLOAT, DOUBLE, BOOLEAN -> value.toString();
      case DECIMAL -> ((BigDecimal) value).toPlainString();
      case DATE -> LocalDate.ofEpochDay((Integer) value).toString();
      case TIMESTAMP -> {
        long micros = (Long) value;
        yield LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
            (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC).toString().replace('T', ' ');
      }
      default -> null;
    };
  }
}

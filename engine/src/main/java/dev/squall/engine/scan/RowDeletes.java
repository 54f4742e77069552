package dev.squall.engine.scan;

import dev.squall.engine.column.BoolColumn;
import dev.squall.engine.column.BytesColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.column.DoubleColumn;
import dev.squall.engine.column.LongColumn;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.DeleteLoader;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.StructLikeSet;

/**
 * The row-level deletes of one data file, loaded with Iceberg's own {@link BaseDeleteLoader}:
 * position delete files and deletion vectors (format v3, Puffin) become one
 * {@link PositionDeleteIndex} of deleted row positions; equality delete files become one
 * {@link StructLikeSet} per set of equality field ids. A row is deleted when its position is in the
 * index or its values of some set's fields are in that set (Iceberg's {@code DeleteFilter} rules;
 * which delete files apply to the data file was decided by scan planning).
 */
final class RowDeletes {
  private final PositionDeleteIndex positions;
  private final List<EqualityDeletes> equality;

  /** Deleted values of one set of equality fields, and where those fields are among the read columns. */
  private record EqualityDeletes(StructLikeSet set, int[] columns, Type[] types) {}

  private RowDeletes(PositionDeleteIndex positions, List<EqualityDeletes> equality) {
    this.positions = positions;
    this.equality = equality;
  }

  /** The field ids the equality deletes of a task compare (they must be read even if not projected). */
  static Set<Integer> equalityFieldIds(FileScanTask task) {
    Set<Integer> ids = new TreeSet<>();
    for (DeleteFile d : deletes(task)) {
      if (d.content() == FileContent.EQUALITY_DELETES) {
        ids.addAll(d.equalityFieldIds());
      }
    }
    return ids;
  }

  private static List<DeleteFile> deletes(FileScanTask task) {
    return task.deletes() == null ? List.of() : task.deletes();
  }

  /**
   * Loads the deletes of a task, or returns null when it has none.
   *
   * @param readIds the field ids of the columns the scan reads, in read order
   */
  static RowDeletes load(FileScanTask task, Schema tableSchema, List<Integer> readIds, FileIO io) {
    List<DeleteFile> all = deletes(task);
    if (all.isEmpty()) {
      return null;
    }
    // No worker pool: delete files are read on the task's own thread.
    DeleteLoader loader = new BaseDeleteLoader(d -> io.newInputFile(d.location(), d.fileSizeInBytes()), null);
    List<DeleteFile> positionFiles = new ArrayList<>();
    Map<List<Integer>, List<DeleteFile>> byFields = new LinkedHashMap<>();
    for (DeleteFile d : all) {
      if (d.content() == FileContent.POSITION_DELETES) {
        positionFiles.add(d);
      } else if (d.content() == FileContent.EQUALITY_DELETES) {
        byFields.computeIfAbsent(List.copyOf(new TreeSet<>(d.equalityFieldIds())), k -> new ArrayList<>()).add(d);
      }
    }
    PositionDeleteIndex positions = positionFiles.isEmpty()
        ? null : loader.loadPositionDeletes(positionFiles, task.file().location());
    List<EqualityDeletes> equality = new ArrayList<>();
    for (Map.Entry<List<Integer>, List<DeleteFile>> e : byFields.entrySet()) {
      Schema deleteSchema = TypeUtil.select(tableSchema, Set.copyOf(e.getKey()));
      List<Types.NestedField> fields = deleteSchema.columns();
      int[] columns = new int[fields.size()];
      Type[] types = new Type[fields.size()];
      for (int i = 0; i < fields.size(); i++) {
        columns[i] = readIds.indexOf(fields.get(i).fieldId());
        types[i] = fields.get(i).type();
        if (columns[i] < 0) {
          throw new IllegalStateException("equality delete field " + fields.get(i).name() + " is not read");
        }
      }
      equality.add(new EqualityDeletes(loader.loadEqualityDeletes(e.getValue(), deleteSchema), columns, types));
    }
    return new RowDeletes(positions == null || positions.isEmpty() ? null : positions, equality);
  }

  /**
   * The rows of a batch that are not deleted, in order, into {@code keep}.
   *
   * @param cols the batch's read columns
   * @param firstPositions per row, its position in the data file
   * @return how many rows are kept
   */
  int live(Column[] cols, long[] filePositions, int rows, int[] keep) {
    int k = 0;
    RowView[] views = new RowView[equality.size()];
    for (int g = 0; g < views.length; g++) {
      EqualityDeletes e = equality.get(g);
      views[g] = new RowView(cols, e.columns(), e.types());
    }
    for (int r = 0; r < rows; r++) {
      if (positions != null && positions.isDeleted(filePositions[r])) {
        continue;
      }
      boolean deleted = false;
      for (int g = 0; g < views.length && !deleted; g++) {
        views[g].row = r;
        deleted = equality.get(g).set().contains(views[g]);
      }
      if (!deleted) {
        keep[k++] = r;
      }
    }
    return k;
  }

  /** Whether row positions are needed (there are position deletes). */
  boolean needsPositions() {
    return positions != null;
  }

  /**
   * One row of a batch as an Iceberg {@link StructLike} of the equality fields, with values in
   * Iceberg's internal representation (what {@code InternalRecordWrapper} gives the delete rows):
   * Integer for INTEGER and DATE, Long for LONG and TIMESTAMP micros, BigDecimal, CharSequence,
   * ByteBuffer for BINARY and FIXED, UUID.
   */
  private static final class RowView implements StructLike {
    private final Column[] cols;
    private final int[] columns;
    private final Type[] types;
    int row;

    RowView(Column[] cols, int[] columns, Type[] types) {
      this.cols = cols;
      this.columns = columns;
      this.types = types;
    }

    @Override
    public int size() {
      return columns.length;
    }

    @Override
    public <T> T get(int pos, Class<T> javaClass) {
      Column c = cols[columns[pos]];
      if (c.isNull(row)) {
        return null;
      }
      Object v = switch (types[pos].typeId()) {
        case INTEGER, DATE -> (int) ((LongColumn) c).value(row);
        case LONG, TIMESTAMP -> ((LongColumn) c).value(row);
        case FLOAT -> (float) ((DoubleColumn) c).value(row);
        case DOUBLE -> ((DoubleColumn) c).value(row);
        case BOOLEAN -> ((BoolColumn) c).values()[row];
        case DECIMAL -> ((DecimalColumn) c).decimal(row);
        case STRING -> ((BytesColumn) c).string(row);
        case UUID -> java.util.UUID.fromString(((BytesColumn) c).string(row));
        case BINARY, FIXED -> ByteBuffer.wrap(((BytesColumn) c).value(row));
        default -> throw ParquetScanException.unsupported("equality deletes on a column of type " + types[pos]);
      };
      return javaClass.cast(v);
    }

    @Override
    public <T> void set(int pos, T value) {
      throw new UnsupportedOperationException("a batch row is read-only");
    }
  }
}

package dev.squall.task.write;

import dev.squall.engine.column.BoolColumn;
import dev.squall.engine.column.BytesColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.column.DoubleColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.proto.v1.DataType;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * One row of a conformed batch (see {@link BatchConformer}) seen as an Iceberg {@link StructLike}
 * in Iceberg's internal value representation, for {@link org.apache.iceberg.PartitionKey}: Integer
 * or Long, Float or Double, BigDecimal, String (as CharSequence), ByteBuffer, Boolean, Integer days
 * for date and Long microseconds for timestamp. Only the fields asked for are read, so a partition
 * key reads just its source columns. Reused: {@link #at} moves it to another row.
 */
final class ColumnsRow implements StructLike {
  private final Type.TypeID[] types;
  private Column[] columns;
  private int row;

  ColumnsRow(List<Types.NestedField> fields) {
    this.types = fields.stream().map(f -> f.type().typeId()).toArray(Type.TypeID[]::new);
  }

  /** Points at row {@code row} of {@code columns}. */
  ColumnsRow at(Column[] columns, int row) {
    this.columns = columns;
    this.row = row;
    return this;
  }

  @Override
  public int size() {
    return types.length;
  }

  @Override
  public <T> T get(int pos, Class<T> javaClass) {
    return javaClass.cast(value(pos));
  }

  @Override
  public <T> void set(int pos, T value) {
    throw new UnsupportedOperationException("a batch row is read-only");
  }

  private Object value(int pos) {
    Column c = columns[pos];
    if (c.isNull(row) || c.type().kind() == DataType.Kind.NULL_TYPE) {
      return null;
    }
    return switch (types[pos]) {
      case INTEGER, DATE -> (int) ((LongColumn) c).value(row);
      case LONG, TIMESTAMP -> ((LongColumn) c).value(row);
      case FLOAT -> (float) ((DoubleColumn) c).value(row);
      case DOUBLE -> ((DoubleColumn) c).value(row);
      case BOOLEAN -> ((BoolColumn) c).isTrue(row);
      case DECIMAL -> ((DecimalColumn) c).decimal(row);
      case STRING -> ((BytesColumn) c).string(row);
      case BINARY -> ByteBuffer.wrap(((BytesColumn) c).value(row));
      default -> throw new IllegalStateException("column " + pos + " of type " + types[pos] + " cannot be a partition source");
    };
  }
}

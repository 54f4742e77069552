package dev.squall.task.write;

import dev.squall.engine.EngineException;
import dev.squall.proto.v1.ErrorCode;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;

/**
 * Turns the rows of an engine batch into Iceberg generic records of the table schema, row by row.
 * Column {@code i} of the batch is the table schema's top-level field {@code i}.
 *
 * <p>Values take the Java types Iceberg's generic writers expect: long, int (narrowed with a range
 * check), float, double, BigDecimal at the Iceberg decimal's scale, String, boolean, ByteBuffer,
 * LocalDate for dates, LocalDateTime for {@code timestamp} and OffsetDateTime (UTC) for
 * {@code timestamptz}; engine timestamps are microseconds since the epoch without a zone.
 *
 * <p>Cost: one boxed value per cell and a record per row, then Iceberg's row-wise Parquet
 * writer; the whole path runs about 13 times slower than DuckDB's Parquet writer
 * (docs/writes.md, WriterBenchmark). Chosen because it keeps field ids, metrics and partitioning
 * in Iceberg's hands.
 */
final class ArrowRecordConverter {
  private final Schema schema;
  private final List<Types.NestedField> fields;

  /**
   * @throws EngineException INTERNAL_ERROR when the table has a nested column (not written)
   */
  ArrowRecordConverter(Schema schema) {
    this.schema = schema;
    this.fields = schema.columns();
    for (Types.NestedField f : fields) {
      if (!f.type().isPrimitiveType()) {
        throw new EngineException(ErrorCode.INTERNAL_ERROR,
            "column " + f.name() + " has nested type " + f.type() + "; writer tasks write primitive columns only");
      }
    }
  }

  /**
   * Checks that the batch has one column per table column.
   *
   * @throws EngineException INTERNAL_ERROR when the counts differ (a plan error)
   */
  void checkShape(VectorSchemaRoot batch) {
    if (batch.getFieldVectors().size() != fields.size()) {
      throw new EngineException(ErrorCode.INTERNAL_ERROR, "the fragment's batches have "
          + batch.getFieldVectors().size() + " columns for the table's " + fields.size() + " columns " + schema.asStruct());
    }
  }

  /** A new empty record of the table schema, to be filled by {@link #fill}. */
  GenericRecord newRecord() {
    return GenericRecord.create(schema);
  }

  /**
   * Sets every field of {@code record} from row {@code row} of {@code batch}.
   *
   * @throws EngineException USER_ERROR for a NULL in a required column or a value that does not fit
   *     the column's type; INTERNAL_ERROR for an Arrow type that cannot be written to the column
   */
  void fill(VectorSchemaRoot batch, int row, GenericRecord record) {
    for (int c = 0; c < fields.size(); c++) {
      FieldVector vector = batch.getVector(c);
      Types.NestedField field = fields.get(c);
      if (vector.isNull(row)) {
        if (field.isRequired()) {
          throw EngineException.user("NULL value in column " + field.name() + ", which is required (NOT NULL)");
        }
        record.set(c, null);
      } else {
        record.set(c, value(vector, row, field));
      }
    }
  }

  private static Object value(FieldVector v, int row, Types.NestedField field) {
    Type type = field.type();
    switch (type.typeId()) {
      case LONG:
        return integral(v, row, field);
      case INTEGER: {
        long x = integral(v, row, field);
        if (x < Integer.MIN_VALUE || x > Integer.MAX_VALUE) {
          throw EngineException.user("value " + x + " is out of range for int column " + field.name());
        }
        return (int) x;
      }
      case FLOAT:
        if (v instanceof Float4Vector f) {
          return f.get(row);
        }
        break;
      case DOUBLE:
        if (v instanceof Float8Vector d) {
          return d.get(row);
        } else if (v instanceof Float4Vector f) {
          return (double) f.get(row);
        }
        break;
      case DECIMAL:
        if (v instanceof DecimalVector d) {
          return decimal(d.getObject(row), (Types.DecimalType) type, field);
        }
        break;
      case STRING:
        if (v instanceof VarCharVector s) {
          return new String(s.get(row), StandardCharsets.UTF_8);
        }
        break;
      case BINARY:
        if (v instanceof VarBinaryVector b) {
          return ByteBuffer.wrap(b.get(row));
        }
        break;
      case BOOLEAN:
        if (v instanceof BitVector b) {
          return b.get(row) != 0;
        }
        break;
      case DATE:
        if (v instanceof DateDayVector d) {
          return DateTimeUtil.dateFromDays(d.get(row));
        }
        break;
      case TIMESTAMP:
        if (v instanceof TimeStampVector t && micros(t)) {
          long micros = t.get(row);
          return ((Types.TimestampType) type).shouldAdjustToUTC()
              ? DateTimeUtil.timestamptzFromMicros(micros)
              : DateTimeUtil.timestampFromMicros(micros);
        }
        break;
      default:
        break;
    }
    throw cannotWrite(v, field);
  }

  private static long integral(FieldVector v, int row, Types.NestedField field) {
    if (v instanceof BigIntVector b) {
      return b.get(row);
    } else if (v instanceof IntVector i) {
      return i.get(row);
    } else if (v instanceof SmallIntVector s) {
      return s.get(row);
    } else if (v instanceof TinyIntVector t) {
      return t.get(row);
    }
    throw cannotWrite(v, field);
  }

  private static BigDecimal decimal(BigDecimal value, Types.DecimalType type, Types.NestedField field) {
    BigDecimal scaled;
    try {
      scaled = value.setScale(type.scale(), RoundingMode.UNNECESSARY);
    } catch (ArithmeticException e) {
      throw EngineException.user("value " + value + " has more than " + type.scale()
          + " fraction digits for column " + field.name() + " " + type);
    }
    if (scaled.precision() > type.precision()) {
      throw EngineException.user("value " + value + " does not fit column " + field.name() + " " + type);
    }
    return scaled;
  }

  private static boolean micros(TimeStampVector t) {
    return t.getField().getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.Timestamp ts
        && ts.getUnit() == org.apache.arrow.vector.types.TimeUnit.MICROSECOND;
  }

  private static EngineException cannotWrite(FieldVector v, Types.NestedField field) {
    String arrow = v instanceof NullVector ? "Null" : v.getField().getType().toString();
    return new EngineException(ErrorCode.INTERNAL_ERROR,
        "column " + field.name() + ": Arrow type " + arrow + " cannot be written to Iceberg type " + field.type());
  }
}

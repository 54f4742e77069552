package dev.squall.task.write;

import dev.squall.engine.column.BoolColumn;
import dev.squall.engine.column.BytesColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.column.DoubleColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.proto.v1.DataType;
import java.math.BigInteger;
import java.util.stream.Stream;
import org.apache.iceberg.DoubleFieldMetrics;
import org.apache.iceberg.FieldMetrics;
import org.apache.iceberg.FloatFieldMetrics;
import org.apache.iceberg.parquet.TypeToMessageType;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.io.api.Binary;

/**
 * Hands the values of one engine column to parquet-mr's {@link ColumnWriter} of the matching
 * Parquet column, a run of rows at a time (no per-row objects). Physical types follow Iceberg's
 * schema conversion ({@code TypeToMessageType}): int and date as INT32, long and timestamp as INT64
 * (micros), float, double, boolean, string and binary as BINARY, decimals as INT32 up to 9 digits,
 * INT64 up to 18, beyond that FIXED_LEN_BYTE_ARRAY of the fewest bytes for the precision holding
 * the big-endian two's complement unscaled value.
 *
 * <p>Levels: a top-level column has repetition level 0; an optional column's definition level is 1
 * for a value and 0 for NULL, a required column's is always 0.
 *
 * <p>Float and double columns also count NaNs and keep NaN-free bounds with Iceberg's own
 * {@link FloatFieldMetrics} / {@link DoubleFieldMetrics}, as Iceberg's writers do, since Parquet's
 * statistics do not exclude NaN. One instance per column of one open file; columns must have passed
 * {@link BatchConformer}.
 */
abstract class ColumnChunkEncoder {
  final Types.NestedField field;
  final int definedLevel;
  ColumnWriter writer;

  ColumnChunkEncoder(Types.NestedField field) {
    this.field = field;
    this.definedLevel = field.isOptional() ? 1 : 0;
  }

  /** The encoder for a table column. */
  static ColumnChunkEncoder forField(Types.NestedField field) {
    return switch (field.type().typeId()) {
      case LONG, TIMESTAMP -> new Int64(field);
      case INTEGER, DATE -> new Int32(field);
      case FLOAT -> new Float32(field);
      case DOUBLE -> new Float64(field);
      case BOOLEAN -> new Bool(field);
      case STRING, BINARY -> new Bytes(field);
      case DECIMAL -> {
        int precision = ((Types.DecimalType) field.type()).precision();
        if (precision <= TypeToMessageType.DECIMAL_INT32_MAX_DIGITS) {
          yield new DecimalInt32(field);
        } else if (precision <= TypeToMessageType.DECIMAL_INT64_MAX_DIGITS) {
          yield new DecimalInt64(field);
        }
        yield new DecimalFixed(field, TypeUtil.decimalRequiredBytes(precision));
      }
      default -> throw new IllegalArgumentException("no Parquet encoding for column " + field.name() + " " + field.type());
    };
  }

  /** Sets the column writer of the current row group. */
  void startRowGroup(ColumnWriter columnWriter) {
    this.writer = columnWriter;
  }

  /**
   * Writes rows {@code rows[from .. from + n)} of {@code column} (or rows {@code from .. from + n)}
   * when {@code rows} is null).
   */
  final void write(Column column, int[] rows, int from, int n) {
    if (column.type().kind() == DataType.Kind.NULL_TYPE) {
      for (int k = 0; k < n; k++) {
        writer.writeNull(0, 0);
      }
      nulls(n);
      return;
    }
    writeValues(column, rows, from, n, column.nullMask());
  }

  abstract void writeValues(Column column, int[] rows, int from, int n, boolean[] nulls);

  /** Field metrics of values written so far, for the types whose Parquet statistics do not suffice. */
  Stream<FieldMetrics<?>> metrics() {
    return Stream.empty();
  }

  /** Counts NULLs of a NULL-typed column, for the encoders that keep their own metrics. */
  void nulls(int n) {
  }

  static int row(int[] rows, int k) {
    return rows == null ? k : rows[k];
  }

  private static final class Int64 extends ColumnChunkEncoder {
    Int64(Types.NestedField field) {
      super(field);
    }

    @Override
    void writeValues(Column column, int[] rows, int from, int n, boolean[] nulls) {
      long[] values = ((LongColumn) column).values();
      for (int k = from, end = from + n; k < end; k++) {
        int r = row(rows, k);
        if (nulls != null && nulls[r]) {
          writer.writeNull(0, 0);
        } else {
          writer.write(values[r], 0, definedLevel);
        }
      }
    }
  }

  private static final class Int32 extends ColumnChunkEncoder {
    Int32(Types.NestedField field) {
      super(field);
    }

    @Override
    void writeValues(Column column, int[] rows, int from, int n, boolean[] nulls) {
      long[] values = ((LongColumn) column).values();
      for (int k = from, end = from + n; k < end; k++) {
        int r = row(rows, k);
        if (nulls != null && nulls[r]) {
          writer.writeNull(0, 0);
        } else {
          writer.write((int) values[r], 0, definedLevel);
        }
      }
    }
  }

  private static final class Float32 extends ColumnChunkEncoder {
    private final FloatFieldMetrics.Builder metrics;
    private long nullCount;

    Float32(Types.NestedField field) {
      super(field);
      this.metrics = new FloatFieldMetrics.Builder(field.fieldId());
    }

    @Override
    void writeValues(Column column, int[] rows, int from, int n, boolean[] nulls) {
      double[] values = ((DoubleColumn) column).values();
      for (int k = from, end = from + n; k < end; k++) {
        int r = row(rows, k);
        if (nulls != null && nulls[r]) {
          writer.writeNull(0, 0);
          nullCount++;
        } else {
          float v = (float) values[r];
          writer.write(v, 0, definedLevel);
          metrics.addValue(v);
        }
      }
    }

    @Override
    void nulls(int n) {
      nullCount += n;
    }

    @Override
    Stream<FieldMetrics<?>> metrics() {
      return Stream.of(withNulls(metrics.build(), nullCount));
    }
  }

  private static final class Float64 extends ColumnChunkEncoder {
    private final DoubleFieldMetrics.Builder metrics;
    private long nullCount;

    Float64(Types.NestedField field) {
      super(field);
      this.metrics = new DoubleFieldMetrics.Builder(field.fieldId());
    }

    @Override
    void writeValues(Column column, int[] rows, int from, int n, boolean[] nulls) {
      double[] values = ((DoubleColumn) column).values();
      for (int k = from, end = from + n; k < end; k++) {
        int r = row(rows, k);
        if (nulls != null && nulls[r]) {
          writer.writeNull(0, 0);
          nullCount++;
        } else {
          double v = values[r];
          writer.write(v, 0, definedLevel);
          metrics.addValue(v);
        }
      }
    }

    @Override
    void nulls(int n) {
      nullCount += n;
    }

    @Override
    Stream<FieldMetrics<?>> metrics() {
      return Stream.of(withNulls(metrics.build(), nullCount));
    }
  }

  /** Iceberg's NaN metrics of the non-null values, with the NULLs added to the counts (as its OptionWriter does). */
  private static FieldMetrics<?> withNulls(FieldMetrics<?> values, long nullCount) {
    return new FieldMetrics<>(values.id(), values.valueCount() + nullCount, nullCount, values.nanValueCount(),
        values.lowerBound(), values.upperBound(), values.originalType());
  }

  private static final class Bool extends ColumnChunkEncoder {
    Bool(Types.NestedField field) {
      super(field);
    }

    @Override
    void writeValues(Column column, int[] rows, int from, int n, boolean[] nulls) {
      boolean[] values = ((BoolColumn) column).values();
      for (int k = from, end = from + n; k < end; k++) {
        int r = row(rows, k);
        if (nulls != null && nulls[r]) {
          writer.writeNull(0, 0);
        } else {
          writer.write(values[r], 0, definedLevel);
        }
      }
    }
  }

  private static final class Bytes extends ColumnChunkEncoder {
    Bytes(Types.NestedField field) {
      super(field);
    }

    @Override
    void writeValues(Column column, int[] rows, int from, int n, boolean[] nulls) {
      BytesColumn bytes = (BytesColumn) column;
      byte[] data = bytes.data();
      int[] offsets = bytes.offsets();
      for (int k = from, end = from + n; k < end; k++) {
        int r = row(rows, k);
        if (nulls != null && nulls[r]) {
          writer.writeNull(0, 0);
        } else {
          // "Reused": parquet-mr copies the bytes where it keeps them (dictionary, statistics), so the
          // dictionary does not pin the batch's whole byte array.
          writer.write(Binary.fromReusedByteArray(data, offsets[r], offsets[r + 1] - offsets[r]), 0, definedLevel);
        }
      }
    }
  }

  private static final class DecimalInt32 extends ColumnChunkEncoder {
    DecimalInt32(Types.NestedField field) {
      super(field);
    }

    @Override
    void writeValues(Column column, int[] rows, int from, int n, boolean[] nulls) {
      long[] values = ((DecimalColumn) column).unscaledValues();
      for (int k = from, end = from + n; k < end; k++) {
        int r = row(rows, k);
        if (nulls != null && nulls[r]) {
          writer.writeNull(0, 0);
        } else {
          writer.write((int) values[r], 0, definedLevel);
        }
      }
    }
  }

  private static final class DecimalInt64 extends ColumnChunkEncoder {
    DecimalInt64(Types.NestedField field) {
      super(field);
    }

    @Override
    void writeValues(Column column, int[] rows, int from, int n, boolean[] nulls) {
      long[] values = ((DecimalColumn) column).unscaledValues();
      for (int k = from, end = from + n; k < end; k++) {
        int r = row(rows, k);
        if (nulls != null && nulls[r]) {
          writer.writeNull(0, 0);
        } else {
          writer.write(values[r], 0, definedLevel);
        }
      }
    }
  }

  private static final class DecimalFixed extends ColumnChunkEncoder {
    private final byte[] buffer;

    DecimalFixed(Types.NestedField field, int length) {
      super(field);
      this.buffer = new byte[length];
    }

    @Override
    void writeValues(Column column, int[] rows, int from, int n, boolean[] nulls) {
      DecimalColumn decimal = (DecimalColumn) column;
      long[] values = decimal.unscaledValues();
      boolean wide = decimal.hasBig();
      for (int k = from, end = from + n; k < end; k++) {
        int r = row(rows, k);
        if (nulls != null && nulls[r]) {
          writer.writeNull(0, 0);
          continue;
        }
        if (wide && decimal.isBig(r)) {
          fill(decimal.unscaledBig(r));
        } else {
          fill(values[r]);
        }
        writer.write(Binary.fromReusedByteArray(buffer), 0, definedLevel);
      }
    }

    /** Big-endian two's complement of a long, sign-extended to the buffer's length. */
    private void fill(long v) {
      int len = buffer.length;
      for (int i = 0; i < len; i++) {
        int shift = 8 * (len - 1 - i);
        buffer[i] = (byte) (shift >= 64 ? v >> 63 : v >> shift);
      }
    }

    private void fill(BigInteger v) {
      byte[] be = v.toByteArray();
      int pad = buffer.length - be.length;
      byte sign = (byte) (v.signum() < 0 ? -1 : 0);
      for (int i = 0; i < pad; i++) {
        buffer[i] = sign;
      }
      System.arraycopy(be, 0, buffer, pad, be.length);
    }
  }
}

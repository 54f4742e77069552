package dev.squall.engine.scan;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.values.ValuesReader;

/**
 * INT32 and INT64 columns into {@code long}s: integers, DATE days, DECIMAL unscaled values of
 * precision up to 18, and TIMESTAMPs converted to microseconds from their file unit.
 */
final class LongChunkReader extends ColumnChunkReader {
  private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** How a file value becomes the engine's value. */
  enum Unit { SAME, MILLIS_TO_MICROS, NANOS_TO_MICROS }

  private final boolean int32;
  private final Unit unit;
  private long[] dictionary;

  LongChunkReader(ColumnDescriptor column, boolean int32, Unit unit) {
    super(column);
    this.int32 = int32;
    this.unit = unit;
  }

  @Override
  protected void readDictionary(byte[] bytes, int from, int to, int count) {
    int width = int32 ? 4 : 8;
    if (from + (long) count * width > to) {
      throw ParquetScanException.corrupt("dictionary page of " + name(column) + " is shorter than its " + count + " entries");
    }
    long[] d = new long[count];
    decodePlain(bytes, from, d, 0, count);
    convert(d, 0, count);
    dictionary = d;
  }

  @Override
  protected void decodeValues(ColumnBuffer out, int pos, int n) {
    int width = int32 ? 4 : 8;
    need((long) n * width);
    decodePlain(page, valuesPos, out.longs, pos, n);
    valuesPos += n * width;
    convert(out.longs, pos, n);
  }

  private void decodePlain(byte[] b, int at, long[] v, int pos, int n) {
    if (int32) {
      for (int i = 0; i < n; i++) {
        v[pos + i] = (int) INT.get(b, at + (i << 2));
      }
    } else {
      for (int i = 0; i < n; i++) {
        v[pos + i] = (long) LONG.get(b, at + (i << 3));
      }
    }
  }

  @Override
  protected void decodeDictionaryIds(ColumnBuffer out, int pos, int[] ids, int n) {
    long[] d = dictionary;
    long[] v = out.longs;
    for (int i = 0; i < n; i++) {
      v[pos + i] = d[ids[i]];
    }
  }

  @Override
  protected void decodeWith(ValuesReader reader, ColumnBuffer out, int pos, int n) {
    long[] v = out.longs;
    if (int32) {
      for (int i = 0; i < n; i++) {
        v[pos + i] = reader.readInteger();
      }
    } else {
      for (int i = 0; i < n; i++) {
        v[pos + i] = reader.readLong();
      }
    }
    convert(v, pos, n);
  }

  @Override
  protected void decodeDeltaLongs(DeltaBinaryPackedDecoder decoder, ColumnBuffer out, int pos, int n) {
    long[] v = out.longs;
    decoder.readLongs(v, pos, n);
    if (int32) {
      // INT32 arithmetic wraps at 32 bits: the value is the low half.
      for (int i = pos; i < pos + n; i++) {
        v[i] = (int) v[i];
      }
    }
    convert(v, pos, n);
  }

  private void convert(long[] v, int pos, int n) {
    switch (unit) {
      case SAME -> { }
      case MILLIS_TO_MICROS -> {
        for (int i = pos; i < pos + n; i++) {
          v[i] *= 1000L;
        }
      }
      case NANOS_TO_MICROS -> {
        for (int i = pos; i < pos + n; i++) {
          v[i] = Math.floorDiv(v[i], 1000L);
        }
      }
    }
  }
}

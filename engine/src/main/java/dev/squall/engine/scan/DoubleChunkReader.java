package dev.squall.engine.scan;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.values.ValuesReader;

/** FLOAT and DOUBLE columns into {@code double}s (REAL and DOUBLE). */
final class DoubleChunkReader extends ColumnChunkReader {
  private static final VarHandle FLOAT = MethodHandles.byteArrayViewVarHandle(float[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle DOUBLE = MethodHandles.byteArrayViewVarHandle(double[].class, ByteOrder.LITTLE_ENDIAN);

  private final boolean float32;
  private double[] dictionary;

  DoubleChunkReader(ColumnDescriptor column, boolean float32) {
    super(column);
    this.float32 = float32;
  }

  @Override
  protected void readDictionary(byte[] bytes, int from, int to, int count) {
    if (from + (long) count * (float32 ? 4 : 8) > to) {
      throw ParquetScanException.corrupt("dictionary page of " + name(column) + " is shorter than its " + count + " entries");
    }
    double[] d = new double[count];
    decodePlain(bytes, from, d, 0, count);
    dictionary = d;
  }

  @Override
  protected void decodeValues(ColumnBuffer out, int pos, int n) {
    int width = float32 ? 4 : 8;
    need((long) n * width);
    decodePlain(page, valuesPos, out.doubles, pos, n);
    valuesPos += n * width;
  }

  private void decodePlain(byte[] b, int at, double[] v, int pos, int n) {
    if (float32) {
      for (int i = 0; i < n; i++) {
        v[pos + i] = (float) FLOAT.get(b, at + (i << 2));
      }
    } else {
      for (int i = 0; i < n; i++) {
        v[pos + i] = (double) DOUBLE.get(b, at + (i << 3));
      }
    }
  }

  @Override
  protected void decodeDictionaryIds(ColumnBuffer out, int pos, int[] ids, int n) {
    double[] d = dictionary;
    double[] v = out.doubles;
    for (int i = 0; i < n; i++) {
      v[pos + i] = d[ids[i]];
    }
  }

  @Override
  protected void decodeWith(ValuesReader reader, ColumnBuffer out, int pos, int n) {
    double[] v = out.doubles;
    for (int i = 0; i < n; i++) {
      v[pos + i] = float32 ? reader.readFloat() : reader.readDouble();
    }
  }
}

package dev.squall.engine.column;

import dev.squall.engine.EngineException;
import dev.squall.engine.types.SqlType;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
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
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Conversion between Arrow vectors and engine {@link Column}s. Decimal128 values are read and
 * written as two little-endian longs, with a BigInteger only for values beyond the long range.
 */
public final class ArrowColumns {
  private ArrowColumns() {}

  /** Reads an Arrow vector (of a type in {@link SqlType}'s mapping) into a column. */
  public static Column read(FieldVector vector) {
    return read(vector, null);
  }

  /**
   * {@link #read(FieldVector)} into the arrays of {@code reuse} where they are of the right kind
   * and large enough, fresh arrays otherwise (a shuffle read whose consumer keeps no batch reads
   * every batch into the previous one's arrays). The result is a new column object.
   *
   * @param reuse a column read by this method that nobody reads any more, or null to allocate
   */
  public static Column read(FieldVector vector, Column reuse) {
    SqlType type = SqlType.fromArrow(vector.getField().getType());
    int n = vector.getValueCount();
    boolean[] nulls = readNulls(vector, n, reuse == null ? null : reuse.nullMask());
    if (vector instanceof BigIntVector || vector instanceof TimeStampVector) {
      long[] out = longs(reuse, n);
      longs(((BaseFixedWidthVector) vector).getDataBuffer(), n).get(out, 0, n);
      return new LongColumn(type, out, nulls, n);
    } else if (vector instanceof IntVector || vector instanceof DateDayVector) {
      long[] out = longs(reuse, n);
      long addr = address(((BaseFixedWidthVector) vector).getDataBuffer(), n, 4);
      for (int i = 0; i < n; i++) {
        out[i] = MemoryUtil.getInt(addr + ((long) i << 2));
      }
      return new LongColumn(type, out, nulls, n);
    } else if (vector instanceof SmallIntVector v) {
      long[] out = longs(reuse, n);
      for (int i = 0; i < n; i++) {
        out[i] = nulls != null && nulls[i] ? 0 : v.get(i);
      }
      return new LongColumn(type, out, nulls, n);
    } else if (vector instanceof TinyIntVector v) {
      long[] out = longs(reuse, n);
      for (int i = 0; i < n; i++) {
        out[i] = nulls != null && nulls[i] ? 0 : v.get(i);
      }
      return new LongColumn(type, out, nulls, n);
    } else if (vector instanceof Float8Vector v) {
      double[] out = doubles(reuse, n);
      bytes(v.getDataBuffer(), n, 8).asDoubleBuffer().get(out, 0, n);
      return new DoubleColumn(type, out, nulls, n);
    } else if (vector instanceof Float4Vector v) {
      double[] out = doubles(reuse, n);
      ArrowBuf buf = v.getDataBuffer();
      for (int i = 0; i < n; i++) {
        out[i] = buf.getFloat((long) i << 2);
      }
      return new DoubleColumn(type, out, nulls, n);
    } else if (vector instanceof DecimalVector v) {
      long[] out = reuse instanceof DecimalColumn d && d.unscaledValues().length >= n ? d.unscaledValues() : new long[n];
      long addr = address(v.getDataBuffer(), n, 16);
      if (v.getPrecision() <= 18) {
        // The type bounds every value below 10^18 < 2^63: the high half is only the sign of the
        // low one, so it is not read.
        for (int i = 0; i < n; i++) {
          out[i] = MemoryUtil.getLong(addr + ((long) i << 4));
        }
        return new DecimalColumn(type, out, null, nulls, n);
      }
      BigInteger[] big = null;
      for (int i = 0; i < n; i++) {
        long lo = MemoryUtil.getLong(addr + ((long) i << 4));
        long hi = MemoryUtil.getLong(addr + ((long) i << 4) + 8);
        out[i] = lo;
        if (hi != (lo >> 63) && (nulls == null || !nulls[i])) {
          if (big == null) {
            big = new BigInteger[n];
          }
          big[i] = toBig(lo, hi);
        }
      }
      return new DecimalColumn(type, out, big, nulls, n);
    } else if (vector instanceof BitVector v) {
      boolean[] out = reuse instanceof BoolColumn b && b.values().length >= n ? b.values() : new boolean[n];
      for (int i = 0; i < n; i++) {
        out[i] = (nulls == null || !nulls[i]) && v.get(i) != 0;
      }
      return new BoolColumn(type, out, nulls, n);
    } else if (vector instanceof BaseVariableWidthVector v) {
      // Offsets and bytes are copied in bulk: the column's layout is Arrow's.
      BytesColumn spare = reuse instanceof BytesColumn b && !b.isDictionary() ? b : null;
      int[] offsets = spare != null && spare.offsets().length > n ? spare.offsets() : new int[n + 1];
      offsets[0] = 0;
      ArrowBuf offsetBuf = v.getOffsetBuffer();
      if (n > 0) {
        long addr = address(offsetBuf, n + 1, 4);
        for (int i = 0; i <= n; i++) {
          offsets[i] = MemoryUtil.getInt(addr + ((long) i << 2));
        }
      }
      int length = offsets[n] - offsets[0];
      byte[] data = spare != null && spare.data().length >= length ? spare.data() : new byte[length];
      v.getDataBuffer().getBytes(offsets[0], data, 0, length);
      if (offsets[0] != 0) {
        int base = offsets[0];
        for (int i = 0; i <= n; i++) {
          offsets[i] -= base;
        }
      }
      return new BytesColumn(type, data, offsets, nulls, n);
    } else if (vector instanceof NullVector) {
      return Column.nulls(type, n);
    }
    throw EngineException.badPlan("unsupported Arrow vector " + vector.getClass().getSimpleName());
  }

  /** {@code reuse}'s long values when it is a LongColumn of at least n rows, else a new array. */
  private static long[] longs(Column reuse, int n) {
    return reuse instanceof LongColumn l && l.values().length >= n ? l.values() : new long[n];
  }

  private static double[] doubles(Column reuse, int n) {
    return reuse instanceof DoubleColumn d && d.values().length >= n ? d.values() : new double[n];
  }

  /** The first {@code n} little-endian longs of a buffer, for a bulk copy into a Java array. */
  private static LongBuffer longs(ArrowBuf buf, int n) {
    return bytes(buf, n, 8).asLongBuffer();
  }

  /** The first {@code n} values of {@code width} bytes of a buffer as a little-endian NIO view (not a copy). */
  private static ByteBuffer bytes(ArrowBuf buf, int n, int width) {
    if (n == 0) {
      return ByteBuffer.allocate(0).order(ByteOrder.LITTLE_ENDIAN);
    }
    long addr = address(buf, n, width);
    return MemoryUtil.directBuffer(addr, n * width).order(ByteOrder.LITTLE_ENDIAN);
  }

  /**
   * The memory address of a data buffer after one check that it holds {@code n} values of
   * {@code width} bytes, so that the loops above can skip Arrow's per-access bounds checks.
   */
  private static long address(ArrowBuf buf, int n, int width) {
    long needed = (long) n * width;
    if (buf.capacity() < needed) {
      throw new IllegalStateException("Arrow buffer of " + buf.capacity() + " bytes holds fewer than " + n + " values of " + width + " bytes");
    }
    return buf.memoryAddress();
  }

  private static boolean[] readNulls(FieldVector vector, int n, boolean[] reuse) {
    if (vector instanceof NullVector) {
      return null;
    }
    if (vector.getNullCount() == 0) {
      return null;
    }
    // Every one of the n entries is written below, so a reused mask needs no reset.
    boolean[] nulls = reuse != null && reuse.length >= n ? reuse : new boolean[n];
    for (int i = 0; i < n; i++) {
      nulls[i] = vector.isNull(i);
    }
    return nulls;
  }

  private static BigInteger toBig(long lo, long hi) {
    byte[] be = new byte[16];
    for (int k = 0; k < 8; k++) {
      be[k] = (byte) (hi >>> (56 - 8 * k));
      be[8 + k] = (byte) (lo >>> (56 - 8 * k));
    }
    return new BigInteger(be);
  }

  /** Reads all columns of a batch. */
  public static Column[] read(VectorSchemaRoot root) {
    Column[] cols = new Column[root.getFieldVectors().size()];
    for (int i = 0; i < cols.length; i++) {
      cols[i] = read(root.getVector(i));
    }
    return cols;
  }

  /**
   * Writes {@code n} rows of a column into a new Arrow vector of {@code field}'s type, allocated
   * from {@code allocator}. The column's physical kind must match the field's type.
   */
  public static FieldVector write(Column col, int n, Field field, BufferAllocator allocator) {
    FieldVector vector = field.createVector(allocator);
    try {
      fill(col, n, vector);
      return vector;
    } catch (RuntimeException e) {
      vector.close();
      throw e;
    }
  }

  private static void fill(Column col, int n, FieldVector vector) {
    if (vector instanceof NullVector v) {
      v.setValueCount(n);
      return;
    }
    if (vector instanceof BaseFixedWidthVector fixed) {
      fixed.allocateNew(n);
    } else if (vector instanceof VarCharVector v) {
      v.allocateNew(Math.max(1, estimateBytes((BytesColumn) col, n)), n);
    } else if (vector instanceof VarBinaryVector v) {
      v.allocateNew(Math.max(1, estimateBytes((BytesColumn) col, n)), n);
    }
    boolean[] nulls = col.nullMask();
    if (vector instanceof BigIntVector || vector instanceof TimeStampVector) {
      BaseFixedWidthVector v = (BaseFixedWidthVector) vector;
      long[] vals = ((LongColumn) col).values();
      long addr = address(v.getDataBuffer(), n, 8);
      for (int i = 0; i < n; i++) {
        MemoryUtil.putLong(addr + ((long) i << 3), vals[i]);
      }
      setValidity(v, nulls, n);
    } else if (vector instanceof IntVector || vector instanceof DateDayVector) {
      BaseFixedWidthVector v = (BaseFixedWidthVector) vector;
      long[] vals = ((LongColumn) col).values();
      long addr = address(v.getDataBuffer(), n, 4);
      for (int i = 0; i < n; i++) {
        MemoryUtil.putInt(addr + ((long) i << 2), (int) vals[i]);
      }
      setValidity(v, nulls, n);
    } else if (vector instanceof SmallIntVector v) {
      long[] vals = ((LongColumn) col).values();
      for (int i = 0; i < n; i++) {
        if (nulls == null || !nulls[i]) {
          v.set(i, (short) vals[i]);
        }
      }
    } else if (vector instanceof TinyIntVector v) {
      long[] vals = ((LongColumn) col).values();
      for (int i = 0; i < n; i++) {
        if (nulls == null || !nulls[i]) {
          v.set(i, (byte) vals[i]);
        }
      }
    } else if (vector instanceof Float8Vector v) {
      double[] vals = ((DoubleColumn) col).values();
      long addr = address(v.getDataBuffer(), n, 8);
      for (int i = 0; i < n; i++) {
        MemoryUtil.putLong(addr + ((long) i << 3), Double.doubleToRawLongBits(vals[i]));
      }
      setValidity(v, nulls, n);
    } else if (vector instanceof Float4Vector v) {
      double[] vals = ((DoubleColumn) col).values();
      for (int i = 0; i < n; i++) {
        v.getDataBuffer().setFloat((long) i << 2, (float) vals[i]);
      }
      setValidity(v, nulls, n);
    } else if (vector instanceof DecimalVector v) {
      DecimalColumn d = (DecimalColumn) col;
      long addr = address(v.getDataBuffer(), n, 16);
      long[] unscaled = d.unscaledValues();
      boolean wide = d.hasBig();
      for (int i = 0; i < n; i++) {
        long at = addr + ((long) i << 4);
        if (wide && d.isBig(i) && (nulls == null || !nulls[i])) {
          BigInteger b = d.unscaledBig(i);
          MemoryUtil.putLong(at, b.longValue());
          MemoryUtil.putLong(at + 8, b.shiftRight(64).longValue());
        } else {
          long lo = unscaled[i];
          MemoryUtil.putLong(at, lo);
          MemoryUtil.putLong(at + 8, lo >> 63);
        }
      }
      setValidity(v, nulls, n);
    } else if (vector instanceof BitVector v) {
      boolean[] vals = ((BoolColumn) col).values();
      for (int i = 0; i < n; i++) {
        if (nulls == null || !nulls[i]) {
          v.set(i, vals[i] ? 1 : 0);
        }
      }
    } else if (vector instanceof BaseVariableWidthVector v) {
      BytesColumn b = (BytesColumn) col;
      int[] offsets = b.offsets();
      int base = offsets[0];
      int len = offsets[n] - base;
      ArrowBuf offsetBuf = v.getOffsetBuffer();
      for (int i = 0; i <= n; i++) {
        offsetBuf.setInt((long) i << 2, offsets[i] - base);
      }
      ArrowBuf data = v.getDataBuffer();
      if (data.capacity() < len) {
        v.reallocDataBuffer(len);
        data = v.getDataBuffer();
      }
      data.setBytes(0, b.data(), base, len);
      ArrowBuf validity = v.getValidityBuffer();
      for (int i = 0; i < n; i++) {
        if (nulls == null || !nulls[i]) {
          BitVectorHelper.setBit(validity, i);
        }
      }
      v.setLastSet(n - 1);
    } else {
      throw EngineException.badPlan("unsupported Arrow vector " + vector.getClass().getSimpleName());
    }
    vector.setValueCount(n);
  }

  private static void setValidity(BaseFixedWidthVector v, boolean[] nulls, int n) {
    ArrowBuf validity = v.getValidityBuffer();
    int bytes = (n + 7) >>> 3;
    if (nulls == null) {
      // All valid: fill whole bytes with ones (bits past n are ignored).
      validity.setOne(0, bytes);
      return;
    }
    for (int b = 0; b < bytes; b++) {
      int bits = 0;
      int base = b << 3;
      for (int k = 0; k < 8 && base + k < n; k++) {
        if (!nulls[base + k]) {
          bits |= 1 << k;
        }
      }
      validity.setByte(b, bits);
    }
  }

  private static int estimateBytes(BytesColumn col, int n) {
    return col.offset(n) - col.offset(0);
  }

  /** Writes columns as a new batch with the given schema (rows {@code 0..n)} of each column). */
  public static VectorSchemaRoot toRoot(Schema schema, Column[] cols, int n, BufferAllocator allocator) {
    List<FieldVector> vectors = new ArrayList<>(cols.length);
    try {
      for (int i = 0; i < cols.length; i++) {
        vectors.add(write(cols[i], n, schema.getFields().get(i), allocator));
      }
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    VectorSchemaRoot root = new VectorSchemaRoot(schema.getFields(), vectors, n);
    return root;
  }
}

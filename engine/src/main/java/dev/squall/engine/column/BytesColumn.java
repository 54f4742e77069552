package dev.squall.engine.column;

import dev.squall.engine.hash.Murmur3;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.DataType;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * VARCHAR (UTF-8 bytes) and VARBINARY values, all in one byte array: row {@code i} is
 * {@code data[offsets[i] .. offsets[i + 1])} (Arrow's variable-width layout, Trino's
 * {@code VariableWidthBlock}). A NULL row has an empty range. Strings compare by unsigned bytes,
 * which for UTF-8 is code point order.
 *
 * <p>Rows are appended only; a row once written is never overwritten (operator state that must
 * replace a value, as MIN/MAX do, keeps its own values).
 */
public final class BytesColumn extends Column {
  private byte[] data;
  /** {@code offsets[i]} is where row i starts; {@code offsets[size]} is the end of the data. */
  private int[] offsets;

  /**
   * A column over existing arrays (not copied).
   *
   * @param offsets at least {@code size + 1} entries, non-decreasing, {@code offsets[0]} may be &gt; 0
   */
  public BytesColumn(SqlType type, byte[] data, int[] offsets, boolean[] nulls, int size) {
    super(type, size, nulls);
    this.data = data;
    this.offsets = offsets;
  }

  /** An empty growable column with room for {@code rows} rows of {@code bytes} bytes in all. */
  public static BytesColumn withCapacity(SqlType type, int rows, int bytes) {
    return new BytesColumn(type, new byte[Math.max(bytes, 16)], new int[Math.max(rows, 4) + 1], null, 0);
  }

  /** A column of the given values (null entries are NULL). */
  public static BytesColumn of(SqlType type, byte[]... values) {
    int total = 0;
    for (byte[] v : values) {
      total += v == null ? 0 : v.length;
    }
    BytesColumn c = withCapacity(type, values.length, total);
    for (byte[] v : values) {
      if (v == null) {
        c.appendNull();
      } else {
        c.append(v);
      }
    }
    return c;
  }

  /** The shared byte array (not a copy). */
  public byte[] data() {
    return data;
  }

  /** The offsets array (not a copy): row i is {@code data[offsets[i] .. offsets[i + 1])}. */
  public int[] offsets() {
    return offsets;
  }

  public int offset(int i) {
    return offsets[i];
  }

  public int length(int i) {
    return offsets[i + 1] - offsets[i];
  }

  /** Row i's bytes as a new array (for code off the hot paths). */
  public byte[] value(int i) {
    return Arrays.copyOfRange(data, offsets[i], offsets[i + 1]);
  }

  public String string(int i) {
    return new String(data, offsets[i], offsets[i + 1] - offsets[i], StandardCharsets.UTF_8);
  }

  /** Whether row i equals {@code other[from .. to)}. */
  public boolean equalsBytes(int i, byte[] other, int from, int to) {
    return Arrays.equals(data, offsets[i], offsets[i + 1], other, from, to);
  }

  @Override
  public Column gather(int[] rows, int n) {
    long total = 0;
    for (int k = 0; k < n; k++) {
      int r = rows[k];
      if (r >= 0) {
        total += offsets[r + 1] - offsets[r];
      }
    }
    byte[] out = new byte[(int) total];
    int[] outOffsets = new int[n + 1];
    int at = 0;
    for (int k = 0; k < n; k++) {
      int r = rows[k];
      if (r >= 0) {
        int len = offsets[r + 1] - offsets[r];
        System.arraycopy(data, offsets[r], out, at, len);
        at += len;
      }
      outOffsets[k + 1] = at;
    }
    return new BytesColumn(type, out, outOffsets, gatherNulls(rows, n), n);
  }

  @Override
  public int hash(int i, int seed) {
    return Murmur3.hashBytes(data, offsets[i], offsets[i + 1] - offsets[i], seed);
  }

  @Override
  public boolean valueEquals(int i, Column other, int j) {
    BytesColumn o = (BytesColumn) other;
    return Arrays.equals(data, offsets[i], offsets[i + 1], o.data, o.offsets[j], o.offsets[j + 1]);
  }

  @Override
  public int compareValues(int i, Column other, int j) {
    BytesColumn o = (BytesColumn) other;
    return Arrays.compareUnsigned(data, offsets[i], offsets[i + 1], o.data, o.offsets[j], o.offsets[j + 1]);
  }

  @Override
  public void appendFrom(Column src, int row) {
    if (src.isNull(row)) {
      appendNull();
      return;
    }
    BytesColumn s = (BytesColumn) src;
    append(s.data, s.offsets[row], s.offsets[row + 1] - s.offsets[row]);
  }

  @Override
  public void appendRows(Column src, int[] rows, int from, int to) {
    BytesColumn s = (BytesColumn) src;
    ensureCapacity(size + (to - from));
    long total = 0;
    for (int k = from; k < to; k++) {
      total += s.offsets[rows[k] + 1] - s.offsets[rows[k]];
    }
    int end = offsets[size];
    ensureData((int) Math.min(Integer.MAX_VALUE - 8, end + total));
    int at = size;
    for (int k = from; k < to; k++) {
      int r = rows[k];
      int len = s.offsets[r + 1] - s.offsets[r];
      System.arraycopy(s.data, s.offsets[r], data, end, len);
      end += len;
      offsets[++size] = end;
    }
    appendNullsOf(src, rows, from, to, at);
  }

  @Override
  public void clear() {
    super.clear();
    offsets[0] = 0;
  }

  /** Appends a non-null value. */
  public void append(byte[] v) {
    append(v, 0, v.length);
  }

  /** Appends the non-null value {@code src[from .. from + len)}. */
  public void append(byte[] src, int from, int len) {
    ensureCapacity(size + 1);
    int end = offsets[size];
    ensureData(end + len);
    System.arraycopy(src, from, data, end, len);
    offsets[++size] = end + len;
  }

  @Override
  protected void setValue(int i, Column src, int row) {
    throw new UnsupportedOperationException("a BytesColumn row is never overwritten");
  }

  @Override
  public void appendNull() {
    ensureCapacity(size + 1);
    markNull(size);
    offsets[size + 1] = offsets[size];
    size++;
  }

  @Override
  public Object get(int i) {
    if (isNull(i)) {
      return null;
    }
    return type.kind() == DataType.Kind.VARCHAR ? string(i) : value(i);
  }

  @Override
  public long bytes() {
    return 32L + data.length + offsets.length * 4L + (nulls == null ? 0 : nulls.length);
  }

  @Override
  protected int capacity() {
    return offsets.length - 1;
  }

  @Override
  protected void grow(int capacity) {
    offsets = Arrays.copyOf(offsets, capacity + 1);
  }

  private void ensureData(int needed) {
    if (needed > data.length) {
      data = Arrays.copyOf(data, Math.max(needed, data.length * 2));
    }
  }
}

package dev.squall.engine.column;

import dev.squall.engine.types.SqlType;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * VARCHAR (UTF-8 bytes) and VARBINARY values. Strings compare by unsigned bytes, which for UTF-8 is
 * code point order.
 */
public final class BytesColumn extends Column {
  private byte[][] values;

  public BytesColumn(SqlType type, byte[][] values, boolean[] nulls, int size) {
    super(type, size, nulls);
    this.values = values;
  }

  public byte[][] values() {
    return values;
  }

  public byte[] value(int i) {
    return values[i];
  }

  public String string(int i) {
    return new String(values[i], StandardCharsets.UTF_8);
  }

  @Override
  public Column gather(int[] rows, int n) {
    byte[][] out = new byte[n][];
    for (int k = 0; k < n; k++) {
      int r = rows[k];
      out[k] = r < 0 ? null : values[r];
    }
    return new BytesColumn(type, out, gatherNulls(rows, n), n);
  }

  @Override
  public int hash(int i) {
    return Arrays.hashCode(values[i]) * 0x9E3779B1;
  }

  @Override
  public boolean valueEquals(int i, Column other, int j) {
    return Arrays.equals(values[i], ((BytesColumn) other).values[j]);
  }

  @Override
  public int compareValues(int i, Column other, int j) {
    return Arrays.compareUnsigned(values[i], ((BytesColumn) other).values[j]);
  }

  @Override
  public void appendFrom(Column src, int row) {
    ensureCapacity(size + 1);
    if (src.isNull(row)) {
      markNull(size);
    } else {
      values[size] = ((BytesColumn) src).values[row];
    }
    size++;
  }

  public void append(byte[] v) {
    ensureCapacity(size + 1);
    values[size++] = v;
  }

  @Override
  protected void setValue(int i, Column src, int row) {
    values[i] = ((BytesColumn) src).values[row];
  }

  @Override
  public void appendNull() {
    ensureCapacity(size + 1);
    markNull(size);
    size++;
  }

  @Override
  public Object get(int i) {
    if (isNull(i)) {
      return null;
    }
    return type.kind() == dev.squall.proto.v1.DataType.Kind.VARCHAR ? string(i) : values[i];
  }

  @Override
  public long bytes() {
    long b = 16L + values.length * 8L + (nulls == null ? 0 : nulls.length);
    for (int i = 0; i < size; i++) {
      if (values[i] != null) {
        b += 16 + values[i].length;
      }
    }
    return b;
  }

  @Override
  protected int capacity() {
    return values.length;
  }

  @Override
  protected void grow(int capacity) {
    values = Arrays.copyOf(values, capacity);
  }
}

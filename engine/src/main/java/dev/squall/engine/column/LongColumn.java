package dev.squall.engine.column;

import dev.squall.engine.hash.Murmur3;
import dev.squall.engine.types.SqlType;
import java.util.Arrays;

/** Integral, DATE (days), TIMESTAMP (micros) and interval values as {@code long}. */
public final class LongColumn extends Column {
  private long[] values;

  public LongColumn(SqlType type, long[] values, boolean[] nulls, int size) {
    super(type, size, nulls);
    this.values = values;
  }

  /** The values array (not a copy); entries at NULL rows are unspecified. */
  public long[] values() {
    return values;
  }

  public long value(int i) {
    return values[i];
  }

  @Override
  public Column gather(int[] rows, int n, Column reuse) {
    long[] out = reuse instanceof LongColumn l && l.values.length >= n && l.values != values ? l.values : new long[n];
    for (int k = 0; k < n; k++) {
      int r = rows[k];
      out[k] = r < 0 ? 0 : values[r];
    }
    return new LongColumn(type, out, gatherNulls(rows, n, reuse), n);
  }

  @Override
  public int hash(int i, int seed) {
    return Murmur3.hashLong(values[i], seed);
  }

  @Override
  public void hashInto(int[] hashes, int n) {
    if (nulls == null) {
      for (int i = 0; i < n; i++) {
        hashes[i] = Murmur3.hashLong(values[i], hashes[i]);
      }
    } else {
      super.hashInto(hashes, n);
    }
  }

  @Override
  public boolean valueEquals(int i, Column other, int j) {
    return values[i] == ((LongColumn) other).values[j];
  }

  @Override
  public int compareValues(int i, Column other, int j) {
    return Long.compare(values[i], ((LongColumn) other).values[j]);
  }

  @Override
  public void appendFrom(Column src, int row) {
    ensureCapacity(size + 1);
    if (src.isNull(row)) {
      markNull(size);
    } else {
      values[size] = ((LongColumn) src).values[row];
    }
    size++;
  }

  @Override
  public void appendRows(Column src, int[] rows, int from, int to) {
    ensureCapacity(size + (to - from));
    long[] in = ((LongColumn) src).values;
    int at = size;
    for (int k = from; k < to; k++) {
      values[at + k - from] = in[rows[k]];
    }
    appendNullsOf(src, rows, from, to, at);
    size += to - from;
  }

  /** Appends a non-null value. */
  public void append(long v) {
    ensureCapacity(size + 1);
    values[size++] = v;
  }

  @Override
  protected void setValue(int i, Column src, int row) {
    values[i] = ((LongColumn) src).values[row];
  }

  @Override
  public void appendNull() {
    ensureCapacity(size + 1);
    markNull(size);
    size++;
  }

  @Override
  public Object get(int i) {
    return isNull(i) ? null : values[i];
  }

  @Override
  public long bytes() {
    return 16L + values.length * 8L + (nulls == null ? 0 : nulls.length);
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

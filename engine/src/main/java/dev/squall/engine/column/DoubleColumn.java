package dev.squall.engine.column;

import dev.squall.engine.hash.Murmur3;
import dev.squall.engine.types.SqlType;
import java.util.Arrays;

/** REAL and DOUBLE values as {@code double} (REAL values are rounded to float on write). */
public final class DoubleColumn extends Column {
  private double[] values;

  public DoubleColumn(SqlType type, double[] values, boolean[] nulls, int size) {
    super(type, size, nulls);
    this.values = values;
  }

  public double[] values() {
    return values;
  }

  public double value(int i) {
    return values[i];
  }

  @Override
  public Column gather(int[] rows, int n, Column reuse) {
    double[] out = reuse instanceof DoubleColumn d && d.values.length >= n && d.values != values ? d.values : new double[n];
    for (int k = 0; k < n; k++) {
      int r = rows[k];
      out[k] = r < 0 ? 0 : values[r];
    }
    return new DoubleColumn(type, out, gatherNulls(rows, n, reuse), n);
  }

  @Override
  public int hash(int i, int seed) {
    double v = values[i];
    // -0.0 equals 0.0; doubleToLongBits gives every NaN one bit pattern.
    return Murmur3.hashLong(v == 0.0 ? 0L : Double.doubleToLongBits(v), seed);
  }

  @Override
  public boolean valueEquals(int i, Column other, int j) {
    double a = values[i];
    double b = ((DoubleColumn) other).values[j];
    return a == b || (Double.isNaN(a) && Double.isNaN(b));
  }

  @Override
  public int compareValues(int i, Column other, int j) {
    double a = values[i];
    double b = ((DoubleColumn) other).values[j];
    return a == b ? 0 : Double.compare(a, b);
  }

  @Override
  public void appendFrom(Column src, int row) {
    ensureCapacity(size + 1);
    if (src.isNull(row)) {
      markNull(size);
    } else {
      values[size] = ((DoubleColumn) src).values[row];
    }
    size++;
  }

  public void append(double v) {
    ensureCapacity(size + 1);
    values[size++] = v;
  }

  @Override
  protected void setValue(int i, Column src, int row) {
    values[i] = ((DoubleColumn) src).values[row];
  }

  @Override
  public void appendRows(Column src, int[] rows, int from, int to) {
    ensureCapacity(size + (to - from));
    double[] in = ((DoubleColumn) src).values;
    int at = size;
    for (int k = from; k < to; k++) {
      values[at + k - from] = in[rows[k]];
    }
    appendNullsOf(src, rows, from, to, at);
    size += to - from;
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

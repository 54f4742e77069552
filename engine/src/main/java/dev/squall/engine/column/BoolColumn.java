package dev.squall.engine.column;

import dev.squall.engine.hash.Murmur3;
import dev.squall.engine.types.SqlType;
import java.util.Arrays;

/** BOOLEAN values. */
public final class BoolColumn extends Column {
  private boolean[] values;

  public BoolColumn(SqlType type, boolean[] values, boolean[] nulls, int size) {
    super(type, size, nulls);
    this.values = values;
  }

  public BoolColumn(boolean[] values, boolean[] nulls, int size) {
    this(SqlType.BOOLEAN, values, nulls, size);
  }

  public boolean[] values() {
    return values;
  }

  /** Whether row i is TRUE (not FALSE and not NULL). */
  public boolean isTrue(int i) {
    return values[i] && (nulls == null || !nulls[i]);
  }

  /**
   * The rows where {@code c} is TRUE, as ascending indexes written to {@code rows}; returns their
   * number. Branch-free, since filter outcomes are rarely predictable.
   */
  public static int trueRows(BoolColumn c, int[] rows) {
    boolean[] values = c.values;
    boolean[] nulls = c.nulls;
    int n = c.size();
    int k = 0;
    if (nulls == null) {
      for (int i = 0; i < n; i++) {
        rows[k] = i;
        k += values[i] ? 1 : 0;
      }
    } else {
      for (int i = 0; i < n; i++) {
        rows[k] = i;
        k += values[i] & !nulls[i] ? 1 : 0;
      }
    }
    return k;
  }

  @Override
  public Column gather(int[] rows, int n, Column reuse) {
    boolean[] out = reuse instanceof BoolColumn b && b.values.length >= n && b.values != values ? b.values : new boolean[n];
    for (int k = 0; k < n; k++) {
      int r = rows[k];
      out[k] = r >= 0 && values[r];
    }
    return new BoolColumn(type, out, gatherNulls(rows, n, reuse), n);
  }

  @Override
  public int hash(int i, int seed) {
    return Murmur3.hashLong(values[i] ? 1 : 0, seed);
  }

  @Override
  public boolean valueEquals(int i, Column other, int j) {
    return values[i] == ((BoolColumn) other).values[j];
  }

  @Override
  public int compareValues(int i, Column other, int j) {
    return Boolean.compare(values[i], ((BoolColumn) other).values[j]);
  }

  @Override
  public void appendFrom(Column src, int row) {
    ensureCapacity(size + 1);
    if (src.isNull(row)) {
      markNull(size);
    } else {
      values[size] = ((BoolColumn) src).values[row];
    }
    size++;
  }

  public void append(boolean v) {
    ensureCapacity(size + 1);
    values[size++] = v;
  }

  @Override
  protected void setValue(int i, Column src, int row) {
    values[i] = ((BoolColumn) src).values[row];
  }

  @Override
  public void appendRows(Column src, int[] rows, int from, int to) {
    ensureCapacity(size + (to - from));
    boolean[] in = ((BoolColumn) src).values;
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
    return 16L + values.length + (nulls == null ? 0 : nulls.length);
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

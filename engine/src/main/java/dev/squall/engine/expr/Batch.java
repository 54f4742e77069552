package dev.squall.engine.expr;

import dev.squall.engine.column.Column;

/** The input of expression evaluation: a number of rows and their columns by index. */
public interface Batch {
  int rows();

  /** Column {@code index} of the batch (read once and kept by implementations). */
  Column column(int index);

  /** The columns at the given rows, as a new batch of {@code n} rows (row -1 gives NULL). */
  default Batch select(int[] rows, int n) {
    Batch outer = this;
    return new Batch() {
      private final Column[] cache = new Column[64];

      @Override
      public int rows() {
        return n;
      }

      @Override
      public Column column(int index) {
        if (index < cache.length && cache[index] != null) {
          return cache[index];
        }
        Column c = outer.column(index).gather(rows, n);
        if (index < cache.length) {
          cache[index] = c;
        }
        return c;
      }
    };
  }
}

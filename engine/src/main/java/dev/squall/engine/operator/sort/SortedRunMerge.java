package dev.squall.engine.operator.sort;

import dev.squall.engine.column.Column;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.memory.OperatorMemory;
import dev.squall.engine.spill.SpillFile;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.SortKey;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The k-way merge of sorted runs in spill files (the second phase of an external merge sort):
 * one batch of each run is held at a time, and a heap ordered by {@link RowOrder#compareAcross}
 * picks the next row. Ties go to the earlier run, so the merge is stable as the runs are in input
 * order. Runs are deleted as they are read to the end.
 */
final class SortedRunMerge implements AutoCloseable {
  private final OperatorMemory memory;
  private final List<SqlType> types;
  private final PriorityQueue<Cursor> heap;
  private final List<Cursor> cursors = new ArrayList<>();

  SortedRunMerge(OperatorMemory memory, List<SortKey> keys, List<SqlType> types, List<SpillFile> runs) {
    this.memory = memory;
    this.types = types;
    this.heap = new PriorityQueue<>(Math.max(1, runs.size()), (x, y) -> {
      int c = RowOrder.compareAcross(keys, x.columns, x.row, y.columns, y.row);
      return c != 0 ? c : Integer.compare(x.run, y.run);
    });
    for (int i = 0; i < runs.size(); i++) {
      Cursor c = new Cursor(i, runs.get(i));
      cursors.add(c);
      if (c.advanceBatch()) {
        heap.add(c);
      }
    }
    reserveHeld();
  }

  /** Up to {@code max} next rows in order, or null when every run is exhausted. */
  ColumnBatch next(int max) {
    if (heap.isEmpty()) {
      return null;
    }
    Column[] out = new Column[types.size()];
    for (int c = 0; c < out.length; c++) {
      out[c] = Column.empty(types.get(c), Math.min(max, 1024));
    }
    int n = 0;
    while (n < max && !heap.isEmpty()) {
      Cursor top = heap.poll();
      for (int c = 0; c < out.length; c++) {
        out[c].appendFrom(top.columns[c], top.row);
      }
      n++;
      if (++top.row < top.rows || top.advanceBatch()) {
        heap.add(top);
      }
    }
    reserveHeld();
    return new ColumnBatch(out, n);
  }

  /** The current batches of the runs are the merge's state. */
  private void reserveHeld() {
    long bytes = 0;
    for (Cursor c : cursors) {
      bytes += c.bytes;
    }
    memory.reserveTotal(bytes);
  }

  @Override
  public void close() {
    for (Cursor c : cursors) {
      c.close();
    }
  }

  /** One run's reader and its current batch. */
  private final class Cursor {
    final int run;
    final SpillFile file;
    SpillFile.Reader reader;
    Column[] columns;
    int rows;
    int row;
    long bytes;

    Cursor(int run, SpillFile file) {
      this.run = run;
      this.file = file;
      this.reader = file.open(memory.allocator());
    }

    /** Loads the next batch of the run; false (and the run deleted) at its end. */
    boolean advanceBatch() {
      memory.checkCancelled();
      ColumnBatch b = reader.next();
      if (b == null) {
        close();
        return false;
      }
      columns = b.columns();
      rows = b.rows();
      row = 0;
      bytes = b.bytes();
      return true;
    }

    void close() {
      columns = null;
      bytes = 0;
      if (reader != null) {
        reader.close();
        reader = null;
      }
      file.delete();
    }
  }
}

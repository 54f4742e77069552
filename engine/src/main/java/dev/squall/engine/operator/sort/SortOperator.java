package dev.squall.engine.operator.sort;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.memory.OperatorMemory;
import dev.squall.engine.operator.BatchOperator;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.SortKey;
import java.util.ArrayList;
import java.util.List;

/**
 * ORDER BY (Sort), and ORDER BY ... LIMIT n OFFSET m (TopN) in bounded memory. Sort buffers its
 * whole input (reserved against the task budget), sorts row indexes, and emits the rows in order.
 * TopN keeps at most about 2 × (n + m) rows: whenever the buffer grows past that it is sorted and cut
 * back to the first n + m rows.
 */
public final class SortOperator extends BatchOperator {
  private final BatchOperator input;
  private final List<SortKey> keys;
  private final long keep; // rows to keep (limit + offset) or -1 for all
  private final long offset;
  private Column[] sorted;
  private int sortedRows;
  private int emitted;

  /** @param limit rows to return, -1 for all; offset rows to skip first */
  public SortOperator(OperatorMemory memory, BatchOperator input, List<SortKey> keys, long limit, long offset) {
    super(memory, input.schema(), List.of(input));
    this.input = input;
    this.keys = keys;
    for (SortKey k : keys) {
      if (k.getColumn() < 0 || k.getColumn() >= types.size()) {
        throw EngineException.badPlan("sort key column " + k.getColumn() + " is outside the input's " + types.size() + " columns");
      }
    }
    this.offset = Math.max(0, offset);
    this.keep = limit < 0 ? -1 : limit + this.offset;
  }

  @Override
  protected ColumnBatch produce() {
    if (sorted == null) {
      sortInput();
    }
    if (emitted >= sortedRows) {
      return null;
    }
    int n = Math.min(BATCH_ROWS, sortedRows - emitted);
    int[] rows = new int[n];
    for (int i = 0; i < n; i++) {
      rows[i] = emitted + i;
    }
    Column[] out = new Column[sorted.length];
    for (int c = 0; c < out.length; c++) {
      out[c] = sorted[c].gather(rows, n);
    }
    emitted += n;
    return new ColumnBatch(out, n);
  }

  private void sortInput() {
    List<Column[]> buffer = new ArrayList<>();
    long buffered = 0;
    long threshold = keep < 0 ? Long.MAX_VALUE : Math.max(2 * keep, BATCH_ROWS);
    ColumnBatch batch;
    while ((batch = input.next()) != null) {
      if (keep == 0) {
        continue;
      }
      Column[] cols = batch.columns();
      buffer.add(cols);
      buffered += batch.rows();
      memory.reserve(bytes(cols));
      if (buffered > threshold) {
        Column[] cut = sortAndCut(buffer, (int) Math.min(keep, Integer.MAX_VALUE));
        buffer.clear();
        buffer.add(cut);
        buffered = cut[0].size();
        memory.reserveTotal(bytes(cut));
      }
    }
    long take = keep < 0 ? Long.MAX_VALUE : keep;
    Column[] all = sortAndCut(buffer, (int) Math.min(take, Integer.MAX_VALUE));
    int total = all.length == 0 || buffer.isEmpty() ? 0 : all[0].size();
    int skip = (int) Math.min(offset, total);
    int rows = total - skip;
    if (skip > 0) {
      int[] idx = new int[rows];
      for (int i = 0; i < rows; i++) {
        idx[i] = skip + i;
      }
      for (int c = 0; c < all.length; c++) {
        all[c] = all[c].gather(idx, rows);
      }
    }
    sorted = all;
    sortedRows = rows;
  }

  private Column[] sortAndCut(List<Column[]> buffer, int limit) {
    int width = types.size();
    Column[] cols = new Column[width];
    for (int c = 0; c < width; c++) {
      List<Column> parts = new ArrayList<>();
      for (Column[] b : buffer) {
        parts.add(b[c]);
      }
      SqlType t = types.get(c);
      cols[c] = parts.size() == 1 ? parts.get(0) : Column.concat(t, parts);
    }
    if (buffer.isEmpty()) {
      return cols;
    }
    int n = cols[0].size();
    int[] order = new RowOrder(cols, keys).sortedRows(n);
    int m = Math.min(n, limit);
    Column[] out = new Column[width];
    for (int c = 0; c < width; c++) {
      out[c] = cols[c].gather(order, m);
    }
    return out;
  }

  private static long bytes(Column[] cols) {
    long b = 0;
    for (Column c : cols) {
      b += c.bytes();
    }
    return b;
  }
}

package dev.squall.engine.operator.sort;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.memory.OperatorMemory;
import dev.squall.engine.operator.BatchOperator;
import dev.squall.engine.spill.SpillFile;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.SortKey;
import java.util.ArrayList;
import java.util.List;

/**
 * ORDER BY (Sort), and ORDER BY ... LIMIT n OFFSET m (TopN) in bounded memory. Sort buffers its
 * input (reserved against the task budget), sorts row indexes, and emits the rows in order.
 * TopN keeps at most about 2 × (n + m) rows: whenever the buffer grows past that it is sorted and cut
 * back to the first n + m rows.
 *
 * <p>External merge sort: when the buffer would take the task past its spill threshold (see
 * {@link OperatorMemory#tryReserveTotal}), it is sorted and written to a spill file as a sorted
 * run, and the buffer starts again. At the end the runs (the last buffer among them) are merged
 * {@link #maxFanIn} at a time by {@link SortedRunMerge}, in as many passes as needed, the last
 * pass streaming the output.
 */
public final class SortOperator extends BatchOperator {
  private static final int MAX_FAN_IN = 64;

  private final BatchOperator input;
  private final List<SortKey> keys;
  private final long keep; // rows to keep (limit + offset) or -1 for all
  private final long offset;
  private Column[] sorted;
  private int sortedRows;
  private int emitted;
  private final List<SpillFile> runs = new ArrayList<>();
  private SortedRunMerge merge;
  private long mergeSkip;
  private long mergeLeft;
  private boolean started;
  private boolean finished;

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
    if (finished) {
      return null;
    }
    if (!started) {
      started = true;
      sortInput();
    }
    if (merge != null) {
      return nextMerged();
    }
    if (emitted >= sortedRows) {
      releaseSorted();
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
    long bufferedBytes = 0;
    long threshold = keep < 0 ? Long.MAX_VALUE : Math.max(2 * keep, BATCH_ROWS);
    ColumnBatch batch;
    while ((batch = input.next()) != null) {
      if (keep == 0) {
        continue;
      }
      Column[] cols = batch.columns();
      buffer.add(cols);
      buffered += batch.rows();
      bufferedBytes += bytes(cols);
      if (!memory.tryReserveTotal(bufferedBytes)) {
        spillRun(buffer);
        buffer.clear();
        buffered = 0;
        bufferedBytes = 0;
        memory.reserveTotal(0);
      } else if (buffered > threshold) {
        Column[] cut = sortAndCut(buffer, (int) Math.min(keep, Integer.MAX_VALUE));
        buffer.clear();
        buffer.add(cut);
        buffered = cut[0].size();
        bufferedBytes = bytes(cut);
        memory.reserveTotal(bufferedBytes);
      }
    }
    if (!runs.isEmpty()) {
      spillRun(buffer);
      buffer.clear();
      memory.reserveTotal(0);
      startMerge();
      return;
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

  /** Sorts the buffer (cut to the rows TopN keeps) and writes it as one sorted run. */
  private void spillRun(List<Column[]> buffer) {
    if (buffer.isEmpty()) {
      return;
    }
    Column[] run = sortAndCut(buffer, (int) Math.min(keep < 0 ? Long.MAX_VALUE : keep, Integer.MAX_VALUE));
    int n = run[0].size();
    SpillFile file = memory.spill().newFile(name());
    runs.add(file);
    file.write(new ColumnBatch(run, n), schema, memory.allocator());
    file.finish();
  }

  /**
   * Runs a merge may read at once: a quarter of the budget in run batches (spill files are read
   * back in slices of at most {@link SpillFile#SLICE_BYTES}), 2 to 64 runs.
   */
  private int maxFanIn() {
    long fit = memory.taskBudget() / 4 / SpillFile.SLICE_BYTES;
    return (int) Math.max(2, Math.min(MAX_FAN_IN, fit));
  }

  /** Merges runs into fewer, longer runs until one pass can merge them all, then starts that pass. */
  private void startMerge() {
    int fanIn = maxFanIn();
    List<SpillFile> pending = new ArrayList<>(runs);
    runs.clear();
    while (pending.size() > fanIn) {
      List<SpillFile> next = new ArrayList<>();
      for (int i = 0; i < pending.size(); i += fanIn) {
        List<SpillFile> group = pending.subList(i, Math.min(pending.size(), i + fanIn));
        if (group.size() == 1) {
          next.add(group.get(0));
          continue;
        }
        SpillFile merged = memory.spill().newFile(name());
        next.add(merged);
        try (SortedRunMerge m = new SortedRunMerge(memory, keys, types, new ArrayList<>(group))) {
          ColumnBatch b;
          while ((b = m.next(BATCH_ROWS)) != null) {
            merged.write(b, schema, memory.allocator());
          }
        }
        merged.finish();
      }
      pending = next;
    }
    runs.addAll(pending);
    merge = new SortedRunMerge(memory, keys, types, pending);
    mergeSkip = offset;
    mergeLeft = keep < 0 ? Long.MAX_VALUE : keep - offset;
  }

  private ColumnBatch nextMerged() {
    while (mergeSkip > 0) {
      ColumnBatch skipped = merge.next((int) Math.min(BATCH_ROWS, mergeSkip));
      if (skipped == null) {
        mergeSkip = 0;
        break;
      }
      mergeSkip -= skipped.rows();
    }
    if (mergeLeft <= 0) {
      releaseSorted();
      return null;
    }
    ColumnBatch b = merge.next((int) Math.min(BATCH_ROWS, mergeLeft));
    if (b == null) {
      releaseSorted();
      return null;
    }
    mergeLeft -= b.rows();
    return b;
  }

  /** Drops the sorted rows or the merge once emitted, so operators above get the memory back. */
  private void releaseSorted() {
    finished = true;
    releaseState();
    memory.reserveTotal(0);
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

  @Override
  protected void releaseState() {
    if (merge != null) {
      merge.close();
      merge = null;
    }
    runs.forEach(SpillFile::delete);
    runs.clear();
    sorted = null;
  }
}

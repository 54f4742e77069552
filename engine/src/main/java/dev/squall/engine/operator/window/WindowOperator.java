package dev.squall.engine.operator.window;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.memory.OperatorMemory;
import dev.squall.engine.operator.BatchOperator;
import dev.squall.engine.operator.sort.RowOrder;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.SortKey;
import dev.squall.proto.v1.Window;
import dev.squall.proto.v1.WindowCall;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Window functions over the task's rows (plan-proto {@link Window}). Buffers its whole input
 * (reserved against the task budget, so that too much input fails with "task memory exceeded"
 * naming this operator), sorts it by (partition keys ascending, order keys) with the engine's row
 * order ({@link RowOrder}), finds partitions and peer groups ({@link PartitionLayout}), and computes
 * each call over every partition: rank functions ({@link RankFunctions}), value functions
 * ({@link ValueFunctions}) and aggregates over frames ({@link FrameAggregates}), frames being row
 * ranges ({@link FrameBounds}). Emits the input columns, then one column per call, in sorted order.
 */
public final class WindowOperator extends BatchOperator {
  private final BatchOperator input;
  private final Window window;
  private final int inputWidth;
  private Column[] output;
  /** The whole result, which output batches select slices of. */
  private ColumnBatch result;
  private int rows;
  private int emitted;

  /**
   * @param schema the input's columns then one per call
   * @throws EngineException a bad plan when the schema or a key does not fit the input
   */
  public WindowOperator(OperatorMemory memory, Schema schema, BatchOperator input, Window window) {
    super(memory, schema, List.of(input));
    this.input = input;
    this.window = window;
    this.inputWidth = input.schema().getFields().size();
    if (types.size() != inputWidth + window.getCallsCount()) {
      throw EngineException.badPlan("window output has " + types.size() + " columns, not the input's "
          + inputWidth + " and " + window.getCallsCount() + " calls");
    }
    List<Integer> columns = new ArrayList<>(window.getPartitionKeysList());
    window.getOrderKeysList().forEach(k -> columns.add(k.getColumn()));
    window.getCallsList().forEach(c -> columns.addAll(c.getArgsList()));
    for (int c : columns) {
      if (c < 0 || c >= inputWidth) {
        throw EngineException.badPlan("window column " + c + " is outside the input's " + inputWidth + " columns");
      }
    }
  }

  @Override
  protected ColumnBatch produce() {
    if (output == null) {
      compute();
      result = new ColumnBatch(output, rows);
    }
    if (emitted >= rows) {
      return null;
    }
    int n = Math.min(BATCH_ROWS, rows - emitted);
    // A selection over the result: the columns are gathered only when read downstream.
    ColumnBatch out = result.slice(emitted, n);
    emitted += n;
    return out;
  }

  private void compute() {
    Column[] sorted = sortedInput();
    output = new Column[types.size()];
    System.arraycopy(sorted, 0, output, 0, inputWidth);
    if (rows == 0) {
      return;
    }
    PartitionLayout layout = new PartitionLayout(sorted, rows, window.getPartitionKeysList(), window.getOrderKeysList());
    long state = bytes(sorted) + PartitionLayout.bytesPerRow() * rows;
    memory.reserveTotal(state);
    for (int c = 0; c < window.getCallsCount(); c++) {
      WindowCall call = window.getCalls(c);
      FrameBounds frames = call.hasFrame() ? new FrameBounds(call.getFrame(), layout, sorted, window.getOrderKeysList()) : null;
      memory.reserveTotal(state + (frames == null ? 0 : FrameBounds.bytesPerRow() * rows));
      SqlType type = types.get(inputWidth + c);
      Column arg = call.getArgsCount() == 0 ? null : sorted[call.getArgs(0)];
      Column result = switch (call.getFunction()) {
        case ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE -> RankFunctions.compute(call, layout, arg, type);
        case LAG, LEAD, FIRST_VALUE, LAST_VALUE, NTH_VALUE -> ValueFunctions.compute(call, layout, frames, arg, type);
        case SUM, SUM0, AVG, COUNT, COUNT_STAR, MIN, MAX -> FrameAggregates.compute(call, layout, frames, arg, type);
        default -> throw EngineException.badPlan("window function " + call.getFunction());
      };
      output[inputWidth + c] = result;
      state += result.bytes();
      memory.reserveTotal(state);
    }
    memory.reserveTotal(bytes(output));
  }

  /** The whole input, sorted by partition keys then order keys; sets {@link #rows}. */
  private Column[] sortedInput() {
    List<Column[]> buffer = new ArrayList<>();
    ColumnBatch batch;
    while ((batch = input.next()) != null) {
      Column[] cols = batch.columns();
      buffer.add(cols);
      rows += batch.rows();
      memory.reserve(bytes(cols));
    }
    Column[] all = new Column[inputWidth];
    for (int c = 0; c < inputWidth; c++) {
      List<Column> parts = new ArrayList<>();
      for (Column[] b : buffer) {
        parts.add(b[c]);
      }
      all[c] = parts.size() == 1 ? parts.get(0) : Column.concat(types.get(c), parts);
    }
    buffer.clear();
    if (rows == 0 || inputWidth == 0) {
      return all;
    }
    memory.reserveTotal(2 * bytes(all));
    List<SortKey> keys = new ArrayList<>();
    for (int k : window.getPartitionKeysList()) {
      keys.add(SortKey.newBuilder().setColumn(k).build());
    }
    keys.addAll(window.getOrderKeysList());
    int[] order = new RowOrder(all, keys).sortedRows(rows);
    Column[] sorted = new Column[inputWidth];
    for (int c = 0; c < inputWidth; c++) {
      sorted[c] = all[c].gather(order, rows);
    }
    memory.reserveTotal(bytes(sorted));
    return sorted;
  }

  private static long bytes(Column[] cols) {
    long b = 0;
    for (Column c : cols) {
      b += c == null ? 0 : c.bytes();
    }
    return b;
  }

  @Override
  protected void releaseState() {
    output = null;
    result = null;
  }
}

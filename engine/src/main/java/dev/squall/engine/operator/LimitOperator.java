package dev.squall.engine.operator;

import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.memory.OperatorMemory;
import java.util.List;

/** Skips {@code offset} rows, then passes at most {@code limit} rows (a negative limit: all). */
public final class LimitOperator extends BatchOperator {
  private final BatchOperator input;
  private long toSkip;
  private long remaining;

  public LimitOperator(OperatorMemory memory, BatchOperator input, long offset, long limit) {
    super(memory, input.schema(), List.of(input));
    this.input = input;
    this.toSkip = Math.max(0, offset);
    this.remaining = limit < 0 ? Long.MAX_VALUE : limit;
  }

  @Override
  protected ColumnBatch produce() {
    while (remaining > 0) {
      ColumnBatch batch = input.next();
      if (batch == null) {
        return null;
      }
      int n = batch.rows();
      if (toSkip >= n) {
        toSkip -= n;
        continue;
      }
      int start = (int) toSkip;
      int len = (int) Math.min(n - start, remaining);
      toSkip = 0;
      remaining -= len;
      return start == 0 && len == n ? batch : batch.slice(start, len);
    }
    return null;
  }

  /** The limit keeps no batch and hands on its input's batches or slices of them. */
  @Override
  public void promiseConsumerKeepsNoBatch() {
    super.promiseConsumerKeepsNoBatch();
    input.promiseConsumerKeepsNoBatch();
  }
}

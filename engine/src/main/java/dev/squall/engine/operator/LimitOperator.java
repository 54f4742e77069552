package dev.squall.engine.operator;

import dev.squall.engine.memory.OperatorMemory;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;

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
  protected VectorSchemaRoot produce() {
    while (remaining > 0) {
      VectorSchemaRoot root = input.next();
      if (root == null) {
        return null;
      }
      int n = root.getRowCount();
      if (toSkip >= n) {
        toSkip -= n;
        root.close();
        continue;
      }
      int start = (int) toSkip;
      int len = (int) Math.min(n - start, remaining);
      toSkip = 0;
      remaining -= len;
      if (start == 0 && len == n) {
        return root;
      }
      try (VectorSchemaRoot r = root) {
        return r.slice(start, len);
      }
    }
    return null;
  }
}

package dev.squall.engine.operator;

import dev.squall.engine.column.BoolColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.expr.Evaluator;
import dev.squall.engine.memory.OperatorMemory;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;

/** Keeps the rows whose condition is TRUE (FALSE and NULL are dropped). */
public final class FilterOperator extends BatchOperator {
  private final BatchOperator input;
  private final Evaluator condition;

  public FilterOperator(OperatorMemory memory, BatchOperator input, Evaluator condition) {
    super(memory, input.schema(), List.of(input));
    this.input = input;
    this.condition = condition;
  }

  @Override
  protected VectorSchemaRoot produce() {
    VectorSchemaRoot root;
    while ((root = input.next()) != null) {
      int n = root.getRowCount();
      ColumnBatch batch = ColumnBatch.of(root);
      BoolColumn keep;
      try {
        keep = (BoolColumn) condition.evaluate(batch);
      } catch (RuntimeException e) {
        root.close(); // e.g. a failed cast: the batch must not outlive the error
        throw e;
      }
      int[] rows = new int[n];
      int k = 0;
      for (int i = 0; i < n; i++) {
        if (keep.isTrue(i)) {
          rows[k++] = i;
        }
      }
      if (k == n && n > 0) {
        return root; // every row passes: hand the batch on as it is
      }
      try (VectorSchemaRoot r = root) {
        if (k == 0) {
          continue;
        }
        Column[] out = new Column[batch.width()];
        for (int c = 0; c < out.length; c++) {
          out[c] = batch.column(c).gather(rows, k);
        }
        return toRoot(out, k);
      }
    }
    return null;
  }
}

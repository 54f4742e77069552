package dev.squall.engine.operator;

import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.expr.Evaluator;
import dev.squall.engine.memory.OperatorMemory;
import java.util.List;

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
  protected ColumnBatch produce() {
    ColumnBatch batch;
    while ((batch = input.next()) != null) {
      int n = batch.rows();
      int[] rows = new int[n];
      int k = condition.selectTrue(batch, rows);
      if (k == n) {
        return batch; // every row passes: hand the batch on as it is
      }
      if (k > 0) {
        return batch.select(rows, k); // a selection: columns are gathered only when read
      }
    }
    return null;
  }
}

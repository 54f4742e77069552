package dev.squall.engine.operator;

import dev.squall.engine.column.Column;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.expr.Evaluator;
import dev.squall.engine.memory.OperatorMemory;
import java.util.List;

/**
 * Keeps the rows whose condition is TRUE (FALSE and NULL are dropped). When its consumer keeps no
 * batch ({@link #consumerKeepsNoBatch()}), each selection is gathered into the previous one's
 * arrays and the selection vector is reused, so a batch costs no allocation once sizes settle.
 */
public final class FilterOperator extends BatchOperator {
  private final BatchOperator input;
  private final Evaluator condition;
  /** Reused selection vector and per-column spare arrays; only used when the consumer keeps no batch. */
  private int[] rows = new int[0];
  private Column[] spare;

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
      boolean recycle = consumerKeepsNoBatch();
      int[] rows = recycle && this.rows.length >= n ? this.rows : new int[n];
      int k = condition.selectTrue(batch, rows);
      if (recycle) {
        this.rows = rows;
      }
      if (k == n) {
        return batch; // every row passes: hand the batch on as it is
      }
      if (k > 0 && !recycle) {
        return batch.select(rows, k); // a selection: columns are gathered only when read
      }
      if (k > 0) {
        if (spare == null) {
          spare = new Column[batch.width()];
        }
        return batch.select(rows, k, spare);
      }
    }
    return null;
  }

  /** The filter keeps no batch itself and hands on its input's batches or selections over them. */
  @Override
  public void promiseConsumerKeepsNoBatch() {
    super.promiseConsumerKeepsNoBatch();
    input.promiseConsumerKeepsNoBatch();
  }
}

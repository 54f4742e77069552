package dev.squall.engine.operator;

import dev.squall.engine.column.Column;
import dev.squall.engine.expr.Casts;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.expr.Evaluator;
import dev.squall.engine.memory.OperatorMemory;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;

/** Computes one output column per expression, a batch at a time. */
public final class ProjectOperator extends BatchOperator {
  private final BatchOperator input;
  private final List<Evaluator> expressions;

  public ProjectOperator(OperatorMemory memory, Schema schema, BatchOperator input, List<Evaluator> expressions) {
    super(memory, schema, List.of(input));
    this.input = input;
    this.expressions = expressions;
  }

  @Override
  protected ColumnBatch produce() {
    ColumnBatch batch = input.next();
    if (batch == null) {
      return null;
    }
    Column[] out = new Column[expressions.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = Casts.cast(expressions.get(i).evaluate(batch), types.get(i));
    }
    return new ColumnBatch(out, batch.rows());
  }

  /** The projection keeps no batch; its output may hold its input's columns, which the promise then covers. */
  @Override
  public void promiseConsumerKeepsNoBatch() {
    super.promiseConsumerKeepsNoBatch();
    input.promiseConsumerKeepsNoBatch();
  }
}

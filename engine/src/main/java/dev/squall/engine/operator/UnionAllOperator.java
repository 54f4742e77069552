package dev.squall.engine.operator;

import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.memory.OperatorMemory;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;

/** The rows of every input, input after input, converted to the output schema's types. */
public final class UnionAllOperator extends BatchOperator {
  private final List<BatchOperator> inputs;
  private int current;

  public UnionAllOperator(OperatorMemory memory, Schema schema, List<BatchOperator> inputs) {
    super(memory, schema, inputs);
    this.inputs = inputs;
  }

  @Override
  protected ColumnBatch produce() {
    while (current < inputs.size()) {
      ColumnBatch batch = inputs.get(current).next();
      if (batch == null) {
        current++;
        continue;
      }
      return CastBatch.to(batch, types);
    }
    return null;
  }
}

package dev.squall.engine.operator;

import dev.squall.engine.column.ArrowColumns;
import dev.squall.engine.column.Column;
import dev.squall.engine.expr.Casts;
import dev.squall.engine.memory.OperatorMemory;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
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
  protected VectorSchemaRoot produce() {
    while (current < inputs.size()) {
      VectorSchemaRoot root = inputs.get(current).next();
      if (root == null) {
        current++;
        continue;
      }
      try (VectorSchemaRoot r = root) {
        Column[] cols = ArrowColumns.read(r);
        for (int i = 0; i < cols.length; i++) {
          cols[i] = Casts.cast(cols[i], types.get(i));
        }
        return toRoot(cols, r.getRowCount());
      }
    }
    return null;
  }
}

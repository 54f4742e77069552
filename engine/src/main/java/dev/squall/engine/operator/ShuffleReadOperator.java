package dev.squall.engine.operator;

import dev.squall.engine.column.ArrowColumns;
import dev.squall.engine.column.Column;
import dev.squall.engine.expr.Casts;
import dev.squall.engine.input.BatchSource;
import dev.squall.engine.memory.OperatorMemory;
import dev.squall.engine.types.SqlType;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Reads a shuffle input: the Arrow batches the shuffle module delivers for this task's partition.
 * Batches whose types already match the output schema are passed on unchanged.
 */
public final class ShuffleReadOperator extends BatchOperator {
  private final BatchSource source;

  public ShuffleReadOperator(OperatorMemory memory, Schema schema, BatchSource source) {
    super(memory, schema, List.of());
    this.source = source;
  }

  @Override
  protected VectorSchemaRoot produce() {
    while (source.hasNext()) {
      VectorSchemaRoot root = source.next();
      if (root.getRowCount() == 0) {
        root.close();
        continue;
      }
      if (root.getFieldVectors().size() != types.size()) {
        int got = root.getFieldVectors().size();
        root.close();
        throw new IllegalStateException("shuffle batch has " + got + " columns, the plan expects " + types.size());
      }
      boolean same = true;
      for (int i = 0; i < types.size(); i++) {
        same &= SqlType.fromArrow(root.getVector(i).getField().getType()).equals(types.get(i));
      }
      if (same) {
        return root;
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

  @Override
  protected void releaseState() {
    source.close();
  }
}

package dev.squall.engine.operator;

import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.input.BatchSource;
import dev.squall.engine.memory.OperatorMemory;
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
  protected ColumnBatch produce() {
    while (source.hasNext()) {
      try (VectorSchemaRoot root = source.next()) {
        if (root.getRowCount() == 0) {
          continue;
        }
        if (root.getFieldVectors().size() != types.size()) {
          throw new IllegalStateException("shuffle batch has " + root.getFieldVectors().size()
              + " columns, the plan expects " + types.size());
        }
        return CastBatch.to(ColumnBatch.fromArrow(root), types);
      }
    }
    return null;
  }

  @Override
  protected void releaseState() {
    source.close();
  }
}

package dev.squall.engine.operator;

import dev.squall.engine.column.ArrowColumns;
import dev.squall.engine.column.Column;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.input.BatchSource;
import dev.squall.engine.memory.OperatorMemory;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Reads a shuffle input: the Arrow batches the shuffle module delivers for this task's partition.
 * Batches whose types already match the output schema are passed on unchanged. When the consumer
 * keeps no batch ({@link #consumerKeepsNoBatch()}), each batch is read into the previous batch's
 * arrays where they are large enough.
 */
public final class ShuffleReadOperator extends BatchOperator {
  private final BatchSource source;
  /** The columns last read from Arrow (before any cast), whose arrays the next read may reuse. */
  private Column[] lastRead;

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
        return CastBatch.to(new ColumnBatch(read(root), root.getRowCount()), types);
      }
    }
    return null;
  }

  private Column[] read(VectorSchemaRoot root) {
    if (!consumerKeepsNoBatch()) {
      return ArrowColumns.read(root);
    }
    Column[] cols = new Column[types.size()];
    for (int i = 0; i < cols.length; i++) {
      cols[i] = ArrowColumns.read(root.getVector(i), lastRead == null ? null : lastRead[i]);
    }
    lastRead = cols.clone();
    return cols;
  }

  @Override
  protected void releaseState() {
    source.close();
  }
}

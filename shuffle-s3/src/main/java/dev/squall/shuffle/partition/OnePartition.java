package dev.squall.shuffle.partition;

import dev.squall.engine.expr.ColumnBatch;
import java.util.Arrays;

/**
 * Every row to partition 0: the map side of single, broadcast and forward edges. The consumer
 * side differs (one reader, every reader, or the reader with the same index), not the output.
 */
final class OnePartition implements Partitioner {
  static final OnePartition INSTANCE = new OnePartition();

  private OnePartition() {}

  @Override
  public int partitionCount() {
    return 1;
  }

  @Override
  public void assign(ColumnBatch batch, int[] out) {
    Arrays.fill(out, 0, batch.rows(), 0);
  }
}

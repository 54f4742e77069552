package dev.squall.shuffle.partition;

import java.util.Arrays;
import org.apache.arrow.vector.VectorSchemaRoot;

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
  public void assign(VectorSchemaRoot batch, int[] out) {
    Arrays.fill(out, 0, batch.getRowCount(), 0);
  }
}

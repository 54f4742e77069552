package dev.squall.shuffle.partition;

import dev.squall.engine.column.Column;
import dev.squall.engine.expr.ColumnBatch;
import java.util.Arrays;
import java.util.List;

/**
 * Hash partitioning: partition = {@code floorMod(hash, n)}, where {@code hash} is the engine's row
 * hash ({@link Column#hashInto}: Murmur3 x86 32-bit of each key column, combined left to right
 * from {@link Column#HASH_SEED}; a NULL key leaves the running hash unchanged). Aggregation and
 * joins hash with the same function, so equal keys meet in one partition on both sides of a join,
 * and a re-run of a map task routes every row as before.
 */
final class HashPartitioner implements Partitioner {
  private final int[] keys;
  private final int partitions;
  private int[] hashes = new int[0];

  HashPartitioner(List<Integer> keys, int partitions) {
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("Hash partitioning needs at least one key column");
    }
    if (partitions < 1) {
      throw new IllegalArgumentException("Invalid hash partition count: " + partitions);
    }
    this.keys = keys.stream().mapToInt(Integer::intValue).toArray();
    this.partitions = partitions;
  }

  @Override
  public int partitionCount() {
    return partitions;
  }

  @Override
  public void assign(ColumnBatch batch, int[] out) {
    int rows = batch.rows();
    if (hashes.length < rows) {
      hashes = new int[rows];
    }
    Arrays.fill(hashes, 0, rows, Column.HASH_SEED);
    for (int key : keys) {
      if (key < 0 || key >= batch.width()) {
        throw new IllegalArgumentException(
            "Hash key column " + key + " is out of range for a batch of " + batch.width() + " columns");
      }
      batch.column(key).hashInto(hashes, rows);
    }
    for (int i = 0; i < rows; i++) {
      out[i] = Math.floorMod(hashes[i], partitions);
    }
  }
}

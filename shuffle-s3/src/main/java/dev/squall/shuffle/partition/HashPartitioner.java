package dev.squall.shuffle.partition;

import dev.squall.engine.hash.Murmur3;

import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Hash partitioning: partition = {@code floorMod(hash, n)} where {@code hash} is
 * {@link RowHasher}'s Murmur3 of the key columns, combined left to right from seed
 * {@link RowHasher#SEED}.
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
  public void assign(VectorSchemaRoot batch, int[] out) {
    int rows = batch.getRowCount();
    if (hashes.length < rows) {
      hashes = new int[rows];
    }
    RowHasher.hashRows(batch, keys, rows, hashes);
    for (int i = 0; i < rows; i++) {
      out[i] = Math.floorMod(hashes[i], partitions);
    }
  }
}

package dev.squall.shuffle.partition;

import dev.squall.engine.expr.ColumnBatch;
import dev.squall.proto.v1.Partitioning;

/**
 * Assigns each row of a batch to one output partition of a shuffle (the map side of an exchange).
 *
 * <p>Build one with {@link #of(Partitioning)}: hash and range edges give {@code n} partitions,
 * single, broadcast and forward edges give one.
 */
public interface Partitioner {
  /** Number of output partitions, at least 1. */
  int partitionCount();

  /**
   * Writes the partition of each row {@code 0..batch.rows()-1} into {@code out}.
   *
   * @param out at least {@code batch.rows()} entries; each receives a value in
   *     {@code [0, partitionCount())}
   * @throws IllegalArgumentException if a key column is missing or of a type the partitioner
   *     cannot handle, naming the column
   */
  void assign(ColumnBatch batch, int[] out);

  /**
   * The partitioner of an edge.
   *
   * @throws IllegalArgumentException if the partitioning is unset or malformed (no hash keys,
   *     a partition count below 1, range bounds that do not number partitions - 1)
   */
  static Partitioner of(Partitioning partitioning) {
    switch (partitioning.getKindCase()) {
      case HASH:
        return new HashPartitioner(partitioning.getHash().getKeysList(), partitioning.getHash().getPartitions());
      case RANGE:
        return new RangePartitioner(partitioning.getRange());
      case SINGLE:
      case BROADCAST:
      case FORWARD:
        return OnePartition.INSTANCE;
      default:
        throw new IllegalArgumentException("Shuffle partitioning is not set: " + partitioning);
    }
  }
}

package dev.squall.shuffle.partition;

import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.SortKey;
import dev.squall.proto.v1.Values;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Range partitioning by sort keys: with {@code n} partitions and bounds {@code b[0] ≤ … ≤ b[n-2]}
 * (in the keys' sort order), a row goes to the first partition {@code i} with {@code row ≤ b[i]},
 * or to partition {@code n-1} when it sorts after every bound. So partition {@code i} holds
 * {@code b[i-1] < row ≤ b[i]}, rows with equal keys meet in one partition, and reading the
 * partitions in order gives the global order. Found by binary search over the bounds per row
 * (O(log n) comparisons).
 *
 * <p>Order per key: ASC or DESC on values; NULLS FIRST or LAST placing nulls before or after every
 * value whatever the direction. Values compare as SQL does: integers and dates numerically,
 * REAL/DOUBLE with -0.0 = 0.0 and NaN after every number, DECIMAL by unscaled value (the bound's
 * scale is the column's), VARCHAR by UTF-8 bytes (code point order), VARBINARY by unsigned bytes.
 */
final class RangePartitioner implements Partitioner {
  private final List<SortKey> keys;
  private final List<Values.Row> bounds;
  private final int partitions;
  private BoundComparator[] comparators;

  RangePartitioner(Partitioning.Range range) {
    this.keys = range.getKeysList();
    this.bounds = range.getBoundsList();
    this.partitions = range.getPartitions();
    if (partitions < 1) {
      throw new IllegalArgumentException("Invalid range partition count: " + partitions);
    }
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("Range partitioning needs at least one sort key");
    }
    if (bounds.size() != partitions - 1) {
      throw new IllegalArgumentException("Range partitioning into " + partitions + " partitions needs "
          + (partitions - 1) + " bounds, got " + bounds.size());
    }
    for (int b = 0; b < bounds.size(); b++) {
      if (bounds.get(b).getValuesCount() != keys.size()) {
        throw new IllegalArgumentException("Range bound " + b + " has " + bounds.get(b).getValuesCount()
            + " values for " + keys.size() + " sort keys");
      }
    }
  }

  @Override
  public int partitionCount() {
    return partitions;
  }

  @Override
  public void assign(VectorSchemaRoot batch, int[] out) {
    bind(batch);
    int rows = batch.getRowCount();
    for (int row = 0; row < rows; row++) {
      int lo = 0;
      int hi = bounds.size(); // answer in [lo, hi]
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (compareRowToBound(row, mid) <= 0) {
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
      out[row] = lo;
    }
  }

  private int compareRowToBound(int row, int bound) {
    for (BoundComparator comparator : comparators) {
      int c = comparator.compare(row, bound);
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  /** Builds comparators on the first batch and points them at this batch's key vectors. */
  private void bind(VectorSchemaRoot batch) {
    if (comparators == null) {
      comparators = new BoundComparator[keys.size()];
      for (int k = 0; k < keys.size(); k++) {
        SortKey key = keys.get(k);
        if (key.getColumn() < 0 || key.getColumn() >= batch.getFieldVectors().size()) {
          throw new IllegalArgumentException("Range key column " + key.getColumn()
              + " is out of range for a batch of " + batch.getFieldVectors().size() + " columns");
        }
        comparators[k] = BoundComparator.create(batch.getVector(key.getColumn()), key, k, bounds);
      }
    }
    for (int k = 0; k < keys.size(); k++) {
      comparators[k].rebind(batch.getVector(keys.get(k).getColumn()));
    }
  }
}

package dev.squall.shuffle.partition;

import dev.squall.engine.column.Column;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.expr.Literals;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.SortKey;
import dev.squall.proto.v1.Values;
import java.util.List;

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
  private Column[] boundColumns;

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
  public void assign(ColumnBatch batch, int[] out) {
    Column[] columns = bind(batch);
    int rows = batch.rows();
    for (int row = 0; row < rows; row++) {
      int lo = 0;
      int hi = bounds.size(); // answer in [lo, hi]
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (compareRowToBound(columns, row, mid) <= 0) {
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
      out[row] = lo;
    }
  }

  /** Row {@code row} against bound {@code b} in the keys' order (direction and NULL placement). */
  private int compareRowToBound(Column[] columns, int row, int b) {
    for (int k = 0; k < columns.length; k++) {
      SortKey key = keys.get(k);
      Column c = columns[k];
      Column bound = boundColumns[k];
      boolean rowNull = c.isNull(row);
      boolean boundNull = bound.isNull(b);
      int cmp;
      if (rowNull || boundNull) {
        // NULLS FIRST/LAST place NULLs whatever the direction.
        cmp = rowNull == boundNull ? 0 : (rowNull == key.getNullsFirst() ? -1 : 1);
      } else {
        cmp = c.compareValues(row, bound, b);
        if (key.getDescending()) {
          cmp = -cmp;
        }
      }
      if (cmp != 0) {
        return cmp;
      }
    }
    return 0;
  }

  /** The batch's key columns; on the first batch also the bounds as columns of the keys' types. */
  private Column[] bind(ColumnBatch batch) {
    Column[] columns = new Column[keys.size()];
    for (int k = 0; k < keys.size(); k++) {
      int col = keys.get(k).getColumn();
      if (col < 0 || col >= batch.width()) {
        throw new IllegalArgumentException("Range key column " + col
            + " is out of range for a batch of " + batch.width() + " columns");
      }
      columns[k] = batch.column(col);
    }
    if (boundColumns == null) {
      boundColumns = new Column[keys.size()];
      for (int k = 0; k < keys.size(); k++) {
        SqlType type = columns[k].type();
        Column bound = Column.empty(type, bounds.size());
        for (int b = 0; b < bounds.size(); b++) {
          try {
            bound.appendFrom(Literals.column(bounds.get(b).getValues(k), type, 1), 0);
          } catch (RuntimeException e) {
            throw new IllegalArgumentException("Range bound " + b + " of sort key " + k + " is not a value of "
                + type + ": " + e.getMessage(), e);
          }
        }
        boundColumns[k] = bound;
      }
    }
    return columns;
  }
}

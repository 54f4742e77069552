package dev.squall.engine.operator.window;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DoubleColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.WindowCall;

/**
 * The rank functions, from the partitions and peer groups alone (frames do not apply), as Trino
 * defines them: ROW_NUMBER, RANK (1 + rows before the peer group), DENSE_RANK (1 + peer groups
 * before), PERCENT_RANK ((rank - 1) / (rows - 1), 0 for a one-row partition), CUME_DIST (rows up to
 * the end of the peer group / rows), NTILE(b) (bucket 1..b; the first rows % b buckets hold one
 * row more). NTILE's b is the call's constant, or read from a column on each row as Trino and
 * DuckDB read it: NULL where b is NULL, a USER_ERROR where it is not positive.
 */
final class RankFunctions {
  private RankFunctions() {}

  /**
   * @param buckets NTILE's bucket count of each row (sorted as the layout), or null when the call
   *     holds it as a constant (its offset)
   */
  static Column compute(WindowCall call, PartitionLayout layout, Column buckets, SqlType type) {
    int rows = layout.peerStart.length;
    boolean doubles = call.getFunction() == WindowCall.Function.PERCENT_RANK
        || call.getFunction() == WindowCall.Function.CUME_DIST;
    long[] longs = doubles ? null : new long[rows];
    double[] fractions = doubles ? new double[rows] : null;
    boolean[] nulls = buckets != null && buckets.mayHaveNulls() ? new boolean[rows] : null;
    for (int p = 0; p < layout.partitions(); p++) {
      int ps = layout.partitionStarts[p];
      int pe = layout.partitionStarts[p + 1];
      long size = pe - ps;
      long dense = 0;
      for (int i = ps; i < pe; i++) {
        int peerStart = layout.peerStart[i];
        if (peerStart == i) {
          dense++;
        }
        long rank = peerStart - ps + 1;
        switch (call.getFunction()) {
          case ROW_NUMBER -> longs[i] = i - ps + 1;
          case RANK -> longs[i] = rank;
          case DENSE_RANK -> longs[i] = dense;
          case PERCENT_RANK -> fractions[i] = size == 1 ? 0.0 : (double) (rank - 1) / (size - 1);
          case CUME_DIST -> fractions[i] = (double) (layout.peerEnd[i] - ps) / size;
          case NTILE -> {
            if (buckets == null) {
              longs[i] = ntile(i - ps, size, call.getOffset());
            } else if (buckets.isNull(i)) {
              nulls[i] = true;
            } else {
              longs[i] = ntile(i - ps, size, ((LongColumn) buckets).value(i));
            }
          }
          default -> throw EngineException.badPlan("not a rank function: " + call.getFunction());
        }
      }
    }
    return doubles ? new DoubleColumn(type, fractions, null, rows) : new LongColumn(type, longs, nulls, rows);
  }

  /** Bucket (1-based) of the row at {@code index} of a partition of {@code size} rows in {@code buckets} buckets. */
  static long ntile(long index, long size, long buckets) {
    if (buckets <= 0) {
      throw EngineException.user("Buckets must be greater than 0"); // Trino's words
    }
    if (buckets >= size) {
      return index + 1;
    }
    long small = size / buckets;
    long large = small + 1;
    long inLarge = (size % buckets) * large;
    return index < inLarge ? index / large + 1 : (index - inLarge) / small + size % buckets + 1;
  }
}

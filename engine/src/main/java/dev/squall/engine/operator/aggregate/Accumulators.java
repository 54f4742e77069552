package dev.squall.engine.operator.aggregate;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.BytesColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.column.DoubleColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.expr.Batch;
import dev.squall.engine.expr.Casts;
import dev.squall.engine.types.SqlType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.Arrays;

/** The accumulators of SUM, COUNT, COUNT(*), COUNT_IF, MIN, MAX and AVG. */
final class Accumulators {
  private Accumulators() {}

  /** SUM(arg): also the FINAL merge of partial sums. */
  static final class Sum implements Accumulator {
    private final int arg;
    private final SqlType out;
    private final SumState sums;

    Sum(int arg, SqlType argType, SqlType out) {
      this.arg = arg;
      this.out = out;
      this.sums = new SumState(sumDomain(argType, out));
    }

    @Override
    public void add(int[] ids, int n, int groups, Batch batch) {
      sums.add(ids, n, groups, batch.column(arg));
    }

    @Override
    public Column[] results(int groups) {
      return new Column[] {sums.result(groups, out)};
    }

    @Override
    public long bytes() {
      return sums.bytes();
    }
  }

  /** The domain a sum is computed in: the output type's, widened to BIGINT / DECIMAL(38, s). */
  static SqlType sumDomain(SqlType argType, SqlType out) {
    if (out.isFloating() || argType.isFloating()) {
      return SqlType.DOUBLE;
    }
    if (out.isDecimal() || argType.isDecimal()) {
      int scale = out.isDecimal() ? out.scale() : argType.scale();
      return SqlType.decimal(38, scale);
    }
    return SqlType.BIGINT;
  }

  /**
   * COUNT(*) (arg &lt; 0), COUNT(arg) of non-NULL values, or — when {@code merge} — the FINAL sum of
   * partial counts. Never NULL.
   */
  static final class Count implements Accumulator {
    private final int arg;
    private final boolean merge;
    private final boolean onlyTrue;
    private final SqlType out;
    private long[] counts = new long[1024];

    Count(int arg, boolean merge, SqlType out) {
      this(arg, merge, false, out);
    }

    /** @param onlyTrue COUNT_IF: counts the rows whose BOOLEAN argument is TRUE */
    Count(int arg, boolean merge, boolean onlyTrue, SqlType out) {
      this.arg = arg;
      this.merge = merge;
      this.onlyTrue = onlyTrue;
      this.out = out;
    }

    @Override
    public void add(int[] ids, int n, int groups, Batch batch) {
      if (groups > counts.length) {
        counts = Arrays.copyOf(counts, Math.max(groups, counts.length * 2));
      }
      if (arg < 0) {
        for (int i = 0; i < n; i++) {
          counts[ids[i]]++;
        }
        return;
      }
      Column c = batch.column(arg);
      if (merge) {
        long[] v = ((LongColumn) c).values();
        for (int i = 0; i < n; i++) {
          if (!c.isNull(i)) {
            counts[ids[i]] += v[i];
          }
        }
      } else if (onlyTrue) {
        dev.squall.engine.column.BoolColumn b = (dev.squall.engine.column.BoolColumn) c;
        for (int i = 0; i < n; i++) {
          if (b.isTrue(i)) {
            counts[ids[i]]++;
          }
        }
      } else {
        for (int i = 0; i < n; i++) {
          if (!c.isNull(i)) {
            counts[ids[i]]++;
          }
        }
      }
    }

    @Override
    public Column[] results(int groups) {
      if (groups > counts.length) {
        counts = Arrays.copyOf(counts, groups);
      }
      return new Column[] {Casts.cast(new LongColumn(SqlType.BIGINT, Arrays.copyOf(counts, groups), null, groups), out)};
    }

    @Override
    public long bytes() {
      return counts.length * 8L;
    }
  }

  /** MIN(arg) or MAX(arg) over any ordered type; NULL for a group without non-NULL input. */
  static final class MinMax implements Accumulator {
    private final int arg;
    private final boolean max;
    private final SqlType out;
    private final Column best;

    MinMax(int arg, boolean max, SqlType out) {
      this.arg = arg;
      this.max = max;
      this.out = out;
      this.best = Column.empty(out, 1024);
    }

    @Override
    public void add(int[] ids, int n, int groups, Batch batch) {
      while (best.size() < groups) {
        best.appendNull();
      }
      Column c = Casts.cast(batch.column(arg), out);
      for (int i = 0; i < n; i++) {
        if (c.isNull(i)) {
          continue;
        }
        int g = ids[i];
        if (best.isNull(g)) {
          best.setFrom(g, c, i);
        } else {
          int cmp = c.compareValues(i, best, g);
          if (max ? cmp > 0 : cmp < 0) {
            best.setFrom(g, c, i);
          }
        }
      }
    }

    @Override
    public Column[] results(int groups) {
      while (best.size() < groups) {
        best.appendNull();
      }
      int[] rows = new int[groups];
      for (int g = 0; g < groups; g++) {
        rows[g] = g;
      }
      return new Column[] {best.gather(rows, groups)};
    }

    @Override
    public long bytes() {
      return best.size() * 12L;
    }
  }

  /**
   * MIN/MAX over VARCHAR or VARBINARY: a group's best value is replaced as better ones arrive, so it
   * is kept as its own array rather than in an append-only {@link BytesColumn}.
   */
  static final class MinMaxBytes implements Accumulator {
    private final int arg;
    private final boolean max;
    private final SqlType out;
    private byte[][] best = new byte[1024][];
    private long heldBytes;

    MinMaxBytes(int arg, boolean max, SqlType out) {
      this.arg = arg;
      this.max = max;
      this.out = out;
    }

    @Override
    public void add(int[] ids, int n, int groups, Batch batch) {
      if (best.length < groups) {
        best = Arrays.copyOf(best, Math.max(groups, best.length * 2));
      }
      BytesColumn c = (BytesColumn) Casts.cast(batch.column(arg), out);
      byte[] data = c.data();
      for (int i = 0; i < n; i++) {
        if (c.isNull(i)) {
          continue;
        }
        int g = ids[i];
        byte[] b = best[g];
        int from = c.offset(i);
        int to = c.offset(i + 1);
        if (b == null || (max ? Arrays.compareUnsigned(data, from, to, b, 0, b.length) > 0
            : Arrays.compareUnsigned(data, from, to, b, 0, b.length) < 0)) {
          heldBytes += (to - from) - (b == null ? -16 : b.length);
          best[g] = Arrays.copyOfRange(data, from, to);
        }
      }
    }

    @Override
    public Column[] results(int groups) {
      return new Column[] {BytesColumn.of(out, Arrays.copyOf(best, groups))};
    }

    @Override
    public long bytes() {
      return best.length * 8L + heldBytes;
    }
  }

  /**
   * AVG: a sum and a count per group. In SINGLE mode it reads the argument and yields sum / count;
   * PARTIAL yields the two columns (sum, count); FINAL reads those two columns (args[0] the sum,
   * args[1] the count) and yields sum / count. Division: DOUBLE result in double; DECIMAL result
   * rounded HALF_UP to its scale; integral result truncated.
   */
  static final class Avg implements Accumulator {
    private final int sumArg;
    private final int countArg; // -1 unless FINAL
    private final boolean partial;
    private final SqlType out;
    private final SqlType partialSumType;
    private final SumState sums;
    private final Count counts;

    Avg(int sumArg, int countArg, SqlType sumInputType, SqlType out, boolean partial, SqlType partialSumType) {
      this.sumArg = sumArg;
      this.countArg = countArg;
      this.partial = partial;
      this.out = out;
      this.partialSumType = partialSumType;
      SqlType domain = sumInputType.isFloating() ? SqlType.DOUBLE
          : sumInputType.isDecimal() ? SqlType.decimal(38, sumInputType.scale()) : SqlType.BIGINT;
      this.sums = new SumState(domain);
      this.counts = new Count(countArg < 0 ? sumArg : countArg, countArg >= 0, SqlType.BIGINT);
    }

    @Override
    public void add(int[] ids, int n, int groups, Batch batch) {
      sums.add(ids, n, groups, batch.column(sumArg));
      counts.add(ids, n, groups, batch);
    }

    @Override
    public Column[] results(int groups) {
      Column count = counts.results(groups)[0];
      if (partial) {
        return new Column[] {sums.result(groups, partialSumType), count};
      }
      long[] c = ((LongColumn) count).values();
      Column col = Column.empty(out, groups);
      for (int g = 0; g < groups; g++) {
        if (c[g] == 0 || sums.isNull(g)) {
          col.appendNull();
          continue;
        }
        Column one;
        if (out.isFloating()) {
          one = new DoubleColumn(SqlType.DOUBLE, new double[] {sums.asDouble(g) / c[g]}, null, 1);
        } else if (out.isDecimal()) {
          BigDecimal q = sums.type().isFloating()
              ? BigDecimal.valueOf(sums.asDouble(g) / c[g])
              : sums.decimal(g).divide(BigDecimal.valueOf(c[g]), out.scale(), RoundingMode.HALF_UP);
          BigInteger u = q.setScale(out.scale(), RoundingMode.HALF_UP).unscaledValue();
          DecimalColumn d = new DecimalColumn(out, new long[1], null, null, 1);
          d.setBig(0, u);
          one = d;
        } else if (out.isIntegral()) {
          one = new LongColumn(SqlType.BIGINT, new long[] {sums.type().isIntegral() ? sums.asLong(g) / c[g]
              : (long) (sums.asDouble(g) / c[g])}, null, 1);
        } else {
          throw EngineException.badPlan("AVG of type " + out);
        }
        col.appendFrom(Casts.cast(one, out), 0);
      }
      return new Column[] {col};
    }

    @Override
    public long bytes() {
      return sums.bytes() + counts.bytes();
    }
  }
}

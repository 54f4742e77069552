package dev.squall.engine.operator.window;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.column.DoubleColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.WindowCall;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.ArrayDeque;

/**
 * SUM, SUM0, AVG, COUNT, COUNT(*), MIN and MAX over each row's frame, in time linear in the
 * partition whatever the frame: sums and counts as differences of prefix sums over the partition
 * (integers exact, overflow an error; DECIMAL as exact unscaled values; DOUBLE as double-double
 * prefix sums, so that a difference keeps the precision of a direct sum), MIN and MAX with a
 * monotonic deque of candidate rows, which works because frame bounds never decrease from one row
 * to the next.
 */
final class FrameAggregates {
  private FrameAggregates() {}

  static Column compute(WindowCall call, PartitionLayout layout, FrameBounds frames, Column arg, SqlType type) {
    int rows = layout.peerStart.length;
    Column out = Column.empty(type, rows);
    for (int p = 0; p < layout.partitions(); p++) {
      int ps = layout.partitionStarts[p];
      int pe = layout.partitionStarts[p + 1];
      switch (call.getFunction()) {
        case COUNT_STAR -> {
          for (int i = ps; i < pe; i++) {
            ((LongColumn) out).append(Math.max(0, frames.end[i] - frames.start[i]));
          }
        }
        case MIN, MAX -> extremes(call.getFunction() == WindowCall.Function.MAX, ps, pe, frames, arg, out);
        case SUM, SUM0, AVG, COUNT -> sums(call.getFunction(), ps, pe, frames, arg, out);
        default -> throw EngineException.badPlan("not a window aggregate: " + call.getFunction());
      }
    }
    return out;
  }

  private static void extremes(boolean max, int ps, int pe, FrameBounds frames, Column arg, Column out) {
    ArrayDeque<Integer> candidates = new ArrayDeque<>();
    int next = ps;
    for (int i = ps; i < pe; i++) {
      int fs = frames.start[i];
      int fe = frames.end[i];
      if (fe < next) {
        throw new IllegalStateException("window frame end moved back");
      }
      for (; next < fe; next++) {
        if (arg.isNull(next)) {
          continue;
        }
        while (!candidates.isEmpty() && worseOrEqual(arg, candidates.peekLast(), next, max)) {
          candidates.pollLast();
        }
        candidates.addLast(next);
      }
      while (!candidates.isEmpty() && candidates.peekFirst() < fs) {
        candidates.pollFirst();
      }
      if (candidates.isEmpty()) {
        out.appendNull();
      } else {
        out.appendFrom(arg, candidates.peekFirst());
      }
    }
  }

  /** Whether the earlier candidate {@code kept} can never again be the answer once {@code row} is in. */
  private static boolean worseOrEqual(Column arg, int kept, int row, boolean max) {
    int c = arg.compareValues(kept, arg, row);
    return max ? c <= 0 : c >= 0;
  }

  private static void sums(WindowCall.Function function, int ps, int pe, FrameBounds frames, Column arg, Column out) {
    int n = pe - ps;
    long[] counts = new long[n + 1];
    for (int j = 0; j < n; j++) {
      counts[j + 1] = counts[j] + (arg.isNull(ps + j) ? 0 : 1);
    }
    PrefixSums sums = function == WindowCall.Function.COUNT ? null : new PrefixSums(arg, ps, pe);
    for (int i = ps; i < pe; i++) {
      int fs = Math.min(frames.start[i], frames.end[i]) - ps;
      int fe = frames.end[i] - ps;
      long count = counts[fe] - counts[fs];
      switch (function) {
        case COUNT -> ((LongColumn) out).append(count);
        case SUM, SUM0 -> {
          if (count == 0 && function == WindowCall.Function.SUM) {
            out.appendNull();
          } else {
            sums.appendSum(fs, fe, out);
          }
        }
        case AVG -> {
          if (count == 0) {
            out.appendNull();
          } else {
            sums.appendAverage(fs, fe, count, out);
          }
        }
        default -> throw new IllegalStateException();
      }
    }
  }

  /**
   * Prefix sums of one partition's non-NULL values: {@code sum(a, b)} of the rows a..b) relative to
   * the partition start.
   */
  private static final class PrefixSums {
    private final Column arg;
    private long[] longs;
    private BigInteger[] wide;
    private double[] high;
    private double[] low;

    PrefixSums(Column arg, int ps, int pe) {
      this.arg = arg;
      int n = pe - ps;
      SqlType t = arg.type();
      if (t.isFloating()) {
        high = new double[n + 1];
        low = new double[n + 1];
        DoubleColumn d = (DoubleColumn) arg;
        for (int j = 0; j < n; j++) {
          double x = d.isNull(ps + j) ? 0.0 : d.value(ps + j);
          // Knuth's two-sum: the rounding error of each addition is carried in the low part.
          double s = high[j] + x;
          double bb = s - high[j];
          double err = (high[j] - (s - bb)) + (x - bb);
          high[j + 1] = s;
          low[j + 1] = low[j] + err;
        }
      } else if (t.isIntegral() || t.isDecimal()) {
        longs = new long[n + 1];
        for (int j = 0; j < n && wide == null; j++) {
          int r = ps + j;
          if (arg.isNull(r)) {
            longs[j + 1] = longs[j];
          } else if (arg instanceof DecimalColumn d && d.isBig(r)) {
            widen(ps, pe);
          } else {
            long v = arg instanceof DecimalColumn d ? d.unscaledLong(r) : ((LongColumn) arg).value(r);
            try {
              longs[j + 1] = Math.addExact(longs[j], v);
            } catch (ArithmeticException e) {
              widen(ps, pe);
            }
          }
        }
      } else {
        throw EngineException.badPlan("window SUM/AVG of type " + t);
      }
    }

    /** Prefix sums as BigIntegers when a long would overflow (the frame sums are checked later). */
    private void widen(int ps, int pe) {
      int n = pe - ps;
      wide = new BigInteger[n + 1];
      wide[0] = BigInteger.ZERO;
      for (int j = 0; j < n; j++) {
        int r = ps + j;
        BigInteger v = arg.isNull(r) ? BigInteger.ZERO
            : arg instanceof DecimalColumn d ? d.unscaledBig(r) : BigInteger.valueOf(((LongColumn) arg).value(r));
        wide[j + 1] = wide[j].add(v);
      }
      longs = null;
    }

    private double doubleSum(int a, int b) {
      return (high[b] - high[a]) + (low[b] - low[a]);
    }

    private BigInteger exactSum(int a, int b) {
      return longs != null ? BigInteger.valueOf(longs[b] - longs[a]) : wide[b].subtract(wide[a]);
    }

    void appendSum(int a, int b, Column out) {
      SqlType to = out.type();
      if (high != null) {
        ((DoubleColumn) out).append(doubleSum(a, b));
        return;
      }
      BigInteger sum = exactSum(a, b);
      switch (to.physical()) {
        case LONG -> {
          if (sum.bitLength() >= 64) {
            throw EngineException.user("Window SUM overflows " + to);
          }
          ((LongColumn) out).append(sum.longValue());
        }
        case DECIMAL -> ((DecimalColumn) out).appendUnscaled(
            new BigDecimal(sum, arg.type().scale()).setScale(to.scale(), RoundingMode.HALF_UP).unscaledValue());
        case DOUBLE -> ((DoubleColumn) out).append(new BigDecimal(sum, arg.type().scale()).doubleValue());
        default -> throw EngineException.badPlan("window SUM of type " + to);
      }
    }

    void appendAverage(int a, int b, long count, Column out) {
      SqlType to = out.type();
      if (high != null) {
        ((DoubleColumn) out).append(doubleSum(a, b) / count);
        return;
      }
      BigDecimal sum = new BigDecimal(exactSum(a, b), arg.type().scale());
      switch (to.physical()) {
        case DOUBLE -> ((DoubleColumn) out).append(sum.doubleValue() / count);
        case DECIMAL -> ((DecimalColumn) out).appendUnscaled(
            sum.divide(BigDecimal.valueOf(count), to.scale(), RoundingMode.HALF_UP).unscaledValue());
        case LONG -> ((LongColumn) out).append(sum.divide(BigDecimal.valueOf(count), 0, RoundingMode.DOWN).longValueExact());
        default -> throw EngineException.badPlan("window AVG of type " + to);
      }
    }
  }
}

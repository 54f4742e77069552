package dev.squall.engine.operator.aggregate;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.column.DoubleColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.expr.Casts;
import dev.squall.engine.expr.Decimals;
import dev.squall.engine.types.SqlType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;

/**
 * Per-group sums in the domain of a sum type: exact long (integral; overflow is an error), double,
 * or unscaled decimal at the type's scale: a long, then a 128-bit two's-complement pair
 * ({@code highs[g]}, {@code longs[g]}) once some group leaves the long range (sums of DECIMAL(38)
 * values fit), and a BigInteger only past 128 bits or for inputs beyond the long range. A group
 * with no non-NULL input has a NULL sum.
 */
final class SumState {
  private final SqlType sumType;
  private long[] longs = new long[1024];
  private double[] doubles;
  private BigInteger[] wide;
  /** High words of 128-bit decimal sums (low words in {@code longs}); null while every sum fits a long. */
  private long[] highs;
  private boolean[] seen = new boolean[1024];
  /**
   * A bound on the magnitude of every long decimal sum while no group has left the long range
   * (the sum of the input bounds so far), so that a batch whose values cannot overflow any group
   * is added without a check per row.
   */
  private long longSumBound;

  SumState(SqlType sumType) {
    this.sumType = sumType;
    if (sumType.isFloating()) {
      doubles = new double[1024];
    } else if (!sumType.isIntegral() && !sumType.isDecimal()) {
      throw EngineException.badPlan("SUM of type " + sumType);
    }
  }

  SqlType type() {
    return sumType;
  }

  private void ensure(int groups) {
    if (groups > seen.length) {
      int c = Math.max(groups, seen.length * 2);
      seen = Arrays.copyOf(seen, c);
      longs = Arrays.copyOf(longs, c);
      if (doubles != null) {
        doubles = Arrays.copyOf(doubles, c);
      }
      if (wide != null) {
        wide = Arrays.copyOf(wide, c);
      }
      if (highs != null) {
        highs = Arrays.copyOf(highs, c);
      }
    }
  }

  void add(int[] ids, int n, int groups, Column arg) {
    ensure(groups);
    if (sumType.isFloating()) {
      DoubleColumn c = (DoubleColumn) Casts.cast(arg, SqlType.DOUBLE);
      double[] v = c.values();
      for (int i = 0; i < n; i++) {
        if (!c.isNull(i)) {
          doubles[ids[i]] += v[i];
          seen[ids[i]] = true;
        }
      }
    } else if (sumType.isIntegral()) {
      LongColumn c = (LongColumn) arg;
      long[] v = c.values();
      try {
        for (int i = 0; i < n; i++) {
          if (!c.isNull(i)) {
            int g = ids[i];
            longs[g] = Math.addExact(longs[g], v[i]);
            seen[g] = true;
          }
        }
      } catch (ArithmeticException e) {
        throw EngineException.user("numeric overflow: SUM out of range for " + sumType);
      }
    } else {
      DecimalColumn c = (DecimalColumn) Casts.cast(arg, SqlType.decimal(38, sumType.scale()));
      long[] v = c.unscaledValues();
      if (addWithoutOverflow(ids, n, c, v)) {
        return;
      }
      for (int i = 0; i < n; i++) {
        if (c.isNull(i)) {
          continue;
        }
        int g = ids[i];
        seen[g] = true;
        if ((wide == null || wide[g] == null) && !c.isBig(i)) {
          long x = v[i];
          long lo = longs[g];
          long r = lo + x;
          if (highs == null) {
            // Overflow iff both operands have the sign opposite to the result (Hacker's Delight 2-13).
            if (((lo ^ r) & (x ^ r)) >= 0) {
              longs[g] = r;
              continue;
            }
            highs = new long[longs.length];
            for (int k = 0; k < longs.length; k++) {
              highs[k] = longs[k] >> 63;
            }
          }
          // 128-bit add of the sign-extended value: carry out of the unsigned low words.
          long carry = Long.compareUnsigned(r, lo) < 0 ? 1 : 0;
          try {
            highs[g] = Math.addExact(Math.addExact(highs[g], x >> 63), carry);
            longs[g] = r;
            continue;
          } catch (ArithmeticException e) {
            // past 128 bits: BigInteger below
          }
        }
        if (wide == null) {
          wide = new BigInteger[longs.length];
        }
        BigInteger cur = wide[g] != null ? wide[g] : unscaled(g);
        wide[g] = cur.add(c.unscaledBig(i));
      }
    }
  }

  /**
   * Adds a batch of long decimals with one check for the batch instead of one per row: when the
   * sums so far and the batch's values together stay below 2^62 in magnitude, no group's sum can
   * leave the long range. False (nothing added) when that cannot be shown.
   */
  private boolean addWithoutOverflow(int[] ids, int n, DecimalColumn c, long[] v) {
    long limit = 1L << 62;
    if (n == 0) {
      return true;
    }
    long b = highs != null || wide != null || c.hasBig() ? limit : Decimals.bound(v, n);
    if (b >= limit / n || longSumBound >= limit - b * n) {
      longSumBound = limit; // the rows take the checked path, which keeps no bound: for good
      return false;
    }
    longSumBound += b * n;
    boolean[] nulls = c.nullMask();
    if (nulls == null) {
      for (int i = 0; i < n; i++) {
        int g = ids[i];
        longs[g] += v[i];
        seen[g] = true;
      }
    } else {
      for (int i = 0; i < n; i++) {
        int g = ids[i];
        boolean present = !nulls[i];
        longs[g] += present ? v[i] : 0;
        seen[g] |= present;
      }
    }
    return true;
  }

  /** The long or 128-bit sum of group g (not its BigInteger, see {@code wide}). */
  private BigInteger unscaled(int g) {
    if (highs == null || highs[g] == longs[g] >> 63) {
      return BigInteger.valueOf(longs[g]);
    }
    return BigInteger.valueOf(highs[g]).shiftLeft(64).add(new BigInteger(Long.toUnsignedString(longs[g])));
  }

  /** Whether group g has had no non-NULL input (its sum is NULL). */
  boolean isNull(int g) {
    return !seen[g];
  }

  /** Sum of group g as an exact decimal (integral and decimal domains) or double. */
  BigDecimal decimal(int g) {
    if (sumType.isDecimal()) {
      return new BigDecimal(wide != null && wide[g] != null ? wide[g] : unscaled(g), sumType.scale());
    }
    return BigDecimal.valueOf(longs[g]);
  }

  double asDouble(int g) {
    if (doubles != null) {
      return doubles[g];
    }
    return sumType.isIntegral() ? (double) longs[g] : decimal(g).doubleValue();
  }

  long asLong(int g) {
    return longs[g];
  }

  /** The sums as a column of {@code out} type (integral range and decimal precision are checked). */
  Column result(int groups, SqlType out) {
    boolean[] nulls = new boolean[groups];
    for (int g = 0; g < groups; g++) {
      nulls[g] = !seen[g];
    }
    Column col;
    if (doubles != null) {
      col = new DoubleColumn(SqlType.DOUBLE, Arrays.copyOf(doubles, groups), nulls, groups);
    } else if (sumType.isIntegral()) {
      col = new LongColumn(SqlType.BIGINT, Arrays.copyOf(longs, groups), nulls, groups);
    } else {
      DecimalColumn d = new DecimalColumn(SqlType.decimal(38, sumType.scale()), new long[groups], null, nulls, groups);
      for (int g = 0; g < groups; g++) {
        if ((wide != null && wide[g] != null) || (highs != null && highs[g] != longs[g] >> 63)) {
          BigInteger sum = wide != null && wide[g] != null ? wide[g] : unscaled(g);
          if (!dev.squall.engine.expr.Decimals.fits(sum, 38)) {
            throw EngineException.user("numeric overflow: SUM out of range for " + out);
          }
          d.setBig(g, sum);
        } else {
          d.setLong(g, longs[g]);
        }
      }
      col = d;
    }
    return Casts.cast(col, out);
  }

  long bytes() {
    return seen.length * (doubles != null ? 17L : 9L) + (wide == null ? 0 : wide.length * 8L)
        + (highs == null ? 0 : highs.length * 8L);
  }
}

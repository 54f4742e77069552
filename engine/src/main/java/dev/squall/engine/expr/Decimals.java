package dev.squall.engine.expr;

import dev.squall.engine.EngineException;
import dev.squall.engine.types.SqlType;
import java.math.BigInteger;

/** Unscaled-integer decimal helpers: powers of ten, rescaling with HALF_UP rounding, precision checks. */
public final class Decimals {
  private Decimals() {}

  static final long[] POW10 = new long[19];
  static final BigInteger[] BIG_POW10 = new BigInteger[80];

  static {
    POW10[0] = 1;
    for (int i = 1; i < POW10.length; i++) {
      POW10[i] = POW10[i - 1] * 10;
    }
    BIG_POW10[0] = BigInteger.ONE;
    for (int i = 1; i < BIG_POW10.length; i++) {
      BIG_POW10[i] = BIG_POW10[i - 1].multiply(BigInteger.TEN);
    }
  }

  public static BigInteger bigPow10(int n) {
    return BIG_POW10[n];
  }

  /**
   * Rescales an unscaled long from scale {@code from} to {@code to}; rounding HALF_UP (away from
   * zero at .5) when the scale shrinks.
   *
   * @throws ArithmeticException when the result does not fit a long
   */
  public static long rescale(long v, int from, int to) {
    if (to == from) {
      return v;
    }
    if (to > from) {
      int d = to - from;
      if (d >= POW10.length) {
        throw new ArithmeticException("overflow");
      }
      return Math.multiplyExact(v, POW10[d]);
    }
    int d = from - to;
    if (d >= POW10.length) {
      return 0;
    }
    long p = POW10[d];
    long q = v / p;
    long r = v % p;
    if (Math.abs(r) * 2 >= p) {
      q += v < 0 ? -1 : 1;
    }
    return q;
  }

  public static BigInteger rescale(BigInteger v, int from, int to) {
    if (to == from) {
      return v;
    }
    if (to > from) {
      return v.multiply(BIG_POW10[to - from]);
    }
    BigInteger[] qr = v.divideAndRemainder(BIG_POW10[from - to]);
    BigInteger q = qr[0];
    if (qr[1].abs().shiftLeft(1).compareTo(BIG_POW10[from - to]) >= 0) {
      q = v.signum() < 0 ? q.subtract(BigInteger.ONE) : q.add(BigInteger.ONE);
    }
    return q;
  }

  /** Whether an unscaled long has at most {@code precision} digits. */
  public static boolean fits(long v, int precision) {
    if (precision >= 19) {
      return true;
    }
    long limit = POW10[precision];
    return v < limit && v > -limit;
  }

  public static boolean fits(BigInteger v, int precision) {
    return v.abs().compareTo(BIG_POW10[precision]) < 0;
  }

  static EngineException overflow(SqlType type) {
    return EngineException.user("numeric overflow: value out of range for " + type);
  }
}

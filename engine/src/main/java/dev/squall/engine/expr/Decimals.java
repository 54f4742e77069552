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

  /**
   * The unsigned quotient of the 128-bit {@code (u1 * 2^64 + u0)} by {@code v}, for unsigned
   * {@code u1 < v} (so that it fits 64 bits); the remainder goes to {@code remainder[0]}. Knuth's
   * algorithm D on 32-bit digits, as in Hacker's Delight (2nd ed., figure 9-3, {@code divlu}).
   */
  static long divideUnsigned128(long u1, long u0, long v, long[] remainder) {
    final long b = 1L << 32;
    int s = Long.numberOfLeadingZeros(v);
    v <<= s;
    long vn1 = v >>> 32;
    long vn0 = v & 0xFFFFFFFFL;
    long un32 = s == 0 ? u1 : (u1 << s) | (u0 >>> (64 - s));
    long un10 = u0 << s;
    long un1 = un10 >>> 32;
    long un0 = un10 & 0xFFFFFFFFL;
    long q1 = Long.divideUnsigned(un32, vn1);
    long rhat = Long.remainderUnsigned(un32, vn1);
    while (Long.compareUnsigned(q1, b) >= 0 || Long.compareUnsigned(q1 * vn0, b * rhat + un1) > 0) {
      q1--;
      rhat += vn1;
      if (Long.compareUnsigned(rhat, b) >= 0) {
        break;
      }
    }
    long un21 = un32 * b + un1 - q1 * v;
    long q0 = Long.divideUnsigned(un21, vn1);
    rhat = Long.remainderUnsigned(un21, vn1);
    while (Long.compareUnsigned(q0, b) >= 0 || Long.compareUnsigned(q0 * vn0, b * rhat + un0) > 0) {
      q0--;
      rhat += vn1;
      if (Long.compareUnsigned(rhat, b) >= 0) {
        break;
      }
    }
    remainder[0] = (un21 * b + un0 - q0 * v) >>> s;
    return q1 * b + q0;
  }

  /**
   * A bound {@code b >= |v[i]|} over rows {@code [0, n)} (NULL rows too: their values are finite),
   * at most twice the largest magnitude: one plus the OR of each value's magnitude (one's
   * complement for negatives, so no branch). {@code Long.MAX_VALUE} when a value is
   * {@code MIN_VALUE}.
   */
  public static long bound(long[] v, int n) {
    long or = 0;
    for (int i = 0; i < n; i++) {
      long a = v[i];
      or |= a ^ (a >> 63);
    }
    return or == Long.MAX_VALUE ? Long.MAX_VALUE : or + 1;
  }
}

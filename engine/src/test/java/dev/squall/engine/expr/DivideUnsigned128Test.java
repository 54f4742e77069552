package dev.squall.engine.expr;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The 128/64-bit unsigned division against BigInteger, on random and edge operands. */
class DivideUnsigned128Test {
  private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

  private static BigInteger unsigned(long v) {
    return new BigInteger(Long.toUnsignedString(v));
  }

  private static void check(long u1, long u0, long v) {
    BigInteger u = unsigned(u1).multiply(TWO_64).add(unsigned(u0));
    BigInteger[] qr = u.divideAndRemainder(unsigned(v));
    long[] r = new long[1];
    long q = Decimals.divideUnsigned128(u1, u0, v, r);
    assertThat(unsigned(q)).as("%s / %s", u, unsigned(v)).isEqualTo(qr[0]);
    assertThat(unsigned(r[0])).isEqualTo(qr[1]);
  }

  @Test
  void matchesBigIntegerOnRandomOperands() {
    Random rnd = new Random(5);
    for (int i = 0; i < 200_000; i++) {
      long v = rnd.nextLong() >>> rnd.nextInt(64);
      if (v == 0) {
        v = 1;
      }
      long u1 = Long.remainderUnsigned(rnd.nextLong() >>> rnd.nextInt(64), v); // u1 < v
      check(u1, rnd.nextLong(), v);
    }
  }

  @Test
  void edges() {
    check(0, 0, 1);
    check(0, -1L, 1);
    check(0, -1L, -1L);
    check(-2L, -1L, -1L); // largest dividend with u1 < v
    check(1, 0, 2);
    check(0x7FFFFFFFL, 0xFFFFFFFF00000000L, 0x80000000L);
    check(0xFFFFFFFEL, 0, 0xFFFFFFFFL);
    check(Long.MAX_VALUE, -1L, Long.MIN_VALUE);
  }
}

package dev.squall.engine.runtimefilter;

/**
 * Listed long keys as one bit per value of their range {@code [min, max]}: a membership test is a
 * shift and a word load, where a hash set takes a hash, a probe sequence and a cache miss or two.
 * Worth it for keys dense in their range, as the keys of a filtered dimension or fact table are
 * (Q5's order keys of one year: 23 K keys over a range of 600 K at TPC-H SF 0.1).
 */
final class LongKeyBitmap {
  /** Most bits of range a bitmap may take per listed key (a set holds two to four 9-byte slots). */
  static final long MAX_BITS_PER_KEY = 64;
  /** Most bits a bitmap may take in all: 1 MiB, so that it stays in the CPU's caches. */
  static final long MAX_BITS = 8L << 20;

  private final long min;
  private final long[] words;

  private LongKeyBitmap(long min, long bits) {
    this.min = min;
    this.words = new long[(int) ((bits + 63) >>> 6)];
  }

  /**
   * A bitmap of {@code keys} over {@code [min, max]}, or null when the range takes more than
   * {@link #MAX_BITS_PER_KEY} bits per key or {@link #MAX_BITS} in all.
   *
   * @param keys every one within {@code [min, max]}
   */
  static LongKeyBitmap of(long min, long max, long[] keys) {
    // The width of the range without overflow: a negative difference means it passes 2^63.
    long span = max - min;
    if (keys.length == 0 || span < 0 || span >= MAX_BITS || span + 1 > MAX_BITS_PER_KEY * keys.length) {
      return null;
    }
    LongKeyBitmap bitmap = new LongKeyBitmap(min, span + 1);
    for (long key : keys) {
      long bit = key - bitmap.min;
      bitmap.words[(int) (bit >>> 6)] |= 1L << bit;
    }
    return bitmap;
  }

  /** Whether {@code key}, which must lie within the bitmap's {@code [min, max]}, is listed. */
  boolean contains(long key) {
    long bit = key - min;
    return (words[(int) (bit >>> 6)] & (1L << bit)) != 0;
  }
}

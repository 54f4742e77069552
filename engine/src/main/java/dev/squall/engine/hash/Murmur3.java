package dev.squall.engine.hash;

import org.apache.arrow.memory.ArrowBuf;

/**
 * MurmurHash3, x86 32-bit variant, as published by Austin Appleby in {@code MurmurHash3.cpp}
 * (SMHasher, public domain): 4-byte little-endian blocks, constants c1 = 0xcc9e2d51,
 * c2 = 0x1b873593, final avalanche {@code fmix32}.
 *
 * <p>{@link #hashLong} equals {@link #hashBytes} over the value's 8 little-endian bytes, and
 * {@link #hashInt} over its 4 little-endian bytes, so the three agree with the reference function.
 * Each call takes the running hash as its seed, which is how several key columns are combined
 * (as Spark's {@code Murmur3Hash} expression does).
 */
public final class Murmur3 {
  private static final int C1 = 0xcc9e2d51;
  private static final int C2 = 0x1b873593;

  private Murmur3() {}

  /** Hash of the 4 little-endian bytes of {@code value}. */
  public static int hashInt(int value, int seed) {
    int h1 = mixH1(seed, mixK1(value));
    return fmix(h1, 4);
  }

  /** Hash of the 8 little-endian bytes of {@code value}. */
  public static int hashLong(long value, int seed) {
    int h1 = mixH1(seed, mixK1((int) value));
    h1 = mixH1(h1, mixK1((int) (value >>> 32)));
    return fmix(h1, 8);
  }

  /** Hash of {@code length} bytes of {@code bytes} from {@code offset}. */
  public static int hashBytes(byte[] bytes, int offset, int length, int seed) {
    int h1 = seed;
    int blocks = length & ~3;
    for (int i = 0; i < blocks; i += 4) {
      int k1 = (bytes[offset + i] & 0xff)
          | (bytes[offset + i + 1] & 0xff) << 8
          | (bytes[offset + i + 2] & 0xff) << 16
          | (bytes[offset + i + 3] & 0xff) << 24;
      h1 = mixH1(h1, mixK1(k1));
    }
    int k1 = 0;
    switch (length & 3) {
      case 3:
        k1 ^= (bytes[offset + blocks + 2] & 0xff) << 16;
        // fall through
      case 2:
        k1 ^= (bytes[offset + blocks + 1] & 0xff) << 8;
        // fall through
      case 1:
        k1 ^= bytes[offset + blocks] & 0xff;
        h1 ^= mixK1(k1);
        break;
      default:
        break;
    }
    return fmix(h1, length);
  }

  /** Hash of {@code length} bytes of an Arrow buffer from byte {@code start}, without copying. */
  public static int hashBytes(ArrowBuf buf, long start, int length, int seed) {
    int h1 = seed;
    int blocks = length & ~3;
    for (int i = 0; i < blocks; i += 4) {
      // ArrowBuf reads in native order; Arrow only runs on little-endian platforms.
      h1 = mixH1(h1, mixK1(buf.getInt(start + i)));
    }
    int k1 = 0;
    switch (length & 3) {
      case 3:
        k1 ^= (buf.getByte(start + blocks + 2) & 0xff) << 16;
        // fall through
      case 2:
        k1 ^= (buf.getByte(start + blocks + 1) & 0xff) << 8;
        // fall through
      case 1:
        k1 ^= buf.getByte(start + blocks) & 0xff;
        h1 ^= mixK1(k1);
        break;
      default:
        break;
    }
    return fmix(h1, length);
  }

  private static int mixK1(int k1) {
    k1 *= C1;
    k1 = Integer.rotateLeft(k1, 15);
    return k1 * C2;
  }

  private static int mixH1(int h1, int k1) {
    h1 ^= k1;
    h1 = Integer.rotateLeft(h1, 13);
    return h1 * 5 + 0xe6546b64;
  }

  private static int fmix(int h1, int length) {
    h1 ^= length;
    h1 ^= h1 >>> 16;
    h1 *= 0x85ebca6b;
    h1 ^= h1 >>> 13;
    h1 *= 0xc2b2ae35;
    h1 ^= h1 >>> 16;
    return h1;
  }
}

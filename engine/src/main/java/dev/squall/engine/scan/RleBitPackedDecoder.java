package dev.squall.engine.scan;

import java.util.Arrays;

/**
 * Decoder of Parquet's RLE / bit-packing hybrid encoding (parquet-format {@code Encodings.md},
 * "Run Length Encoding / Bit-Packing Hybrid"), used for definition levels, dictionary ids and RLE
 * booleans. The input is a sequence of runs, each led by a ULEB128 header: an even header
 * {@code h} is an RLE run of {@code h >>> 1} copies of one value stored in {@code ceil(width / 8)}
 * little-endian bytes; an odd header is {@code h >>> 1} groups of 8 values bit-packed
 * least-significant bit first. A decoder is reused: {@link #init} points it at new bytes.
 */
final class RleBitPackedDecoder {
  private static final java.lang.invoke.VarHandle LONG_LE =
      java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
  private byte[] buf;
  private int pos;
  private int end;
  private int bitWidth;
  private int byteWidth;
  private boolean rle;
  private int runLeft;
  private int rleValue;
  private int[] packed = new int[512];
  private int packedAt;

  /** Points the decoder at {@code buf[pos .. end)} holding values of {@code bitWidth} (0..32) bits. */
  void init(byte[] buf, int pos, int end, int bitWidth) {
    if (bitWidth < 0 || bitWidth > 32) {
      throw ParquetScanException.corrupt("bit width " + bitWidth + " is outside 0..32");
    }
    this.buf = buf;
    this.pos = pos;
    this.end = end;
    this.bitWidth = bitWidth;
    this.byteWidth = (bitWidth + 7) >>> 3;
    this.runLeft = 0;
  }

  /** Decodes the next {@code n} values into {@code out[off .. off + n)}. */
  void readInts(int[] out, int off, int n) {
    while (n > 0) {
      if (runLeft == 0) {
        nextRun();
      }
      int k = Math.min(n, runLeft);
      if (rle) {
        Arrays.fill(out, off, off + k, rleValue);
      } else {
        System.arraycopy(packed, packedAt, out, off, k);
        packedAt += k;
      }
      off += k;
      n -= k;
      runLeft -= k;
    }
  }

  /**
   * Decodes the next {@code n} definition levels of a flat optional column (maximum level 1):
   * {@code isNull[off + i]} becomes whether row i is NULL (level 0).
   *
   * @return the number of non-null rows among the n
   */
  int readNulls(boolean[] isNull, int off, int n) {
    int defined = 0;
    while (n > 0) {
      if (runLeft == 0) {
        nextRun();
      }
      int k = Math.min(n, runLeft);
      if (rle) {
        boolean nul = rleValue == 0;
        Arrays.fill(isNull, off, off + k, nul);
        if (!nul) {
          defined += k;
        }
      } else {
        int[] p = packed;
        int at = packedAt;
        for (int i = 0; i < k; i++) {
          boolean nul = p[at + i] == 0;
          isNull[off + i] = nul;
          defined += nul ? 0 : 1;
        }
        packedAt += k;
      }
      off += k;
      n -= k;
      runLeft -= k;
    }
    return defined;
  }

  private void nextRun() {
    if (pos >= end) {
      throw ParquetScanException.corrupt("RLE/bit-packed data ends before all values were read");
    }
    int header = readUleb128();
    if ((header & 1) == 0) {
      rle = true;
      runLeft = header >>> 1;
      int v = 0;
      for (int b = 0; b < byteWidth; b++) {
        v |= (buf[pos + b] & 0xFF) << (8 * b);
      }
      pos += byteWidth;
      rleValue = v;
    } else {
      rle = false;
      int groups = header >>> 1;
      int count = groups * 8;
      if (packed.length < count) {
        packed = new int[Math.max(count, packed.length * 2)];
      }
      unpack(count);
      pos += groups * bitWidth;
      runLeft = count;
      packedAt = 0;
    }
    if (runLeft == 0) {
      nextRun();
    }
  }

  /** Unpacks {@code count} values LSB first; bytes past the end (a truncated last group) read as 0. */
  private void unpack(int count) {
    int[] out = packed;
    if (bitWidth == 0) {
      Arrays.fill(out, 0, count, 0);
      return;
    }
    byte[] b = buf;
    int p = pos;
    int limit = end;
    int width = bitWidth;
    long mask = (1L << width) - 1;
    if (width == 1) {
      for (int i = 0; i < count; i += 8) {
        int v = p < limit ? b[p] : 0;
        p++;
        out[i] = v & 1;
        out[i + 1] = (v >>> 1) & 1;
        out[i + 2] = (v >>> 2) & 1;
        out[i + 3] = (v >>> 3) & 1;
        out[i + 4] = (v >>> 4) & 1;
        out[i + 5] = (v >>> 5) & 1;
        out[i + 6] = (v >>> 6) & 1;
        out[i + 7] = (v >>> 7) & 1;
      }
      return;
    }
    // Whole groups of 8 values (width bytes each) whose bytes, and the 8 a long load may read
    // from the last value's first byte, lie within the data: every value is one unaligned long
    // load, a shift under 8 and a mask (shift + width stays within the 64 bits).
    int groups = count >>> 3;
    int g = 0;
    for (; g < groups && p + width + 8 <= limit; g++) {
      int o = g << 3;
      for (int i = 0; i < 8; i++) {
        int bit = i * width;
        long word = (long) LONG_LE.get(b, p + (bit >>> 3));
        out[o + i] = (int) ((word >>> (bit & 7)) & mask);
      }
      p += width;
    }
    // The rest (the run's last groups, near the end of the data) byte by byte.
    long acc = 0;
    int bits = 0;
    for (int i = g << 3; i < count; i++) {
      while (bits < width) {
        acc |= (p < limit ? (b[p] & 0xFFL) : 0L) << bits;
        p++;
        bits += 8;
      }
      out[i] = (int) (acc & mask);
      acc >>>= width;
      bits -= width;
    }
  }

  private int readUleb128() {
    int v = 0;
    int shift = 0;
    while (true) {
      if (pos >= end) {
        throw ParquetScanException.corrupt("RLE/bit-packed run header runs past the end of its data");
      }
      int b = buf[pos++] & 0xFF;
      v |= (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return v;
      }
      shift += 7;
      if (shift > 28) {
        throw ParquetScanException.corrupt("RLE/bit-packed run header is longer than 5 bytes");
      }
    }
  }

  /** The number of bits needed for values up to {@code max}. */
  static int bitWidth(int max) {
    return 32 - Integer.numberOfLeadingZeros(max);
  }
}

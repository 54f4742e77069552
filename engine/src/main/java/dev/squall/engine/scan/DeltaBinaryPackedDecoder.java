package dev.squall.engine.scan;

/**
 * Decoder of Parquet's DELTA_BINARY_PACKED encoding (parquet-format {@code Encodings.md}): a header
 * of ULEB128 block size (values), miniblocks per block, total value count and the zigzag first
 * value, then blocks of a zigzag minimum delta, one bit width byte per miniblock and the miniblocks'
 * deltas minus the minimum, bit-packed least-significant bit first. Arithmetic wraps at 64 bits; an
 * INT32 column's values are the low 32 bits.
 */
final class DeltaBinaryPackedDecoder {
  private byte[] buf;
  private int pos;
  private int end;
  private int miniblocksPerBlock;
  private int valuesPerMiniblock;
  private int totalLeft;
  private long last;
  private boolean firstPending;
  private long minDelta;
  private final byte[] widths = new byte[256];
  private int miniblock;
  private long[] deltas = new long[64];
  private int deltaAt;
  private int deltaCount;

  /** Reads the header at {@code buf[pos]}; the values are then read in order. */
  void init(byte[] buf, int pos, int end) {
    this.buf = buf;
    this.pos = pos;
    this.end = end;
    int blockSize = uleb();
    miniblocksPerBlock = uleb();
    totalLeft = uleb();
    last = zigzag();
    if (miniblocksPerBlock <= 0 || miniblocksPerBlock > widths.length || blockSize <= 0 || blockSize % miniblocksPerBlock != 0
        || (blockSize / miniblocksPerBlock) % 8 != 0 || totalLeft < 0) {
      throw ParquetScanException.corrupt("DELTA_BINARY_PACKED header has block size " + blockSize + " and "
          + miniblocksPerBlock + " miniblocks");
    }
    valuesPerMiniblock = blockSize / miniblocksPerBlock;
    if (deltas.length < valuesPerMiniblock) {
      deltas = new long[valuesPerMiniblock];
    }
    firstPending = totalLeft > 0;
    miniblock = miniblocksPerBlock;
    deltaAt = 0;
    deltaCount = 0;
  }

  /** Decodes the next {@code n} values into {@code out[off .. off + n)}. */
  void readLongs(long[] out, int off, int n) {
    if (n > totalLeft) {
      throw ParquetScanException.corrupt("DELTA_BINARY_PACKED data holds fewer values than its page");
    }
    int i = 0;
    if (firstPending && n > 0) {
      out[off] = last;
      firstPending = false;
      i = 1;
    }
    long v = last;
    while (i < n) {
      if (deltaAt == deltaCount) {
        nextMiniblock();
      }
      int k = Math.min(n - i, deltaCount - deltaAt);
      long[] d = deltas;
      long min = minDelta;
      int at = deltaAt;
      for (int j = 0; j < k; j++) {
        v += min + d[at + j];
        out[off + i + j] = v;
      }
      deltaAt += k;
      i += k;
    }
    last = v;
    totalLeft -= n;
  }

  /** Where the encoded data ends, once every value has been read (the next section starts there). */
  int position() {
    return pos;
  }

  private void nextMiniblock() {
    if (miniblock == miniblocksPerBlock) {
      minDelta = zigzag();
      if (pos + miniblocksPerBlock > end) {
        throw ParquetScanException.corrupt("DELTA_BINARY_PACKED block header runs past its page");
      }
      System.arraycopy(buf, pos, widths, 0, miniblocksPerBlock);
      pos += miniblocksPerBlock;
      miniblock = 0;
    }
    int width = widths[miniblock++] & 0xFF;
    if (width > 64) {
      throw ParquetScanException.corrupt("DELTA_BINARY_PACKED miniblock bit width " + width);
    }
    int count = valuesPerMiniblock;
    long bytes = (long) width * count / 8;
    // The values left may end inside this miniblock; a writer may cut its padding short.
    unpack(width, count);
    pos += (int) Math.min(bytes, end - pos);
    deltaAt = 0;
    deltaCount = count;
  }

  private void unpack(int width, int count) {
    long[] out = deltas;
    if (width == 0) {
      java.util.Arrays.fill(out, 0, count, 0L);
      return;
    }
    byte[] b = buf;
    int p = pos;
    int limit = end;
    if (width <= 56) {
      long mask = (1L << width) - 1;
      long acc = 0;
      int bits = 0;
      for (int i = 0; i < count; i++) {
        while (bits < width) {
          acc |= (p < limit ? (b[p] & 0xFFL) : 0L) << bits;
          p++;
          bits += 8;
        }
        out[i] = acc & mask;
        acc >>>= width;
        bits -= width;
      }
      return;
    }
    // Wider than the accumulator can hold with a spare byte: bit by bit (rare: near-random longs).
    for (int i = 0; i < count; i++) {
      long bitPos = (long) i * width;
      long v = 0;
      for (int k = 0; k < width; k++) {
        long bp = bitPos + k;
        int at = p + (int) (bp >>> 3);
        long bit = at < limit ? (b[at] >>> (bp & 7)) & 1 : 0;
        v |= bit << k;
      }
      out[i] = v;
    }
  }

  /** Values not yet read. */
  int remaining() {
    return totalLeft;
  }

  private int uleb() {
    long v = ulebLong();
    if (v > Integer.MAX_VALUE) {
      throw ParquetScanException.corrupt("DELTA_BINARY_PACKED header value " + v + " is too large");
    }
    return (int) v;
  }

  private long ulebLong() {
    long v = 0;
    int shift = 0;
    while (true) {
      if (pos >= end) {
        throw ParquetScanException.corrupt("DELTA_BINARY_PACKED varint runs past its page");
      }
      int b = buf[pos++] & 0xFF;
      v |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return v;
      }
      shift += 7;
      if (shift > 63) {
        throw ParquetScanException.corrupt("DELTA_BINARY_PACKED varint is longer than 10 bytes");
      }
    }
  }

  private long zigzag() {
    long v = ulebLong();
    return (v >>> 1) ^ -(v & 1);
  }
}

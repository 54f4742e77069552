package dev.squall.engine.scan;

/**
 * Decoder of Parquet's DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY encodings (parquet-format
 * {@code Encodings.md}). DELTA_LENGTH_BYTE_ARRAY is the value lengths as DELTA_BINARY_PACKED
 * followed by the values' bytes back to back; DELTA_BYTE_ARRAY is the lengths of the prefixes
 * shared with the previous value (DELTA_BINARY_PACKED) followed by the suffixes as
 * DELTA_LENGTH_BYTE_ARRAY. {@link #next()} makes the next value current: {@link #bytes()}
 * {@code [}{@link #offset()}{@code , + }{@link #length()}{@code )}.
 */
final class DeltaByteArrayDecoder {
  private final DeltaBinaryPackedDecoder lengths = new DeltaBinaryPackedDecoder();
  private boolean prefixed;
  private long[] prefix = new long[0];
  private long[] suffix = new long[0];
  private int count;
  private int index;
  private byte[] page;
  private int dataAt;
  private int end;
  /** The current value: in the page (no prefix) or in {@code value} (with a prefix). */
  private byte[] current;
  private int currentOffset;
  private int currentLength;
  private byte[] value = new byte[64];

  /** DELTA_LENGTH_BYTE_ARRAY values at {@code page[from .. to)}. */
  void initLengths(byte[] page, int from, int to) {
    prefixed = false;
    this.page = page;
    this.end = to;
    lengths.init(page, from, to);
    count = lengths.remaining();
    suffix = read(suffix, count);
    dataAt = lengths.position();
    index = 0;
    currentLength = 0;
  }

  /** DELTA_BYTE_ARRAY values at {@code page[from .. to)}. */
  void initPrefixed(byte[] page, int from, int to) {
    this.page = page;
    this.end = to;
    lengths.init(page, from, to);
    int n = lengths.remaining();
    prefix = read(prefix, n);
    lengths.init(page, lengths.position(), to);
    count = lengths.remaining();
    if (count != n) {
      throw ParquetScanException.corrupt("DELTA_BYTE_ARRAY has " + n + " prefix lengths but " + count + " suffixes");
    }
    suffix = read(suffix, count);
    dataAt = lengths.position();
    prefixed = true;
    index = 0;
    currentLength = 0;
  }

  private long[] read(long[] into, int n) {
    long[] out = into.length < n ? new long[n] : into;
    lengths.readLongs(out, 0, n);
    return out;
  }

  /** Makes the next value current. */
  void next() {
    if (index >= count) {
      throw ParquetScanException.corrupt("DELTA byte array data holds fewer values than its page");
    }
    long s = suffix[index];
    if (s < 0 || dataAt + s > end) {
      throw ParquetScanException.corrupt("DELTA byte array value runs past the end of its page");
    }
    int len = (int) s;
    if (!prefixed) {
      current = page;
      currentOffset = dataAt;
      currentLength = len;
    } else {
      long p = prefix[index];
      if (p < 0 || p > currentLength) {
        throw ParquetScanException.corrupt("DELTA_BYTE_ARRAY prefix of " + p + " bytes is longer than the previous value");
      }
      int pre = (int) p;
      int total = pre + len;
      if (value.length < total) {
        value = java.util.Arrays.copyOf(value, Math.max(total, value.length * 2));
      }
      if (current != value && pre > 0) {
        System.arraycopy(current, currentOffset, value, 0, pre);
      }
      System.arraycopy(page, dataAt, value, pre, len);
      current = value;
      currentOffset = 0;
      currentLength = total;
    }
    dataAt += len;
    index++;
  }

  byte[] bytes() {
    return current;
  }

  int offset() {
    return currentOffset;
  }

  int length() {
    return currentLength;
  }
}

package dev.squall.engine.scan;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.values.ValuesReader;

/**
 * DECIMAL stored as BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY (big-endian two's complement unscaled
 * value) into unscaled {@code long}s, with a BigInteger only for values beyond the long range.
 */
final class BinaryDecimalChunkReader extends ColumnChunkReader {
  /** The fixed length, or -1 for BYTE_ARRAY. */
  private final int fixedLength;
  private long[] dict;
  private BigInteger[] dictBig;

  BinaryDecimalChunkReader(ColumnDescriptor column, int fixedLength) {
    super(column);
    this.fixedLength = fixedLength;
  }

  @Override
  protected void readDictionary(byte[] bytes, int from, int to, int count) {
    long[] d = new long[count];
    BigInteger[] big = null;
    int p = from;
    for (int i = 0; i < count; i++) {
      int len = fixedLength >= 0 ? fixedLength : le32(bytes, p, to);
      p += fixedLength >= 0 ? 0 : 4;
      if (len < 0 || p + (long) len > to) {
        throw ParquetScanException.corrupt("dictionary page of " + name(column) + " is shorter than its " + count + " entries");
      }
      if (fitsLong(bytes, p, len)) {
        d[i] = toLong(bytes, p, len);
      } else {
        if (big == null) {
          big = new BigInteger[count];
        }
        big[i] = new BigInteger(bytes, p, len);
      }
      p += len;
    }
    dict = d;
    dictBig = big;
  }

  @Override
  protected void decodeValues(ColumnBuffer out, int pos, int n) {
    byte[] b = page;
    int p = valuesPos;
    int end = valuesEnd;
    for (int i = 0; i < n; i++) {
      int len = fixedLength;
      if (len < 0) {
        len = le32(b, p, end);
        p += 4;
      }
      if (len < 0 || p + (long) len > end) {
        throw ParquetScanException.corrupt("values of " + name(column) + " run past the end of their page");
      }
      store(out, pos + i, b, p, len);
      p += len;
    }
    valuesPos = p;
  }

  private static void store(ColumnBuffer out, int row, byte[] b, int from, int len) {
    if (fitsLong(b, from, len)) {
      out.longs[row] = toLong(b, from, len);
    } else {
      out.setBig(row, new BigInteger(b, from, len));
    }
  }

  @Override
  protected void decodeDictionaryIds(ColumnBuffer out, int pos, int[] ids, int n) {
    long[] d = dict;
    long[] v = out.longs;
    for (int i = 0; i < n; i++) {
      v[pos + i] = d[ids[i]];
    }
    if (dictBig != null) {
      for (int i = 0; i < n; i++) {
        BigInteger big = dictBig[ids[i]];
        if (big != null) {
          out.setBig(pos + i, big);
        }
      }
    }
  }

  @Override
  protected void decodeWith(ValuesReader reader, ColumnBuffer out, int pos, int n) {
    for (int i = 0; i < n; i++) {
      ByteBuffer bb = reader.readBytes().toByteBuffer();
      if (bb.hasArray()) {
        store(out, pos + i, bb.array(), bb.arrayOffset() + bb.position(), bb.remaining());
      } else {
        byte[] copy = new byte[bb.remaining()];
        bb.duplicate().get(copy);
        store(out, pos + i, copy, 0, copy.length);
      }
    }
  }

  @Override
  protected void decodeDeltaBytes(DeltaByteArrayDecoder decoder, ColumnBuffer out, int pos, int n) {
    for (int i = 0; i < n; i++) {
      decoder.next();
      store(out, pos + i, decoder.bytes(), decoder.offset(), decoder.length());
    }
  }

  /** Whether a big-endian two's complement value of {@code len} bytes fits a long. */
  static boolean fitsLong(byte[] b, int from, int len) {
    if (len <= 8) {
      return true;
    }
    // The leading len - 8 bytes must only repeat the sign of the remaining 8.
    byte sign = (byte) (b[from + len - 8] >> 7);
    for (int i = from; i < from + len - 8; i++) {
      if (b[i] != sign) {
        return false;
      }
    }
    return true;
  }

  /** The value of a big-endian two's complement number that fits a long. */
  static long toLong(byte[] b, int from, int len) {
    if (len == 0) {
      return 0;
    }
    int start = Math.max(from, from + len - 8);
    long v = b[start]; // sign-extended
    for (int i = start + 1; i < from + len; i++) {
      v = (v << 8) | (b[i] & 0xFF);
    }
    return v;
  }
}

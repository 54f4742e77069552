package dev.squall.engine.scan;

import dev.squall.engine.column.BytesColumn;
import java.nio.ByteBuffer;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.io.api.Binary;

/**
 * BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY columns into one byte array with offsets (VARCHAR,
 * VARBINARY). A UUID (FIXED_LEN_BYTE_ARRAY(16)) becomes its 36-character text form, as the engine
 * reads UUIDs as VARCHAR.
 */
final class BinaryChunkReader extends ColumnChunkReader {
  private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  static final int UUID_TEXT = 36;

  /** The fixed length, or -1 for BYTE_ARRAY. */
  private final int fixedLength;
  private final boolean uuid;
  private byte[] dictData;
  private int[] dictOffsets;
  private int dictCount;
  /** The row group's dictionary as a column, made at its first dictionary-encoded batch. */
  private BytesColumn dictColumn;

  BinaryChunkReader(ColumnDescriptor column, int fixedLength, boolean uuid) {
    super(column);
    this.fixedLength = fixedLength;
    this.uuid = uuid;
  }

  @Override
  protected void readDictionary(byte[] bytes, int from, int to, int count) {
    int[] o = new int[count + 1];
    int total = 0;
    int p = from;
    for (int i = 0; i < count; i++) {
      int len = fixedLength >= 0 ? fixedLength : le32(bytes, p, to);
      p += fixedLength >= 0 ? 0 : 4;
      if (len < 0 || p + (long) len > to) {
        throw ParquetScanException.corrupt("dictionary page of " + name(column) + " is shorter than its " + count + " entries");
      }
      p += len;
      total += uuid ? UUID_TEXT : len;
      o[i + 1] = total;
    }
    byte[] d = new byte[total];
    p = from;
    for (int i = 0; i < count; i++) {
      int len = fixedLength >= 0 ? fixedLength : le32(bytes, p, to);
      p += fixedLength >= 0 ? 0 : 4;
      put(bytes, p, len, d, o[i]);
      p += len;
    }
    dictData = d;
    dictOffsets = o;
    dictCount = count;
    dictColumn = null;
  }

  private void put(byte[] src, int from, int len, byte[] dst, int at) {
    if (uuid) {
      formatUuid(src, from, dst, at);
    } else {
      System.arraycopy(src, from, dst, at, len);
    }
  }

  @Override
  protected void decodeValues(ColumnBuffer out, int pos, int n) {
    out.leaveDictionary(pos);
    byte[] b = page;
    int[] o = out.offsets;
    int at = o[pos];
    if (fixedLength >= 0) {
      need((long) n * fixedLength);
      int width = uuid ? UUID_TEXT : fixedLength;
      out.ensureData(at, n * width);
      if (uuid) {
        for (int i = 0; i < n; i++) {
          formatUuid(b, valuesPos + i * fixedLength, out.data, at + i * UUID_TEXT);
        }
      } else {
        System.arraycopy(b, valuesPos, out.data, at, n * fixedLength);
      }
      for (int i = 1; i <= n; i++) {
        o[pos + i] = at + i * width;
      }
      valuesPos += n * fixedLength;
      return;
    }
    // Lengths first (bounds and total size), then one copy per value into room made once.
    int p = valuesPos;
    int end = valuesEnd;
    long total = 0;
    for (int i = 0; i < n; i++) {
      int len = le32(b, p, end);
      p += 4;
      if (len < 0 || p + (long) len > end) {
        throw ParquetScanException.corrupt("values of " + name(column) + " run past the end of their page");
      }
      p += len;
      total += len;
    }
    out.ensureData(at, (int) Math.min(Integer.MAX_VALUE, total));
    byte[] data = out.data;
    p = valuesPos;
    for (int i = 0; i < n; i++) {
      int len = (b[p] & 0xFF) | (b[p + 1] & 0xFF) << 8 | (b[p + 2] & 0xFF) << 16 | (b[p + 3] & 0xFF) << 24;
      p += 4;
      copy(b, p, data, at, len);
      p += len;
      at += len;
      o[pos + i + 1] = at;
    }
    valuesPos = p;
  }

  @Override
  protected void decodeDictionaryIds(ColumnBuffer out, int pos, int[] ids, int n) {
    if (!uuid && dictCount > 0) {
      if (out.ids == null && pos == 0) {
        if (dictColumn == null) {
          dictColumn = new BytesColumn(out.type, dictData, dictOffsets, null, dictCount);
        }
        out.startDictionary(dictColumn);
      }
      if (out.ids != null && out.dictionary == dictColumn) {
        // Ids only: the strings stay in the dictionary (checked: a corrupt id must not index past it).
        for (int i = 0; i < n; i++) {
          int id = ids[i];
          if (id < 0 || id >= dictCount) {
            throw ParquetScanException.corrupt("dictionary id " + id + " of " + name(column) + " is outside its "
                + dictCount + " entries");
          }
          out.ids[pos + i] = id;
        }
        return;
      }
    }
    out.leaveDictionary(pos);
    int[] d = dictOffsets;
    long total = 0;
    for (int i = 0; i < n; i++) {
      int id = ids[i];
      total += d[id + 1] - d[id];
    }
    int[] o = out.offsets;
    int at = o[pos];
    out.ensureData(at, (int) Math.min(Integer.MAX_VALUE, total));
    byte[] data = out.data;
    byte[] dict = dictData;
    for (int i = 0; i < n; i++) {
      int id = ids[i];
      int from = d[id];
      int len = d[id + 1] - from;
      copy(dict, from, data, at, len);
      at += len;
      o[pos + i + 1] = at;
    }
  }

  @Override
  protected void decodeWith(ValuesReader reader, ColumnBuffer out, int pos, int n) {
    out.leaveDictionary(pos);
    int[] o = out.offsets;
    int at = o[pos];
    for (int i = 0; i < n; i++) {
      Binary v = reader.readBytes();
      ByteBuffer bb = v.toByteBuffer();
      int len = bb.remaining();
      out.ensureData(at, uuid ? UUID_TEXT : len);
      if (bb.hasArray()) {
        put(bb.array(), bb.arrayOffset() + bb.position(), len, out.data, at);
      } else {
        byte[] copy = v.getBytes();
        put(copy, 0, len, out.data, at);
      }
      at += uuid ? UUID_TEXT : len;
      o[pos + i + 1] = at;
    }
  }

  @Override
  protected void decodeDeltaBytes(DeltaByteArrayDecoder decoder, ColumnBuffer out, int pos, int n) {
    out.leaveDictionary(pos);
    int[] o = out.offsets;
    int at = o[pos];
    for (int i = 0; i < n; i++) {
      decoder.next();
      int len = decoder.length();
      out.ensureData(at, uuid ? UUID_TEXT : len);
      put(decoder.bytes(), decoder.offset(), len, out.data, at);
      at += uuid ? UUID_TEXT : len;
      o[pos + i + 1] = at;
    }
  }

  /** Copies short values with a plain loop (cheaper than System.arraycopy's call for a few bytes). */
  private static void copy(byte[] src, int from, byte[] dst, int at, int len) {
    if (len <= 16) {
      for (int i = 0; i < len; i++) {
        dst[at + i] = src[from + i];
      }
    } else {
      System.arraycopy(src, from, dst, at, len);
    }
  }

  /** Writes 16 big-endian bytes as {@code xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx} (36 bytes). */
  static void formatUuid(byte[] src, int from, byte[] dst, int at) {
    int w = at;
    for (int i = 0; i < 16; i++) {
      if (i == 4 || i == 6 || i == 8 || i == 10) {
        dst[w++] = '-';
      }
      int v = src[from + i] & 0xFF;
      dst[w++] = HEX[v >>> 4];
      dst[w++] = HEX[v & 15];
    }
  }
}

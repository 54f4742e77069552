package dev.squall.engine.scan;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.values.ValuesReader;

/** BOOLEAN columns: PLAIN (bit-packed, least-significant bit first) or RLE (data page V2). */
final class BooleanChunkReader extends ColumnChunkReader {
  private final RleBitPackedDecoder rle = new RleBitPackedDecoder();
  private boolean rleEncoded;
  /** Bits of the current PLAIN page already read. */
  private long bit;
  private int[] scratch = new int[1024];

  BooleanChunkReader(ColumnDescriptor column) {
    super(column);
  }

  @Override
  protected void startPlain() {
    rleEncoded = false;
    bit = 0;
  }

  @Override
  protected void startRle() {
    // RLE booleans carry a 4-byte length before the runs (parquet-format Encodings.md).
    int len = le32(page, valuesPos, valuesEnd);
    if (len < 0 || valuesPos + 4L + len > valuesEnd) {
      throw ParquetScanException.corrupt("RLE booleans of " + name(column) + " run past their page");
    }
    rle.init(page, valuesPos + 4, valuesPos + 4 + len, 1);
    rleEncoded = true;
  }

  @Override
  protected void readDictionary(byte[] bytes, int from, int to, int count) {
    throw ParquetScanException.unsupported("BOOLEAN column " + name(column) + " has a dictionary page");
  }

  @Override
  protected void decodeValues(ColumnBuffer out, int pos, int n) {
    boolean[] v = out.bools;
    if (rleEncoded) {
      if (scratch.length < n) {
        scratch = new int[n];
      }
      rle.readInts(scratch, 0, n);
      for (int i = 0; i < n; i++) {
        v[pos + i] = scratch[i] != 0;
      }
      return;
    }
    if (valuesPos + ((bit + n + 7) >>> 3) > valuesEnd) {
      throw ParquetScanException.corrupt("values of " + name(column) + " run past the end of their page");
    }
    byte[] b = page;
    int base = valuesPos;
    long at = bit;
    for (int i = 0; i < n; i++, at++) {
      v[pos + i] = ((b[base + (int) (at >>> 3)] >>> (at & 7)) & 1) != 0;
    }
    bit = at;
  }

  @Override
  protected void decodeDictionaryIds(ColumnBuffer out, int pos, int[] ids, int n) {
    throw ParquetScanException.unsupported("BOOLEAN column " + name(column) + " is dictionary-encoded");
  }

  @Override
  protected void decodeWith(ValuesReader reader, ColumnBuffer out, int pos, int n) {
    boolean[] v = out.bools;
    for (int i = 0; i < n; i++) {
      v[pos + i] = reader.readBoolean();
    }
  }
}

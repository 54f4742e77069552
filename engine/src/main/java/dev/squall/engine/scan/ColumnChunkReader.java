package dev.squall.engine.scan;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ValuesType;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.column.values.ValuesReader;

/**
 * Decodes one flat column of a data file, one column chunk (row group) after another, into
 * {@link ColumnBuffer}s. It walks the chunk's pages (data page V1 and V2, already decompressed by
 * parquet-mr's page reader), decodes definition levels (RLE/bit-packed hybrid, maximum level 1)
 * and then the non-null values with the page's encoding: PLAIN, dictionary ids (PLAIN_DICTIONARY /
 * RLE_DICTIONARY) into the chunk's dictionary page, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and
 * DELTA_BYTE_ARRAY, or, for BYTE_STREAM_SPLIT, parquet-mr's {@link ValuesReader}. Decoded values land densely at the
 * requested row and are then spread over the non-null rows in place.
 *
 * <p>Subclasses hold the decoders of one Parquet physical type and target column kind.
 */
abstract class ColumnChunkReader {
  protected final ColumnDescriptor column;
  private final int maxDefinition;
  private final RleBitPackedDecoder definitions = new RleBitPackedDecoder();
  private final RleBitPackedDecoder dictionaryIds = new RleBitPackedDecoder();
  private boolean[] isNull = new boolean[1024];
  private int[] ids = new int[1024];
  private PageReader pages;
  private int pageLeft;
  private boolean hasDictionary;
  private Values values = Values.PLAIN;
  private ValuesReader fallback;
  private final DeltaBinaryPackedDecoder deltaLongs = new DeltaBinaryPackedDecoder();
  private final DeltaByteArrayDecoder deltaBytes = new DeltaByteArrayDecoder();

  /** How the current page's values are encoded. */
  private enum Values { PLAIN, DICTIONARY, DELTA_LONGS, DELTA_BYTES, OTHER, NONE }
  /** The current page's bytes and where its values section starts and ends. */
  protected byte[] page;
  protected int valuesPos;
  protected int valuesEnd;

  protected ColumnChunkReader(ColumnDescriptor column) {
    if (column.getMaxRepetitionLevel() > 0 || column.getMaxDefinitionLevel() > 1) {
      throw ParquetScanException.unsupported("column " + name(column) + " is nested; only top-level primitive columns are read");
    }
    this.column = column;
    this.maxDefinition = column.getMaxDefinitionLevel();
  }

  static String name(ColumnDescriptor column) {
    return String.join(".", column.getPath());
  }

  /** Starts reading the column chunk of a new row group. */
  final void startRowGroup(PageReader pageReader) {
    this.pages = pageReader;
    this.pageLeft = 0;
    DictionaryPage dict = pageReader.readDictionaryPage();
    hasDictionary = dict != null;
    if (dict != null) {
      Encoding e = dict.getEncoding();
      if (e != Encoding.PLAIN && e != Encoding.PLAIN_DICTIONARY) {
        throw ParquetScanException.unsupported("dictionary page of " + name(column) + " is " + e);
      }
      Slice s = Slice.of(dict.getBytes());
      readDictionary(s.bytes, s.from, s.to, dict.getDictionarySize());
    }
  }

  /** Decodes the next {@code n} rows of the chunk into rows {@code [pos, pos + n)} of {@code out}. */
  final void read(ColumnBuffer out, int pos, int n) {
    if (isNull.length < n) {
      isNull = new boolean[n];
      ids = new int[n];
    }
    while (n > 0) {
      if (pageLeft == 0) {
        nextPage();
      }
      int k = Math.min(n, pageLeft);
      int defined = maxDefinition == 0 ? k : definitions.readNulls(isNull, 0, k);
      if (defined > 0) {
        switch (values) {
          case PLAIN -> decodeValues(out, pos, defined);
          case DICTIONARY -> {
            dictionaryIds.readInts(ids, 0, defined);
            decodeDictionaryIds(out, pos, ids, defined);
          }
          case DELTA_LONGS -> decodeDeltaLongs(deltaLongs, out, pos, defined);
          case DELTA_BYTES -> decodeDeltaBytes(deltaBytes, out, pos, defined);
          case OTHER -> decodeWith(fallback, out, pos, defined);
          case NONE -> throw ParquetScanException.corrupt("page of " + name(column) + " has values but no values section");
        }
      }
      if (defined < k) {
        out.markNulls(pos, isNull, k);
        out.spread(pos, k, defined, isNull);
      }
      pos += k;
      n -= k;
      pageLeft -= k;
    }
  }

  private void nextPage() {
    DataPage p = pages.readPage();
    if (p == null) {
      throw ParquetScanException.corrupt("column chunk of " + name(column) + " has fewer values than its row group has rows");
    }
    p.accept(new DataPage.Visitor<Void>() {
      @Override
      public Void visit(DataPageV1 v1) {
        startV1(v1);
        return null;
      }

      @Override
      public Void visit(DataPageV2 v2) {
        startV2(v2);
        return null;
      }
    });
    pageLeft = p.getValueCount();
  }

  private void startV1(DataPageV1 p) {
    Slice s = Slice.of(p.getBytes());
    int at = s.from;
    if (maxDefinition > 0) {
      if (p.getDlEncoding() != Encoding.RLE) {
        throw ParquetScanException.unsupported("definition levels of " + name(column) + " are " + p.getDlEncoding() + " (only RLE is read)");
      }
      int len = le32(s.bytes, at, s.to);
      if (len < 0 || at + 4 + len > s.to) {
        throw ParquetScanException.corrupt("definition levels of " + name(column) + " run past their page");
      }
      definitions.init(s.bytes, at + 4, at + 4 + len, 1);
      at += 4 + len;
    }
    startValues(p.getValueEncoding(), s.bytes, at, s.to, p.getValueCount());
  }

  private void startV2(DataPageV2 p) {
    if (maxDefinition > 0) {
      Slice d = Slice.of(p.getDefinitionLevels());
      definitions.init(d.bytes, d.from, d.to, 1);
    }
    Slice s = Slice.of(p.getData());
    startValues(p.getDataEncoding(), s.bytes, s.from, s.to, p.getValueCount());
  }

  private void startValues(Encoding encoding, byte[] bytes, int from, int to, int valueCount) {
    page = bytes;
    valuesPos = from;
    valuesEnd = to;
    fallback = null;
    values = Values.PLAIN;
    if (from >= to && encoding != Encoding.PLAIN) {
      // A page of NULLs only may carry no values section at all.
      values = Values.NONE;
      return;
    }
    switch (encoding) {
      case PLAIN -> startPlain();
      case PLAIN_DICTIONARY, RLE_DICTIONARY -> {
        if (!hasDictionary) {
          throw ParquetScanException.corrupt("page of " + name(column) + " is dictionary-encoded but its chunk has no dictionary page");
        }
        dictionaryIds.init(bytes, from + 1, to, bytes[from] & 0xFF);
        values = Values.DICTIONARY;
      }
      case RLE -> startRle();
      case DELTA_BINARY_PACKED -> {
        deltaLongs.init(bytes, from, to);
        values = Values.DELTA_LONGS;
      }
      case DELTA_LENGTH_BYTE_ARRAY -> {
        deltaBytes.initLengths(bytes, from, to);
        values = Values.DELTA_BYTES;
      }
      case DELTA_BYTE_ARRAY -> {
        deltaBytes.initPrefixed(bytes, from, to);
        values = Values.DELTA_BYTES;
      }
      case BYTE_STREAM_SPLIT -> {
        ValuesReader r = encoding.getValuesReader(column, ValuesType.VALUES);
        try {
          r.initFromPage(valueCount, ByteBufferInputStream.wrap(ByteBuffer.wrap(bytes, from, to - from)));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        fallback = r;
        values = Values.OTHER;
      }
      default -> throw ParquetScanException.unsupported("page of " + name(column) + " is " + encoding + "-encoded");
    }
  }

  /** Called when a PLAIN page starts (state such as a bit position is reset here). */
  protected void startPlain() {}

  /** Called when an RLE-encoded values section starts (booleans only). */
  protected void startRle() {
    throw ParquetScanException.unsupported("page of " + name(column) + " is RLE-encoded; RLE values are defined for BOOLEAN only");
  }

  /** Decodes {@code count} PLAIN dictionary entries from {@code bytes[from .. to)}. */
  protected abstract void readDictionary(byte[] bytes, int from, int to, int count);

  /** Decodes {@code n} values of the current page's PLAIN (or RLE) section to rows {@code [pos, pos + n)}. */
  protected abstract void decodeValues(ColumnBuffer out, int pos, int n);

  /** Looks up {@code n} dictionary ids to rows {@code [pos, pos + n)}. */
  protected abstract void decodeDictionaryIds(ColumnBuffer out, int pos, int[] ids, int n);

  /** Decodes {@code n} DELTA_BINARY_PACKED values (INT32 and INT64 columns). */
  protected void decodeDeltaLongs(DeltaBinaryPackedDecoder decoder, ColumnBuffer out, int pos, int n) {
    throw ParquetScanException.unsupported("page of " + name(column) + " is DELTA_BINARY_PACKED, which its type does not use");
  }

  /** Decodes {@code n} DELTA_LENGTH_BYTE_ARRAY or DELTA_BYTE_ARRAY values (byte array columns). */
  protected void decodeDeltaBytes(DeltaByteArrayDecoder decoder, ColumnBuffer out, int pos, int n) {
    throw ParquetScanException.unsupported("page of " + name(column) + " is a DELTA byte array encoding, which its type does not use");
  }

  /** Decodes {@code n} values with a parquet-mr values reader (BYTE_STREAM_SPLIT). */
  protected abstract void decodeWith(ValuesReader reader, ColumnBuffer out, int pos, int n);

  /** Fails unless the values section holds {@code bytes} more bytes. */
  protected final void need(long bytes) {
    if (valuesPos + bytes > valuesEnd) {
      throw ParquetScanException.corrupt("values of " + name(column) + " run past the end of their page");
    }
  }

  static int le32(byte[] b, int at, int end) {
    if (at + 4 > end) {
      throw ParquetScanException.corrupt("a 4-byte length runs past the end of its page");
    }
    return (b[at] & 0xFF) | (b[at + 1] & 0xFF) << 8 | (b[at + 2] & 0xFF) << 16 | (b[at + 3] & 0xFF) << 24;
  }

  /** A byte range of a page: {@code bytes[from .. to)}, without a copy when the page is on the heap. */
  record Slice(byte[] bytes, int from, int to) {
    static Slice of(BytesInput in) {
      try {
        ByteBuffer b = in.toByteBuffer();
        if (b.hasArray()) {
          int from = b.arrayOffset() + b.position();
          return new Slice(b.array(), from, from + b.remaining());
        }
        byte[] copy = new byte[b.remaining()];
        b.duplicate().get(copy);
        return new Slice(copy, 0, copy.length);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}

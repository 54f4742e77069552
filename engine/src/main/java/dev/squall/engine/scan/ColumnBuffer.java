package dev.squall.engine.scan;

import dev.squall.engine.column.BoolColumn;
import dev.squall.engine.column.BytesColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.column.DoubleColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.types.SqlType;
import java.math.BigInteger;
import java.util.Arrays;

/**
 * The arrays of one column of the batch being decoded, written row range by row range by a
 * {@link ColumnChunkReader} and handed over as an engine {@link Column} by {@link #toColumn}.
 * Which arrays are used follows the type's physical kind: {@code longs} for LONG and for DECIMAL's
 * unscaled values (with {@code big} for values beyond the long range), {@code doubles}, {@code bools},
 * or {@code data}/{@code offsets} (Arrow's variable-width layout) for BYTES. A BYTES buffer whose
 * rows so far all came from one dictionary page holds {@code ids} into that {@code dictionary}
 * instead, and becomes a dictionary-encoded column; {@link #leaveDictionary} turns it into the
 * plain layout when other values follow.
 */
final class ColumnBuffer {
  final SqlType type;
  long[] longs;
  double[] doubles;
  boolean[] bools;
  BigInteger[] big;
  byte[] data;
  /** Row i is {@code data[offsets[i] .. offsets[i + 1])}; {@code offsets[0] == 0}. */
  int[] offsets;
  /** Dictionary form of a BYTES buffer: row i is {@code dictionary} row {@code ids[i]}; else null. */
  int[] ids;
  BytesColumn dictionary;
  /** An ids array of an earlier batch, for {@link #startDictionary} to fill; else null. */
  private int[] spareIds;
  /** True where NULL; null while the batch has no NULL. */
  boolean[] nulls;
  private final int capacity;

  /** Fresh arrays for up to {@code capacity} rows ({@code bytesHint}: expected data bytes for BYTES). */
  ColumnBuffer(SqlType type, int capacity, int bytesHint) {
    this.type = type;
    this.capacity = capacity;
    switch (type.physical()) {
      case LONG, DECIMAL -> longs = new long[capacity];
      case DOUBLE -> doubles = new double[capacity];
      case BOOL -> bools = new boolean[capacity];
      case BYTES -> {
        data = new byte[Math.max(bytesHint, 64)];
        offsets = new int[capacity + 1];
      }
    }
  }

  private ColumnBuffer(SqlType type, int capacity) {
    this.type = type;
    this.capacity = capacity;
  }

  /**
   * A buffer for the next batch of up to {@code capacity} rows over this one's value arrays where
   * they are large enough (fresh ones otherwise): for a caller that keeps no column of this
   * buffer's batch once it asks for the next. Writes nothing; NULL flags, values beyond the long
   * range and the dictionary form start afresh.
   */
  ColumnBuffer recycled(int capacity, int bytesHint) {
    ColumnBuffer b = new ColumnBuffer(type, capacity);
    switch (type.physical()) {
      case LONG, DECIMAL -> b.longs = longs.length >= capacity ? longs : new long[capacity];
      case DOUBLE -> b.doubles = doubles.length >= capacity ? doubles : new double[capacity];
      case BOOL -> b.bools = bools.length >= capacity ? bools : new boolean[capacity];
      case BYTES -> {
        // Any earlier array serves: it grows on demand (ensureData) and keeps its grown size, so
        // steady batches stop allocating. Comparing it with the last batch's hint instead
        // allocated again whenever a batch held more bytes than the one before.
        b.data = data.length >= 64 ? data : new byte[Math.max(bytesHint, 64)];
        b.offsets = offsets.length >= capacity + 1 ? offsets : new int[capacity + 1];
        b.spareIds = ids != null ? ids : spareIds;
      }
    }
    return b;
  }

  /** Starts the dictionary form for an empty buffer. */
  void startDictionary(BytesColumn dict) {
    ids = spareIds != null && spareIds.length >= capacity ? spareIds : new int[capacity];
    spareIds = null;
    dictionary = dict;
  }

  /** Turns rows {@code [0, pos)} of the dictionary form into the plain layout (no-op when plain). */
  void leaveDictionary(int pos) {
    if (ids == null) {
      return;
    }
    // The column's own materialisation; its offsets keep room for the buffer's capacity.
    BytesColumn plain = BytesColumn.dictionary(type, ids, dictionary, nulls, pos);
    data = plain.data();
    offsets = plain.offsets();
    ids = null;
    dictionary = null;
  }

  /** Makes room for {@code more} bytes after {@code used}. */
  void ensureData(int used, int more) {
    long needed = (long) used + more;
    if (needed > data.length) {
      if (needed > Integer.MAX_VALUE - 16) {
        throw ParquetScanException.unsupported("a batch of one string column exceeds 2 GB");
      }
      data = Arrays.copyOf(data, (int) Math.max(needed, Math.min(Integer.MAX_VALUE - 16L, data.length * 2L)));
    }
  }

  /** Marks rows {@code pos + i} for which {@code isNull[i]} (i &lt; n) as NULL. */
  void markNulls(int pos, boolean[] isNull, int n) {
    if (nulls == null) {
      nulls = new boolean[capacity];
    }
    System.arraycopy(isNull, 0, nulls, pos, n);
  }

  /** Sets rows {@code [pos, pos + n)} to entry 0 of a one-entry dictionary (a value the whole split shares). */
  void fillDictionaryEntry(BytesColumn single, int pos, int n) {
    if (ids == null && pos == 0) {
      startDictionary(single);
    }
    if (ids != null) {
      Arrays.fill(ids, pos, pos + n, 0);
      return;
    }
    byte[] value = single.value(0);
    for (int i = 0; i < n; i++) {
      ensureData(offsets[pos + i], value.length);
      System.arraycopy(value, 0, data, offsets[pos + i], value.length);
      offsets[pos + i + 1] = offsets[pos + i] + value.length;
    }
  }

  /** Sets rows {@code [pos, pos + n)} of a LONG buffer to {@code first, first + 1, ...}. */
  void fillSequence(long first, int pos, int n) {
    for (int i = 0; i < n; i++) {
      longs[pos + i] = first + i;
    }
  }

  /** Marks rows {@code [pos, pos + n)} NULL (a column the data file does not have). */
  void markAllNull(int pos, int n) {
    if (nulls == null) {
      nulls = new boolean[capacity];
    }
    Arrays.fill(nulls, pos, pos + n, true);
    // Values under NULL are zero, as in fresh arrays, also when the arrays are recycled.
    if (longs != null) {
      Arrays.fill(longs, pos, pos + n, 0L);
    } else if (doubles != null) {
      Arrays.fill(doubles, pos, pos + n, 0.0);
    } else if (bools != null) {
      Arrays.fill(bools, pos, pos + n, false);
    }
    if (ids != null) {
      Arrays.fill(ids, pos, pos + n, 0);
    } else if (offsets != null) {
      Arrays.fill(offsets, pos + 1, pos + n + 1, offsets[pos]);
    }
  }

  /**
   * Moves {@code dense} values decoded at rows {@code [pos, pos + dense)} to the non-null rows of
   * {@code [pos, pos + n)} ({@code isNull[i]} for row pos + i), back to front so the move is in place.
   */
  void spread(int pos, int n, int dense, boolean[] isNull) {
    int c = dense;
    switch (type.physical()) {
      case LONG, DECIMAL -> {
        long[] v = longs;
        for (int i = n - 1; i >= 0 && c < i + 1; i--) {
          if (!isNull[i]) {
            v[pos + i] = v[pos + --c];
          } else {
            v[pos + i] = 0;
          }
        }
        if (big != null) {
          spreadBig(pos, n, dense, isNull);
        }
      }
      case DOUBLE -> {
        double[] v = doubles;
        for (int i = n - 1; i >= 0 && c < i + 1; i--) {
          if (!isNull[i]) {
            v[pos + i] = v[pos + --c];
          } else {
            v[pos + i] = 0;
          }
        }
      }
      case BOOL -> {
        boolean[] v = bools;
        for (int i = n - 1; i >= 0 && c < i + 1; i--) {
          if (!isNull[i]) {
            v[pos + i] = v[pos + --c];
          } else {
            v[pos + i] = false;
          }
        }
      }
      case BYTES -> {
        if (ids != null) {
          int[] v = ids;
          for (int i = n - 1; i >= 0; i--) {
            v[pos + i] = isNull[i] ? 0 : v[pos + --c];
          }
          return;
        }
        // offsets[pos + c] is the end of the first c dense values; a NULL row ends where the
        // previous value ended. Reads stay at or below the row being written.
        int[] o = offsets;
        for (int i = n - 1; i >= 0; i--) {
          o[pos + i + 1] = o[pos + c];
          if (!isNull[i]) {
            c--;
          }
        }
      }
    }
  }

  private void spreadBig(int pos, int n, int dense, boolean[] isNull) {
    int c = dense;
    for (int i = n - 1; i >= 0; i--) {
      if (!isNull[i]) {
        big[pos + i] = big[pos + --c];
      } else {
        big[pos + i] = null;
      }
    }
  }

  /** Sets the unscaled value of row i to a BigInteger outside the long range. */
  void setBig(int i, BigInteger v) {
    if (big == null) {
      big = new BigInteger[capacity];
    }
    big[i] = v;
  }

  /** The first {@code n} rows as an engine column (the arrays are handed over, not copied). */
  Column toColumn(int n) {
    return switch (type.physical()) {
      case LONG -> new LongColumn(type, longs, nulls, n);
      case DECIMAL -> new DecimalColumn(type, longs, big, nulls, n);
      case DOUBLE -> new DoubleColumn(type, doubles, nulls, n);
      case BOOL -> new BoolColumn(type, bools, nulls, n);
      case BYTES -> ids != null ? BytesColumn.dictionary(type, ids, dictionary, nulls, n)
          : new BytesColumn(type, data, offsets, nulls, n);
    };
  }
}

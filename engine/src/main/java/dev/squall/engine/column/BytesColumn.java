package dev.squall.engine.column;

import dev.squall.engine.hash.Murmur3;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.DataType;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * VARCHAR (UTF-8 bytes) and VARBINARY values, all in one byte array: row {@code i} is
 * {@code data[offsets[i] .. offsets[i + 1])} (Arrow's variable-width layout, Trino's
 * {@code VariableWidthBlock}). A NULL row has an empty range. Strings compare by unsigned bytes,
 * which for UTF-8 is code point order.
 *
 * <p>Rows are appended only; a row once written is never overwritten (operator state that must
 * replace a value, as MIN/MAX do, keeps its own values).
 *
 * <p>A column can also be <em>dictionary-encoded</em> (Trino's {@code DictionaryBlock}): row i is
 * entry {@code ids[i]} of a shared dictionary column, as a Parquet dictionary page decodes. Gather,
 * hashing and comparison read the dictionary in place, and evaluators that know the form test a
 * predicate once per dictionary entry ({@link #isDictionary}); anything that asks for the byte
 * array or offsets gets the column materialised first, so other code sees the plain layout.
 */
public final class BytesColumn extends Column {
  private static final java.lang.invoke.VarHandle LONGS =
      java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
  /** Longest value {@link #rangeEquals} compares itself. */
  private static final int SHORT_KEY_BYTES = 32;
  private byte[] data;
  /** {@code offsets[i]} is where row i starts; {@code offsets[size]} is the end of the data. */
  private int[] offsets;
  /** Dictionary form: row i is {@code dictionary} row {@code ids[i]} (NULL rows hold a valid id); else null. */
  private int[] ids;
  private BytesColumn dictionary;

  /**
   * A column over existing arrays (not copied).
   *
   * @param offsets at least {@code size + 1} entries, non-decreasing, {@code offsets[0]} may be &gt; 0
   */
  public BytesColumn(SqlType type, byte[] data, int[] offsets, boolean[] nulls, int size) {
    super(type, size, nulls);
    this.data = data;
    this.offsets = offsets;
  }

  /**
   * A dictionary-encoded column over existing arrays (not copied).
   *
   * @param ids at least {@code size} entries, each a row of {@code dictionary} (also at NULL rows)
   * @param dictionary a plain (not dictionary-encoded) column with at least one row
   */
  public static BytesColumn dictionary(SqlType type, int[] ids, BytesColumn dictionary, boolean[] nulls, int size) {
    if (dictionary.ids != null || dictionary.size() == 0) {
      throw new IllegalArgumentException("a dictionary must be a plain column with at least one row");
    }
    BytesColumn c = new BytesColumn(type, null, null, nulls, size);
    c.ids = ids;
    c.dictionary = dictionary;
    return c;
  }

  /** Whether rows are ids into {@link #dictionaryValues()}. */
  public boolean isDictionary() {
    return ids != null;
  }

  /** The ids of a dictionary-encoded column (not a copy). */
  public int[] dictionaryIds() {
    return ids;
  }

  /** The dictionary of a dictionary-encoded column, shared by every batch it was decoded for. */
  public BytesColumn dictionaryValues() {
    return dictionary;
  }

  /** Turns a dictionary-encoded column into the plain layout (once; later calls do nothing). */
  private void materialize() {
    if (ids == null) {
      return;
    }
    int[] d = dictionary.offsets;
    byte[] dict = dictionary.data;
    long total = 0;
    for (int i = 0; i < size; i++) {
      if (nulls == null || !nulls[i]) {
        total += d[ids[i] + 1] - d[ids[i]];
      }
    }
    byte[] out = new byte[(int) Math.min(Integer.MAX_VALUE - 8, total)];
    int[] o = new int[Math.max(ids.length, size) + 1];
    int at = 0;
    for (int i = 0; i < size; i++) {
      if (nulls == null || !nulls[i]) {
        int from = d[ids[i]];
        int len = d[ids[i] + 1] - from;
        System.arraycopy(dict, from, out, at, len);
        at += len;
      }
      o[i + 1] = at;
    }
    data = out;
    offsets = o;
    ids = null;
    dictionary = null;
  }

  /** An empty growable column with room for {@code rows} rows of {@code bytes} bytes in all. */
  public static BytesColumn withCapacity(SqlType type, int rows, int bytes) {
    return new BytesColumn(type, new byte[Math.max(bytes, 16)], new int[Math.max(rows, 4) + 1], null, 0);
  }

  /** A column of the given values (null entries are NULL). */
  public static BytesColumn of(SqlType type, byte[]... values) {
    int total = 0;
    for (byte[] v : values) {
      total += v == null ? 0 : v.length;
    }
    BytesColumn c = withCapacity(type, values.length, total);
    for (byte[] v : values) {
      if (v == null) {
        c.appendNull();
      } else {
        c.append(v);
      }
    }
    return c;
  }

  /** The shared byte array (not a copy); a dictionary-encoded column is materialised first. */
  public byte[] data() {
    materialize();
    return data;
  }

  /**
   * The offsets array (not a copy): row i is {@code data[offsets[i] .. offsets[i + 1])}; a
   * dictionary-encoded column is materialised first.
   */
  public int[] offsets() {
    materialize();
    return offsets;
  }

  public int offset(int i) {
    materialize();
    return offsets[i];
  }

  public int length(int i) {
    if (ids != null) {
      return dictionary.length(ids[i]);
    }
    return offsets[i + 1] - offsets[i];
  }

  /** Row i's bytes as a new array (for code off the hot paths). */
  public byte[] value(int i) {
    if (ids != null) {
      return dictionary.value(ids[i]);
    }
    return Arrays.copyOfRange(data, offsets[i], offsets[i + 1]);
  }

  public String string(int i) {
    if (ids != null) {
      return dictionary.string(ids[i]);
    }
    return new String(data, offsets[i], offsets[i + 1] - offsets[i], StandardCharsets.UTF_8);
  }

  /** Whether row i equals {@code other[from .. to)}. */
  public boolean equalsBytes(int i, byte[] other, int from, int to) {
    if (ids != null) {
      return dictionary.equalsBytes(ids[i], other, from, to);
    }
    return rangeEquals(data, offsets[i], offsets[i + 1], other, from, to);
  }

  /**
   * Whether {@code a[aFrom .. aTo)} equals {@code b[bFrom .. bTo)}. Keys compared per row (group and
   * join keys, flags, codes) are mostly a few bytes, where {@link Arrays#equals} spends more on its
   * range checks and set-up than on the bytes: those go 8 bytes at a time here, longer ones to it.
   */
  static boolean rangeEquals(byte[] a, int aFrom, int aTo, byte[] b, int bFrom, int bTo) {
    int len = aTo - aFrom;
    if (len != bTo - bFrom) {
      return false;
    }
    if (len > SHORT_KEY_BYTES) {
      return Arrays.equals(a, aFrom, aTo, b, bFrom, bTo);
    }
    int k = 0;
    for (; k + 8 <= len; k += 8) {
      if ((long) LONGS.get(a, aFrom + k) != (long) LONGS.get(b, bFrom + k)) {
        return false;
      }
    }
    for (; k < len; k++) {
      if (a[aFrom + k] != b[bFrom + k]) {
        return false;
      }
    }
    return true;
  }

  @Override
  public Column gather(int[] rows, int n, Column reuse) {
    BytesColumn spare = reuse instanceof BytesColumn b ? b : null;
    if (ids != null) {
      // Only the ids are written; the dictionary is shared and read-only.
      int[] out = spare != null && spare.ids != null && spare.ids.length >= n && spare.ids != ids ? spare.ids : new int[n];
      for (int k = 0; k < n; k++) {
        int r = rows[k];
        out[k] = r < 0 ? 0 : ids[r];
      }
      return dictionary(type, out, dictionary, gatherNulls(rows, n, reuse), n);
    }
    long total = 0;
    for (int k = 0; k < n; k++) {
      int r = rows[k];
      if (r >= 0) {
        total += offsets[r + 1] - offsets[r];
      }
    }
    byte[] out = spare != null && spare.data != null && spare.data.length >= total && spare.data != data
        ? spare.data : new byte[(int) total];
    int[] outOffsets = spare != null && spare.offsets != null && spare.offsets.length > n && spare.offsets != offsets
        ? spare.offsets : new int[n + 1];
    outOffsets[0] = 0;
    int at = 0;
    for (int k = 0; k < n; k++) {
      int r = rows[k];
      if (r >= 0) {
        int len = offsets[r + 1] - offsets[r];
        System.arraycopy(data, offsets[r], out, at, len);
        at += len;
      }
      outOffsets[k + 1] = at;
    }
    return new BytesColumn(type, out, outOffsets, gatherNulls(rows, n, reuse), n);
  }

  @Override
  public int hash(int i, int seed) {
    if (ids != null) {
      return dictionary.hash(ids[i], seed);
    }
    return Murmur3.hashBytes(data, offsets[i], offsets[i + 1] - offsets[i], seed);
  }

  @Override
  public boolean valueEquals(int i, Column other, int j) {
    BytesColumn o = (BytesColumn) other;
    if (ids != null) {
      if (o.ids != null && o.dictionary == dictionary) {
        return ids[i] == o.ids[j];
      }
      return dictionary.valueEquals(ids[i], other, j);
    }
    if (o.ids != null) {
      return o.dictionary.valueEquals(o.ids[j], this, i);
    }
    return rangeEquals(data, offsets[i], offsets[i + 1], o.data, o.offsets[j], o.offsets[j + 1]);
  }

  @Override
  public int compareValues(int i, Column other, int j) {
    BytesColumn o = (BytesColumn) other;
    if (ids != null) {
      return dictionary.compareValues(ids[i], other, j);
    }
    if (o.ids != null) {
      return -o.dictionary.compareValues(o.ids[j], this, i);
    }
    return Arrays.compareUnsigned(data, offsets[i], offsets[i + 1], o.data, o.offsets[j], o.offsets[j + 1]);
  }

  @Override
  public void appendFrom(Column src, int row) {
    if (src.isNull(row)) {
      appendNull();
      return;
    }
    BytesColumn s = (BytesColumn) src;
    if (s.ids != null) {
      appendFrom(s.dictionary, s.ids[row]);
      return;
    }
    append(s.data, s.offsets[row], s.offsets[row + 1] - s.offsets[row]);
  }

  @Override
  public void appendRows(Column src, int[] rows, int from, int to) {
    BytesColumn s = (BytesColumn) src;
    if (s.ids != null) {
      // Row by row from the dictionary: the rows' values are the dictionary's entries.
      for (int k = from; k < to; k++) {
        appendFrom(s, rows[k]);
      }
      return;
    }
    materialize();
    ensureCapacity(size + (to - from));
    long total = 0;
    for (int k = from; k < to; k++) {
      total += s.offsets[rows[k] + 1] - s.offsets[rows[k]];
    }
    int end = offsets[size];
    ensureData((int) Math.min(Integer.MAX_VALUE - 8, end + total));
    int at = size;
    for (int k = from; k < to; k++) {
      int r = rows[k];
      int len = s.offsets[r + 1] - s.offsets[r];
      System.arraycopy(s.data, s.offsets[r], data, end, len);
      end += len;
      offsets[++size] = end;
    }
    appendNullsOf(src, rows, from, to, at);
  }

  @Override
  public void clear() {
    materialize();
    super.clear();
    offsets[0] = 0;
  }

  /** Appends a non-null value. */
  public void append(byte[] v) {
    append(v, 0, v.length);
  }

  /** Appends the non-null value {@code src[from .. from + len)}. */
  public void append(byte[] src, int from, int len) {
    materialize();
    ensureCapacity(size + 1);
    int end = offsets[size];
    ensureData(end + len);
    System.arraycopy(src, from, data, end, len);
    offsets[++size] = end + len;
  }

  @Override
  protected void setValue(int i, Column src, int row) {
    throw new UnsupportedOperationException("a BytesColumn row is never overwritten");
  }

  @Override
  public void appendNull() {
    materialize();
    ensureCapacity(size + 1);
    markNull(size);
    offsets[size + 1] = offsets[size];
    size++;
  }

  @Override
  public Object get(int i) {
    if (isNull(i)) {
      return null;
    }
    return type.kind() == DataType.Kind.VARCHAR ? string(i) : value(i);
  }

  @Override
  public long bytes() {
    if (ids != null) {
      // The dictionary is shared by the batches of a row group; each counts its ids.
      return 32L + ids.length * 4L + (nulls == null ? 0 : nulls.length);
    }
    return 32L + data.length + offsets.length * 4L + (nulls == null ? 0 : nulls.length);
  }

  @Override
  protected int capacity() {
    return ids != null ? ids.length : offsets.length - 1;
  }

  @Override
  protected void grow(int capacity) {
    materialize();
    offsets = Arrays.copyOf(offsets, capacity + 1);
  }

  private void ensureData(int needed) {
    if (needed > data.length) {
      data = Arrays.copyOf(data, Math.max(needed, data.length * 2));
    }
  }
}

package dev.squall.engine.column;

import dev.squall.engine.types.SqlType;
import java.util.Arrays;
import java.util.List;

/**
 * One column of a batch in the engine's working form: a Java array of values of one physical kind
 * plus a null mask. Expression evaluators and operator state (hash tables, sort buffers) work on
 * columns; operators exchange Arrow batches and convert at their edges ({@link ArrowColumns}).
 *
 * <p>Columns handed to an evaluator are never modified by it. A column can also grow row by row
 * ({@link #appendFrom}, {@link #appendNull}), which is how aggregation keys and join build sides
 * are kept.
 */
public abstract sealed class Column permits LongColumn, DoubleColumn, BoolColumn, DecimalColumn, BytesColumn {
  protected final SqlType type;
  protected int size;
  /** True where the value is NULL; {@code null} when the column has no NULL. */
  protected boolean[] nulls;

  protected Column(SqlType type, int size, boolean[] nulls) {
    this.type = type;
    this.size = size;
    this.nulls = nulls;
  }

  public final SqlType type() {
    return type;
  }

  public final int size() {
    return size;
  }

  public final boolean isNull(int i) {
    return nulls != null && nulls[i];
  }

  public final boolean mayHaveNulls() {
    return nulls != null;
  }

  /** The null mask (true = NULL), or null when there is none; not a copy. */
  public final boolean[] nullMask() {
    return nulls;
  }

  /** An empty growable column of a type. */
  public static Column empty(SqlType type, int capacity) {
    int c = Math.max(capacity, 4);
    return switch (type.physical()) {
      case LONG -> new LongColumn(type, new long[c], null, 0);
      case DOUBLE -> new DoubleColumn(type, new double[c], null, 0);
      case BOOL -> new BoolColumn(type, new boolean[c], null, 0);
      case DECIMAL -> new DecimalColumn(type, new long[c], null, null, 0);
      case BYTES -> BytesColumn.withCapacity(type, c, c * 16);
    };
  }

  /** A column of {@code n} NULLs. */
  public static Column nulls(SqlType type, int n) {
    Column c = empty(type, n);
    for (int i = 0; i < n; i++) {
      c.appendNull();
    }
    return c;
  }

  /** The rows {@code rows[0..n)} of this column in that order; a row index of -1 gives NULL. */
  public final Column gather(int[] rows, int n) {
    return gather(rows, n, null);
  }

  /**
   * {@link #gather(int[], int)} into the arrays of {@code reuse} where they are of the same kind and
   * large enough (fresh arrays otherwise), so that an operator whose consumer keeps no batch can
   * gather every batch into the previous batch's arrays instead of allocating. The result is a new
   * column object; {@code reuse} must no longer be read by anyone once this is called. Arrays the
   * two columns share (a dictionary, BigInteger rows) are never written.
   *
   * @param reuse a column whose arrays may be overwritten, or null to allocate
   */
  public abstract Column gather(int[] rows, int n, Column reuse);

  /**
   * Seed of a row's hash before its first key column (Spark's {@code Murmur3Hash} uses 42 too).
   * Shuffle partitioning, aggregation and joins all hash with it, so a row hashes the same in
   * every task and on both sides of a join.
   */
  public static final int HASH_SEED = 42;

  /**
   * Hash of the non-null value at row i, {@link dev.squall.engine.hash.Murmur3} with {@code seed}
   * (the running hash of the row's earlier key columns). Equal SQL values of one physical kind hash
   * equally: integers of any width, DATE days, TIMESTAMP micros and intervals as 64-bit integers;
   * REAL/DOUBLE as IEEE bits with -0.0 as 0.0 and one NaN; DECIMAL as the 128-bit unscaled value,
   * low then high 64 bits (equal only at equal scale); strings and binaries as their bytes;
   * BOOLEAN as 0/1.
   */
  public abstract int hash(int i, int seed);

  /** {@link #hash(int, int)} with {@link #HASH_SEED}. */
  public final int hash(int i) {
    return hash(i, HASH_SEED);
  }

  /**
   * Combines this column into the running row hashes {@code hashes[0..n)}: each non-null row's
   * hash becomes {@code hash(i, hashes[i])}; a NULL leaves it unchanged (so all rows with NULL in
   * this column meet, as in Spark).
   */
  public void hashInto(int[] hashes, int n) {
    for (int i = 0; i < n; i++) {
      if (nulls == null || !nulls[i]) {
        hashes[i] = hash(i, hashes[i]);
      }
    }
  }

  /** Whether the non-null values at row i of this and row j of {@code other} (same physical kind) are equal. */
  public abstract boolean valueEquals(int i, Column other, int j);

  /** Order of the non-null values at row i of this and row j of {@code other} (same physical kind). */
  public abstract int compareValues(int i, Column other, int j);

  /** Appends row {@code row} of {@code src} (same physical kind), NULL included. */
  public abstract void appendFrom(Column src, int row);

  public abstract void appendNull();

  /**
   * Appends rows {@code rows[from..to)} of {@code src} (same physical kind, same scale for
   * DECIMAL), NULLs included: a bulk {@link #appendFrom} for shuffle staging and join build sides.
   */
  public void appendRows(Column src, int[] rows, int from, int to) {
    ensureCapacity(size + (to - from));
    for (int k = from; k < to; k++) {
      appendFrom(src, rows[k]);
    }
  }

  /** Empties the column, keeping its arrays for reuse. */
  public void clear() {
    size = 0;
    nulls = null;
  }

  /** Copies the NULL flags of {@code src}'s rows {@code rows[from..to)} to this column's rows from {@code at}. */
  protected final void appendNullsOf(Column src, int[] rows, int from, int to, int at) {
    if (src.nulls == null) {
      if (nulls != null) {
        java.util.Arrays.fill(nulls, at, at + (to - from), false);
      }
      return;
    }
    for (int k = from; k < to; k++) {
      if (src.nulls[rows[k]]) {
        markNull(at + k - from);
      } else if (nulls != null) {
        nulls[at + k - from] = false;
      }
    }
  }

  /** Overwrites row {@code i} (i &lt; size) with row {@code row} of {@code src} (same physical kind), NULL included. */
  public final void setFrom(int i, Column src, int row) {
    if (src.isNull(row)) {
      markNull(i);
      return;
    }
    if (nulls != null) {
      nulls[i] = false;
    }
    setValue(i, src, row);
  }

  /** Copies the non-null value of {@code src} row {@code row} into row i. */
  protected abstract void setValue(int i, Column src, int row);

  /** The value at row i as a Java object (Long, Double, Boolean, BigDecimal, String or byte[]), null for NULL. */
  public abstract Object get(int i);

  /** Approximate heap bytes held, for memory accounting. */
  public abstract long bytes();

  protected abstract int capacity();

  protected abstract void grow(int capacity);

  protected final void ensureCapacity(int needed) {
    if (needed > capacity()) {
      grow(Math.max(needed, capacity() * 2));
    }
    if (nulls != null && nulls.length < capacity()) {
      nulls = Arrays.copyOf(nulls, capacity());
    }
  }

  protected final void markNull(int i) {
    if (nulls == null) {
      nulls = new boolean[capacity()];
    }
    nulls[i] = true;
  }

  /**
   * The null mask of rows {@code rows[0..n)}, or null when none of them is NULL; written over
   * {@code reuse}'s mask when that is large enough (every one of the n entries is written).
   */
  protected final boolean[] gatherNulls(int[] rows, int n, Column reuse) {
    if (nulls == null) {
      // No NULL here: only a row index of -1 (an outer join's missing side) makes one.
      int any = 0;
      for (int k = 0; k < n; k++) {
        any |= rows[k];
      }
      if (any >= 0) {
        return null;
      }
    }
    int first = 0;
    while (first < n && rows[first] >= 0 && (nulls == null || !nulls[rows[first]])) {
      first++;
    }
    if (first == n) {
      return null;
    }
    boolean[] spare = reuse == null ? null : reuse.nulls;
    boolean[] out = spare != null && spare != nulls && spare.length >= n ? spare : new boolean[n];
    Arrays.fill(out, 0, first, false);
    for (int k = first; k < n; k++) {
      int r = rows[k];
      out[k] = r < 0 || (nulls != null && nulls[r]);
    }
    return out;
  }

  /** Rows of several columns of one type, one after another. */
  public static Column concat(SqlType type, List<Column> parts) {
    int total = 0;
    for (Column c : parts) {
      total += c.size();
    }
    Column out = empty(type, total);
    int[] identity = new int[0];
    for (Column c : parts) {
      int n = c.size();
      if (identity.length < n) {
        identity = new int[n];
        for (int i = 0; i < n; i++) {
          identity[i] = i;
        }
      }
      out.appendRows(c, identity, 0, n);
    }
    return out;
  }
}

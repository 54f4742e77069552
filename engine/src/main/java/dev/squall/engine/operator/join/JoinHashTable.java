package dev.squall.engine.operator.join;

import dev.squall.engine.column.Column;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.hash.RowHashes;
import java.util.Arrays;

/**
 * The build side of a hash join (DataFusion keeps its {@code JoinHashMap} apart from the operator
 * the same way). A row with a NULL key is never found, since NULL keys never match; build rows of
 * one key are listed in input order.
 *
 * <p>Two layouts, chosen at build time:
 *
 * <ul>
 *   <li>Any keys: a chained table by the engine's row hash ({@link RowHashes}); a probe walks the
 *       chain of its slot ({@link #first}, {@link #next}, {@link #matches}).
 *   <li>One BIGINT-like key ({@link LongColumn}), the common key/foreign-key case: each distinct key
 *       owns one slot that gives its first build row, so a probe costs one random access
 *       ({@link #findLongs}); further rows of the same key follow through {@link #nextSameKey}. The
 *       slots are direct-mapped ({@code key - min}) when the keys' range is small enough, else an
 *       open-addressing array holding the key beside its first row, so that a probe reads one cache
 *       line.
 * </ul>
 *
 * <p>Memory ({@link #bytes}): chained, 4 bytes per slot (at least twice the rows) and 8 per row;
 * single long key, 4 bytes per row and 16 per open-addressing slot (at least twice the rows), or no
 * more than that in direct-mapped slots of 4 bytes.
 */
final class JoinHashTable {
  /** 2^64 / golden ratio, odd: Fibonacci hashing of long keys into the open-addressing slots. */
  private static final long SPREAD64 = 0x9E3779B97F4A7C15L;

  private final Column[] keys;

  // Chained layout (any keys); null in the single-long-key layout.
  private int[] heads;
  private int[] hashes;
  private int shift;

  /**
   * The chain of each build row: the next build row of its slot (chained layout) or of its key
   * (single-long-key layout), -1 at the end; -2 for a row with a NULL key, which no slot reaches.
   */
  private final int[] chain;

  // Single-long-key layout; longMode false in the chained layout.
  private final boolean longMode;
  /** Direct-mapped slots: the first build row of key {@code min + i}, or -1; null if open-addressed. */
  private int[] direct;
  private long min;
  /**
   * Open-addressing slots, two longs each: the key, then its first build row + 1 (0: empty slot).
   * Linear probing; at most half the slots are used.
   */
  private long[] open;
  private int openShift;

  /** Indexes rows {@code 0..rows)} of the build side's key columns (already in the shared key types). */
  JoinHashTable(Column[] keys, int rows) {
    this.keys = keys;
    this.chain = new int[rows];
    this.longMode = keys.length == 1 && keys[0] instanceof LongColumn;
    if (longMode) {
      buildLong((LongColumn) keys[0], rows);
    } else {
      buildChained(rows);
    }
  }

  /**
   * Heap bytes of the table (not of the key columns) over {@code rows} build rows: an upper bound of
   * whichever layout is built.
   *
   * @param singleLongKey whether the key is one column held as longs (the layout the constructor picks
   *     for a single {@link LongColumn} key)
   */
  static long bytes(int rows, boolean singleLongKey) {
    return singleLongKey ? openSlots(rows) * 16L + rows * 4L : chainedSlots(rows) * 4L + rows * 8L;
  }

  /** Slots of the chained layout: a power of two, at least twice the rows. */
  private static long chainedSlots(int rows) {
    return (long) Integer.highestOneBit(Math.max(16, rows * 2 - 1)) << 1;
  }

  /** Slots of the open-addressing layout: a power of two, at least twice the rows (load <= 1/2). */
  private static long openSlots(int rows) {
    return Math.max(16L, Long.highestOneBit(Math.max(1L, rows * 2L - 1)) << 1);
  }

  private void buildChained(int rows) {
    int slots = (int) chainedSlots(rows);
    this.shift = 32 - Integer.numberOfTrailingZeros(slots);
    this.heads = new int[slots];
    Arrays.fill(heads, -1);
    this.hashes = RowHashes.of(keys, rows, new int[rows]);
    // Insert in reverse so that each chain lists build rows in input order.
    for (int b = rows - 1; b >= 0; b--) {
      if (JoinOperator.anyNull(keys, b)) {
        chain[b] = -2;
        continue;
      }
      int s = RowHashes.slot(hashes[b], shift);
      chain[b] = heads[s];
      heads[s] = b;
    }
  }

  private void buildLong(LongColumn key, int rows) {
    long[] values = key.values();
    boolean nulls = key.mayHaveNulls();
    long lo = Long.MAX_VALUE;
    long hi = Long.MIN_VALUE;
    for (int b = 0; b < rows; b++) {
      if (nulls && key.isNull(b)) {
        continue;
      }
      lo = Math.min(lo, values[b]);
      hi = Math.max(hi, values[b]);
    }
    long openSlots = openSlots(rows);
    // hi - lo wraps negative when the range exceeds Long.MAX_VALUE; no rows leaves lo > hi.
    long range = hi - lo;
    if (lo > hi) {
      buildDirect(values, nulls ? key : null, rows, 0, 0); // no key to find
    } else if (range >= 0 && range < Math.min(openSlots * 4, Integer.MAX_VALUE - 8)) {
      // Direct-mapped: no larger than the open-addressing slots would be, and no hashing at all.
      buildDirect(values, nulls ? key : null, rows, lo, (int) range + 1);
    } else {
      buildOpen(values, nulls ? key : null, rows, (int) openSlots);
    }
  }

  private void buildDirect(long[] values, LongColumn nulls, int rows, long lo, int size) {
    this.min = lo;
    this.direct = new int[size];
    Arrays.fill(direct, -1);
    // Insert in reverse so that each key's rows are listed in input order.
    for (int b = rows - 1; b >= 0; b--) {
      if (nulls != null && nulls.isNull(b)) {
        chain[b] = -2;
        continue;
      }
      int i = (int) (values[b] - lo);
      chain[b] = direct[i];
      direct[i] = b;
    }
  }

  private void buildOpen(long[] values, LongColumn nulls, int rows, int slots) {
    this.open = new long[slots * 2];
    this.openShift = 64 - Integer.numberOfTrailingZeros(slots);
    int mask = slots - 1;
    for (int b = rows - 1; b >= 0; b--) {
      if (nulls != null && nulls.isNull(b)) {
        chain[b] = -2;
        continue;
      }
      long v = values[b];
      int s = (int) ((v * SPREAD64) >>> openShift);
      while (open[2 * s + 1] != 0 && open[2 * s] != v) {
        s = (s + 1) & mask;
      }
      chain[b] = (int) open[2 * s + 1] - 1;
      open[2 * s] = v;
      open[2 * s + 1] = b + 1;
    }
  }

  /** Whether the key is a single long column, so that {@link #findLongs} applies (and not {@link #first}). */
  boolean singleLongKey() {
    return longMode;
  }

  /**
   * For each probe row {@code p} in {@code 0..n)}, the first build row whose key equals
   * {@code probe}'s value at p, into {@code out[p]}; -1 where none does or the probe value is NULL.
   * Every lookup is done before any is used, so that the cache misses of a batch overlap.
   *
   * @param probe the probe key, in the shared key type
   * @param out at least n entries
   */
  void findLongs(LongColumn probe, int n, int[] out) {
    long[] values = probe.values();
    if (direct != null) {
      int size = direct.length;
      long lo = min;
      for (int p = 0; p < n; p++) {
        // Unsigned: a value below min wraps to a huge offset; v - lo cannot wrap into range.
        long d = values[p] - lo;
        out[p] = Long.compareUnsigned(d, size) < 0 ? direct[(int) d] : -1;
      }
    } else {
      long[] slots = open;
      int mask = (slots.length >>> 1) - 1;
      for (int p = 0; p < n; p++) {
        long v = values[p];
        int s = (int) ((v * SPREAD64) >>> openShift);
        long row;
        while ((row = slots[2 * s + 1]) != 0 && slots[2 * s] != v) {
          s = (s + 1) & mask;
        }
        out[p] = (int) row - 1;
      }
    }
    if (probe.mayHaveNulls()) {
      for (int p = 0; p < n; p++) {
        if (probe.isNull(p)) {
          out[p] = -1;
        }
      }
    }
  }

  /** Whether the single-long-key slots are direct-mapped rather than open-addressed (for tests). */
  boolean directMapped() {
    return direct != null;
  }

  /** Single-long-key layout: the build row after {@code b} with the same key, or -1. */
  int nextSameKey(int b) {
    return chain[b];
  }

  /** Chained layout: the first build row whose key may equal a probe row of hash {@code hash}, or -1. */
  int first(int hash) {
    return heads[RowHashes.slot(hash, shift)];
  }

  /** Chained layout: the build row after {@code b} in its chain, or -1. */
  int next(int b) {
    return chain[b];
  }

  /**
   * Chained layout: whether build row b has the probe row's hash and keys ({@code probeKeys} row p,
   * no NULL).
   */
  boolean matches(int b, int hash, Column[] probeKeys, int p) {
    if (hashes[b] != hash) {
      return false;
    }
    for (int k = 0; k < keys.length; k++) {
      if (!probeKeys[k].valueEquals(p, keys[k], b)) {
        return false;
      }
    }
    return true;
  }
}

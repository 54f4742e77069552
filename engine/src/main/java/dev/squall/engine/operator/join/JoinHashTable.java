package dev.squall.engine.operator.join;

import dev.squall.engine.column.Column;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.hash.RowHashes;
import java.util.Arrays;

/**
 * The build side of a hash join: a chained hash table over its key columns (DataFusion keeps its
 * {@code JoinHashMap} apart from the operator the same way). Rows are found by the engine's row hash
 * ({@link RowHashes}); a row with a NULL key is never found, since NULL keys never match. Each chain
 * lists build rows in input order.
 *
 * <p>Memory: 4 bytes per slot (at least twice the rows, a power of two) and 8 bytes per row.
 */
final class JoinHashTable {
  private final Column[] keys;
  private final int[] heads;
  private final int[] chain;
  private final int[] hashes;
  private final int shift;
  /** The key values when the key is one BIGINT-like column (the common case), else null. */
  private final long[] longKeys;

  /** Indexes rows {@code 0..rows)} of the build side's key columns (already in the shared key types). */
  JoinHashTable(Column[] keys, int rows) {
    this.keys = keys;
    int slots = Integer.highestOneBit(Math.max(16, rows * 2 - 1)) << 1;
    this.shift = 32 - Integer.numberOfTrailingZeros(slots);
    this.heads = new int[slots];
    Arrays.fill(heads, -1);
    this.chain = new int[rows];
    this.hashes = RowHashes.of(keys, rows, new int[rows]);
    this.longKeys = keys.length == 1 && keys[0] instanceof LongColumn l ? l.values() : null;
    // Insert in reverse so that each chain lists build rows in input order.
    for (int b = rows - 1; b >= 0; b--) {
      if (JoinOperator.anyNull(keys, b)) {
        chain[b] = -2; // never reachable: not linked into any chain
        continue;
      }
      int s = RowHashes.slot(hashes[b], shift);
      chain[b] = heads[s];
      heads[s] = b;
    }
  }

  /** Heap bytes of the table (not of the key columns). */
  static long bytes(int rows) {
    long slots = Integer.highestOneBit(Math.max(16, rows * 2 - 1)) << 1;
    return slots * 4L + rows * 8L;
  }

  /** The first build row whose key may equal a probe row of hash {@code hash}, or -1. */
  int first(int hash) {
    return heads[RowHashes.slot(hash, shift)];
  }

  /** The build row after {@code b} in its chain, or -1. */
  int next(int b) {
    return chain[b];
  }

  /** Whether the key is a single long column, so that {@link #findLong} applies. */
  boolean singleLongKey() {
    return longKeys != null;
  }

  /**
   * The first build row from {@code b} on along its chain whose key equals {@code value} (hash
   * {@code hash}), or -1: the single-long-key probe, comparing values in place rather than through
   * the key columns.
   */
  int findLong(int b, int hash, long value) {
    while (b >= 0 && (hashes[b] != hash || longKeys[b] != value)) {
      b = chain[b];
    }
    return b;
  }

  /** Whether build row b has the probe row's hash and keys ({@code probeKeys} row p, no NULL). */
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

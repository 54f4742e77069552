package dev.squall.engine.hash;

import dev.squall.engine.column.Column;
import java.util.Arrays;

/**
 * Row hashes over key columns, column at a time: the one hashing path of aggregation, joins and
 * shuffle partitioning (see {@link Column#hash(int, int)} for the function per type).
 */
public final class RowHashes {
  /** Fibonacci hashing's multiplier, 2^32 / golden ratio, odd. */
  private static final int SPREAD = 0x9E3779B1;

  private RowHashes() {}

  /**
   * The hashes of rows {@code 0..n)} of the key columns into {@code out} (at least n entries):
   * each starts at {@link Column#HASH_SEED} and takes each key column in turn, a NULL leaving it
   * unchanged.
   */
  public static int[] of(Column[] keys, int n, int[] out) {
    Arrays.fill(out, 0, n, Column.HASH_SEED);
    for (Column k : keys) {
      k.hashInto(out, n);
    }
    return out;
  }

  /**
   * The slot of a row hash in a table of {@code 2^(32 - shift)} slots, from the hash's high bits
   * after a multiplicative spread (Knuth's multiplicative hashing). Taking high bits matters: a
   * shuffle partition holds rows with equal {@code hash mod partitions}, so their low bits agree.
   */
  public static int slot(int hash, int shift) {
    return (hash * SPREAD) >>> shift;
  }
}

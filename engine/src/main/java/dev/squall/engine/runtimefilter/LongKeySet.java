package dev.squall.engine.runtimefilter;

import java.util.Arrays;

/**
 * A set of long keys without boxing: open addressing with linear probing over a power-of-two
 * table at most half full. For the few keys a runtime filter lists.
 */
final class LongKeySet {
  private long[] keys = new long[16];
  private boolean[] used = new boolean[16];
  private int size;

  int size() {
    return size;
  }

  /** Adds a key; true when it was not there yet. */
  boolean add(long key) {
    int i = slotOf(key);
    if (used[i]) {
      return false;
    }
    used[i] = true;
    keys[i] = key;
    if (++size * 2 > keys.length) {
      grow();
    }
    return true;
  }

  boolean contains(long key) {
    return used[slotOf(key)];
  }

  /** The slot holding {@code key}, or the empty slot where it would go. */
  private int slotOf(long key) {
    int mask = keys.length - 1;
    long h = key * 0x9E3779B97F4A7C15L;
    int i = (int) (h ^ (h >>> 32)) & mask;
    while (used[i] && keys[i] != key) {
      i = (i + 1) & mask;
    }
    return i;
  }

  /** The keys in ascending order. */
  long[] sorted() {
    long[] out = new long[size];
    int n = 0;
    for (int i = 0; i < keys.length; i++) {
      if (used[i]) {
        out[n++] = keys[i];
      }
    }
    Arrays.sort(out);
    return out;
  }

  private void grow() {
    long[] old = keys;
    boolean[] oldUsed = used;
    keys = new long[old.length * 2];
    used = new boolean[old.length * 2];
    size = 0;
    for (int i = 0; i < old.length; i++) {
      if (oldUsed[i]) {
        add(old[i]);
      }
    }
  }
}

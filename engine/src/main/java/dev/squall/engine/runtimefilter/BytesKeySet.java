package dev.squall.engine.runtimefilter;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A set of string keys held as UTF-8 bytes, looked up by a byte range of a column without making a
 * String: open addressing over each key's {@link KeyHash} (compared first), then its bytes.
 */
final class BytesKeySet {
  private byte[][] keys = new byte[16][];
  private long[] hashes = new long[16];
  private int size;

  int size() {
    return size;
  }

  /** Adds {@code data[from .. from + len)} (hash {@code hash}); true when it was not there yet. */
  boolean add(byte[] data, int from, int len, long hash) {
    int i = slotOf(data, from, len, hash);
    if (keys[i] != null) {
      return false;
    }
    keys[i] = Arrays.copyOfRange(data, from, from + len);
    hashes[i] = hash;
    if (++size * 2 > keys.length) {
      grow();
    }
    return true;
  }

  boolean contains(byte[] data, int from, int len, long hash) {
    return keys[slotOf(data, from, len, hash)] != null;
  }

  /** The slot holding the key, or the empty slot where it would go. */
  private int slotOf(byte[] data, int from, int len, long hash) {
    int mask = keys.length - 1;
    int i = (int) hash & mask;
    while (keys[i] != null && !(hashes[i] == hash && Arrays.equals(keys[i], 0, keys[i].length, data, from, from + len))) {
      i = (i + 1) & mask;
    }
    return i;
  }

  /** Every key's hash, for filling a Bloom filter. */
  long[] hashes() {
    long[] out = new long[size];
    int n = 0;
    for (int i = 0; i < keys.length; i++) {
      if (keys[i] != null) {
        out[n++] = hashes[i];
      }
    }
    return out;
  }

  /** Every key as a String, in no particular order. */
  String[] strings() {
    String[] out = new String[size];
    int n = 0;
    for (byte[] k : keys) {
      if (k != null) {
        out[n++] = new String(k, StandardCharsets.UTF_8);
      }
    }
    return out;
  }

  private void grow() {
    byte[][] old = keys;
    long[] oldHashes = hashes;
    keys = new byte[old.length * 2][];
    hashes = new long[old.length * 2];
    size = 0;
    for (int i = 0; i < old.length; i++) {
      if (old[i] != null) {
        add(old[i], 0, old[i].length, oldHashes[i]);
      }
    }
  }
}

package dev.squall.engine.operator.aggregate;

import dev.squall.engine.column.BytesColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.hash.RowHashes;
import dev.squall.engine.types.SqlType;
import java.util.Arrays;
import java.util.List;

/**
 * Maps group-key rows to dense group ids with an open-addressing hash table (linear probing). The
 * distinct keys are kept as growable columns in group-id order; NULL keys form a group of their
 * own, as GROUP BY requires. Sized so that spilling can later cut it by hash partition.
 */
final class GroupTable {
  private final Column[] keys;
  private int groups;
  private int[] slots; // group id + 1; 0 = empty
  private int shift = 32 - 11; // slots.length == 2^(32 - shift)
  private int[] groupHash;
  private int[] hashes = new int[0];
  private long variableBytes;

  GroupTable(List<SqlType> keyTypes) {
    keys = new Column[keyTypes.size()];
    for (int k = 0; k < keys.length; k++) {
      keys[k] = Column.empty(keyTypes.get(k), 1024);
    }
    slots = new int[2048];
    groupHash = new int[1024];
  }

  int groups() {
    return groups;
  }

  Column[] keys() {
    return keys;
  }

  /** The group id of each of the n rows of {@code cols}, adding new groups as they appear. */
  int[] assign(Column[] cols, int n) {
    int[] ids = new int[n];
    if (hashes.length < n) {
      hashes = new int[n];
    }
    RowHashes.of(cols, n, hashes);
    for (int i = 0; i < n; i++) {
      int h = hashes[i];
      int mask = slots.length - 1;
      int s = RowHashes.slot(h, shift);
      while (true) {
        int g = slots[s] - 1;
        if (g < 0) {
          g = addGroup(cols, i, h);
          slots[s] = g + 1;
          ids[i] = g;
          if (groups * 2 > slots.length) {
            rehash();
          }
          break;
        }
        if (groupHash[g] == h && keysEqual(g, cols, i)) {
          ids[i] = g;
          break;
        }
        s = (s + 1) & mask;
      }
    }
    return ids;
  }

  private boolean keysEqual(int g, Column[] cols, int i) {
    for (int k = 0; k < keys.length; k++) {
      Column key = keys[k];
      Column c = cols[k];
      boolean gn = key.isNull(g);
      boolean cn = c.isNull(i);
      if (gn || cn) {
        if (gn != cn) {
          return false;
        }
      } else if (!key.valueEquals(g, c, i)) {
        return false;
      }
    }
    return true;
  }

  private int addGroup(Column[] cols, int i, int h) {
    int g = groups++;
    for (int k = 0; k < keys.length; k++) {
      keys[k].appendFrom(cols[k], i);
      if (cols[k] instanceof BytesColumn b && !b.isNull(i)) {
        variableBytes += 4 + b.length(i);
      }
    }
    if (g >= groupHash.length) {
      groupHash = Arrays.copyOf(groupHash, groupHash.length * 2);
    }
    groupHash[g] = h;
    return g;
  }

  private void rehash() {
    int[] bigger = new int[slots.length * 2];
    int mask = bigger.length - 1;
    shift--;
    for (int g = 0; g < groups; g++) {
      int s = RowHashes.slot(groupHash[g], shift);
      while (bigger[s] != 0) {
        s = (s + 1) & mask;
      }
      bigger[s] = g + 1;
    }
    slots = bigger;
  }

  /** Approximate heap bytes of the table and its keys. */
  long bytes() {
    long b = slots.length * 4L + groupHash.length * 4L + variableBytes;
    for (Column k : keys) {
      b += (long) groups * 9 + 64;
    }
    return b;
  }
}

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
 * own, as GROUP BY requires. When it must stop growing (its operator spills), {@link #lookup} finds existing groups only.
 */
final class GroupTable {
  private final Column[] keys;
  private int groups;
  private int[] slots; // group id + 1; 0 = empty
  private int shift = 32 - 11; // slots.length == 2^(32 - shift)
  private int[] groupHash;
  private int[] hashes = new int[0];
  private long variableBytes;
  /**
   * Group ids by dictionary entry (one per combination of the key columns' entries), while every
   * key column is dictionary-encoded with these dictionaries: -1 where not seen yet.
   */
  private BytesColumn[] cachedDictionaries;
  private int[] groupOfEntries;
  /** Largest number of entry combinations cached (4 bytes each). */
  private static final int MAX_CACHED_COMBINATIONS = 1 << 16;

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
    int[] cache = entryCache(cols);
    if (cache != null) {
      assignByEntries(cols, n, ids, cache);
      return ids;
    }
    RowHashes.of(cols, n, hashes);
    for (int i = 0; i < n; i++) {
      ids[i] = find(cols, i, hashes[i]);
    }
    return ids;
  }

  /**
   * Dictionary-encoded keys: a row's group is looked up by its combination of dictionary entries;
   * only combinations not seen yet (and NULL keys) go through the hash table.
   */
  private void assignByEntries(Column[] cols, int n, int[] ids, int[] cache) {
    int[][] entryIds = new int[cols.length][];
    int[] sizes = new int[cols.length];
    boolean nulls = false;
    for (int k = 0; k < cols.length; k++) {
      BytesColumn b = (BytesColumn) cols[k];
      entryIds[k] = b.dictionaryIds();
      sizes[k] = b.dictionaryValues().size();
      nulls |= b.mayHaveNulls();
    }
    boolean hashed = false;
    for (int i = 0; i < n; i++) {
      int combination = -1;
      if (!nulls || !anyNull(cols, i)) {
        combination = 0;
        for (int k = 0; k < cols.length; k++) {
          combination = combination * sizes[k] + entryIds[k][i];
        }
        int g = cache[combination];
        if (g >= 0) {
          ids[i] = g;
          continue;
        }
      }
      if (!hashed) {
        RowHashes.of(cols, n, hashes);
        hashed = true;
      }
      int g = find(cols, i, hashes[i]);
      ids[i] = g;
      if (combination >= 0) {
        cache[combination] = g;
      }
    }
  }

  private static boolean anyNull(Column[] cols, int i) {
    for (Column c : cols) {
      if (c.isNull(i)) {
        return true;
      }
    }
    return false;
  }

  /** The entry cache for these key columns, or null when some key is not dictionary-encoded. */
  private int[] entryCache(Column[] cols) {
    long combinations = 1;
    for (Column c : cols) {
      if (!(c instanceof BytesColumn b) || !b.isDictionary()) {
        return null;
      }
      combinations *= b.dictionaryValues().size();
      if (combinations > MAX_CACHED_COMBINATIONS) {
        return null;
      }
    }
    boolean same = cachedDictionaries != null;
    for (int k = 0; same && k < cols.length; k++) {
      same = cachedDictionaries[k] == ((BytesColumn) cols[k]).dictionaryValues();
    }
    if (!same) {
      cachedDictionaries = new BytesColumn[cols.length];
      for (int k = 0; k < cols.length; k++) {
        cachedDictionaries[k] = ((BytesColumn) cols[k]).dictionaryValues();
      }
      groupOfEntries = new int[(int) combinations];
      Arrays.fill(groupOfEntries, -1);
    }
    return groupOfEntries;
  }

  /**
   * The group id of each of the n rows of {@code cols} whose group exists, -1 for the others
   * (nothing is added): the lookup of a table that has stopped growing because it spills.
   *
   * @param hashes the rows' hashes ({@link RowHashes#of})
   */
  int[] lookup(Column[] cols, int n, int[] hashes) {
    int[] ids = new int[n];
    int mask = slots.length - 1;
    for (int i = 0; i < n; i++) {
      int h = hashes[i];
      int s = RowHashes.slot(h, shift);
      int found = -1;
      while (true) {
        int g = slots[s] - 1;
        if (g < 0) {
          break;
        }
        if (groupHash[g] == h && keysEqual(g, cols, i)) {
          found = g;
          break;
        }
        s = (s + 1) & mask;
      }
      ids[i] = found;
    }
    return ids;
  }

  /** The group of row i of {@code cols} (hash h), added when new. */
  private int find(Column[] cols, int i, int h) {
    int mask = slots.length - 1;
    int s = RowHashes.slot(h, shift);
    while (true) {
      int g = slots[s] - 1;
      if (g < 0) {
        g = addGroup(cols, i, h);
        slots[s] = g + 1;
        if (groups * 2 > slots.length) {
          rehash();
        }
        return g;
      }
      if (groupHash[g] == h && keysEqual(g, cols, i)) {
        return g;
      }
      s = (s + 1) & mask;
    }
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
    long b = slots.length * 4L + groupHash.length * 4L + variableBytes
        + (groupOfEntries == null ? 0 : groupOfEntries.length * 4L);
    for (Column k : keys) {
      b += (long) groups * 9 + 64;
    }
    return b;
  }
}

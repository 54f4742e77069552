package dev.squall.engine.operator.sort;

import dev.squall.engine.column.Column;
import dev.squall.proto.v1.SortKey;
import java.util.List;

/**
 * Row order by several sort keys (ASC/DESC, NULLS FIRST/LAST) over columns, and a merge sort of
 * row indexes by it (stable; O(n log n) comparisons, one extra int array). The one row comparison of
 * the engine's sorts: ORDER BY and TopN, and the window operator's sort, partitions and peers.
 */
public final class RowOrder {
  private final Column[] keys;
  private final boolean[] descending;
  private final boolean[] nullsFirst;
  /** Per key, its values as order-preserving longs when the column allows it (else null). */
  private final long[][] longKeys;

  /** An order of the rows of {@code columns} by {@code sortKeys} (key columns index {@code columns}). */
  public RowOrder(Column[] columns, List<SortKey> sortKeys) {
    int n = sortKeys.size();
    keys = new Column[n];
    descending = new boolean[n];
    nullsFirst = new boolean[n];
    for (int k = 0; k < n; k++) {
      SortKey key = sortKeys.get(k);
      keys[k] = columns[key.getColumn()];
      descending[k] = key.getDescending();
      nullsFirst[k] = key.getNullsFirst();
    }
    longKeys = new long[n][];
    for (int k = 0; k < n; k++) {
      longKeys[k] = asOrderedLongs(keys[k]);
    }
  }

  /**
   * The column's values as longs whose signed order is the values' order: integral, date and
   * timestamp values as they are, decimals whose unscaled values all fit a long, doubles by their
   * IEEE bits with the negative range flipped (-0.0 and 0.0 made equal first). Null when the column
   * has no such form (strings, wide decimals, booleans).
   */
  private static long[] asOrderedLongs(Column c) {
    int n = c.size();
    if (c instanceof dev.squall.engine.column.LongColumn l) {
      return l.values();
    } else if (c instanceof dev.squall.engine.column.DecimalColumn d && !d.hasBig()) {
      return d.unscaledValues();
    } else if (c instanceof dev.squall.engine.column.DoubleColumn d) {
      long[] out = new long[n];
      double[] v = d.values();
      for (int i = 0; i < n; i++) {
        double x = v[i] == 0.0 ? 0.0 : v[i];
        long bits = Double.isNaN(x) ? 0x7ff8000000000000L : Double.doubleToLongBits(x);
        out[i] = bits < 0 ? bits ^ Long.MAX_VALUE : bits;
      }
      return out;
    }
    return null;
  }

  /** Negative, zero or positive as row a comes before, ties with, or comes after row b. */
  public int compare(int a, int b) {
    for (int k = 0; k < keys.length; k++) {
      Column c = keys[k];
      boolean an = c.isNull(a);
      boolean bn = c.isNull(b);
      int r;
      if (an || bn) {
        if (an == bn) {
          continue;
        }
        r = an == nullsFirst[k] ? -1 : 1;
        return r;
      }
      long[] lk = longKeys[k];
      r = lk != null ? Long.compare(lk[a], lk[b]) : c.compareValues(a, c, b);
      if (r != 0) {
        return descending[k] ? -r : r;
      }
    }
    return 0;
  }

  /**
   * The order of row {@code a} of {@code left} and row {@code b} of {@code right} (columns of the
   * same schema, e.g. the current batches of two sorted runs) by the sort keys: the comparison
   * {@link #compare} makes within one set of columns, across two.
   */
  public static int compareAcross(List<SortKey> sortKeys, Column[] left, int a, Column[] right, int b) {
    for (SortKey key : sortKeys) {
      Column l = left[key.getColumn()];
      Column r = right[key.getColumn()];
      boolean an = l.isNull(a);
      boolean bn = r.isNull(b);
      if (an || bn) {
        if (an == bn) {
          continue;
        }
        return an == key.getNullsFirst() ? -1 : 1;
      }
      int c = l.compareValues(a, r, b);
      if (c != 0) {
        return key.getDescending() ? -c : c;
      }
    }
    return 0;
  }

  /** Row indexes 0..n) in key order; rows that tie keep their input order. */
  public int[] sortedRows(int n) {
    int[] rows = new int[n];
    for (int i = 0; i < n; i++) {
      rows[i] = i;
    }
    if (keys.length > 0 && longKeys[0] != null && !keys[0].mayHaveNulls()) {
      return sortedByLeadingLongKey(rows, n);
    }
    int[] tmp = new int[n];
    mergeSort(rows, tmp, 0, n);
    return rows;
  }

  /**
   * Merge sort of (leading key, row) pairs held side by side, so that the common case — rows
   * told apart by the first key — compares sequentially read longs; ties fall back to the full
   * row order (which compares the leading key again, equal, and goes on to the next keys).
   */
  private int[] sortedByLeadingLongKey(int[] rows, int n) {
    long[] src = longKeys[0];
    long[] key = new long[n];
    boolean desc = descending[0];
    for (int i = 0; i < n; i++) {
      key[i] = src[i];
    }
    pairSort(key, rows, new long[n], new int[n], 0, n, desc);
    return rows;
  }

  private int comparePair(long ka, int ra, long kb, int rb, boolean desc) {
    if (ka != kb) {
      return (ka < kb) != desc ? -1 : 1;
    }
    return compare(ra, rb);
  }

  private void pairSort(long[] k, int[] r, long[] tk, int[] tr, int lo, int hi, boolean desc) {
    if (hi - lo <= 16) {
      for (int i = lo + 1; i < hi; i++) {
        long kv = k[i];
        int rv = r[i];
        int j = i - 1;
        while (j >= lo && comparePair(k[j], r[j], kv, rv, desc) > 0) {
          k[j + 1] = k[j];
          r[j + 1] = r[j];
          j--;
        }
        k[j + 1] = kv;
        r[j + 1] = rv;
      }
      return;
    }
    int mid = (lo + hi) >>> 1;
    pairSort(k, r, tk, tr, lo, mid, desc);
    pairSort(k, r, tk, tr, mid, hi, desc);
    if (comparePair(k[mid - 1], r[mid - 1], k[mid], r[mid], desc) <= 0) {
      return;
    }
    System.arraycopy(k, lo, tk, lo, hi - lo);
    System.arraycopy(r, lo, tr, lo, hi - lo);
    int i = lo;
    int j = mid;
    int o = lo;
    while (i < mid && j < hi) {
      if (comparePair(tk[j], tr[j], tk[i], tr[i], desc) < 0) {
        k[o] = tk[j];
        r[o++] = tr[j++];
      } else {
        k[o] = tk[i];
        r[o++] = tr[i++];
      }
    }
    while (i < mid) {
      k[o] = tk[i];
      r[o++] = tr[i++];
    }
    while (j < hi) {
      k[o] = tk[j];
      r[o++] = tr[j++];
    }
  }

  private void mergeSort(int[] a, int[] tmp, int lo, int hi) {
    if (hi - lo <= 16) {
      for (int i = lo + 1; i < hi; i++) {
        int v = a[i];
        int j = i - 1;
        while (j >= lo && compare(a[j], v) > 0) {
          a[j + 1] = a[j];
          j--;
        }
        a[j + 1] = v;
      }
      return;
    }
    int mid = (lo + hi) >>> 1;
    mergeSort(a, tmp, lo, mid);
    mergeSort(a, tmp, mid, hi);
    if (compare(a[mid - 1], a[mid]) <= 0) {
      return;
    }
    System.arraycopy(a, lo, tmp, lo, hi - lo);
    int i = lo;
    int j = mid;
    int k = lo;
    while (i < mid && j < hi) {
      a[k++] = compare(tmp[j], tmp[i]) < 0 ? tmp[j++] : tmp[i++];
    }
    while (i < mid) {
      a[k++] = tmp[i++];
    }
    while (j < hi) {
      a[k++] = tmp[j++];
    }
  }
}

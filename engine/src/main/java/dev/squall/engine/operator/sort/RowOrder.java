package dev.squall.engine.operator.sort;

import dev.squall.engine.column.Column;
import dev.squall.proto.v1.SortKey;
import java.util.List;

/**
 * Row order by several sort keys (ASC/DESC, NULLS FIRST/LAST) over columns, and a merge sort of
 * row indexes by it (stable; O(n log n) comparisons, one extra int array).
 */
final class RowOrder {
  private final Column[] keys;
  private final boolean[] descending;
  private final boolean[] nullsFirst;

  RowOrder(Column[] columns, List<SortKey> sortKeys) {
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
  }

  int compare(int a, int b) {
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
      r = c.compareValues(a, c, b);
      if (r != 0) {
        return descending[k] ? -r : r;
      }
    }
    return 0;
  }

  /** Row indexes 0..n) in key order. */
  int[] sortedRows(int n) {
    int[] rows = new int[n];
    for (int i = 0; i < n; i++) {
      rows[i] = i;
    }
    int[] tmp = new int[n];
    mergeSort(rows, tmp, 0, n);
    return rows;
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

package dev.squall.engine.runtimefilter;

import com.google.common.hash.BloomFilter;
import dev.squall.engine.column.Column;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.proto.v1.KeyFilter;
import dev.squall.proto.v1.KeySummary;
import dev.squall.proto.v1.KeySummaryRequest;
import java.util.HashSet;
import java.util.Set;

/**
 * The build side of a runtime filter in one task: per key column, over the rows the task writes,
 * the smallest and largest key, the distinct keys while they are few ({@link KeyFilters#MAX_LISTED_VALUES})
 * and, past that, a Bloom filter sized for the request's {@code max_keys} at
 * {@link KeyFilters#FALSE_POSITIVE_RATE} (every build task sizes it alike, so the coordinator can
 * merge them). A column holding a value of a kind that is not summarised gives up (no filter).
 */
public final class KeySummaryBuilder {
  private final KeySummaryRequest request;
  private final Object[] min;
  private final Object[] max;
  private final Set<Object>[] values;
  private final BloomFilter<Object>[] blooms;
  private final boolean[] unsupported;
  private long rows;

  @SuppressWarnings("unchecked")
  public KeySummaryBuilder(KeySummaryRequest request) {
    this.request = request;
    int n = request.getColumnsCount();
    min = new Object[n];
    max = new Object[n];
    values = new Set[n];
    blooms = new BloomFilter[n];
    unsupported = new boolean[n];
    for (int i = 0; i < n; i++) {
      values[i] = new HashSet<>();
    }
  }

  /** Adds the keys of one written batch. */
  public void add(ColumnBatch batch) {
    rows += batch.rows();
    for (int k = 0; k < request.getColumnsCount(); k++) {
      if (unsupported[k]) {
        continue;
      }
      Column col = batch.column(request.getColumns(k));
      for (int r = 0; r < batch.rows(); r++) {
        Object key = RuntimeKeys.canonical(col.get(r));
        if (key == null) {
          if (!col.isNull(r)) {
            unsupported[k] = true;
            break;
          }
          continue; // NULL never matches an equi-join key
        }
        add(k, key);
      }
    }
  }

  private void add(int k, Object key) {
    if (min[k] == null || RuntimeKeys.ORDER.compare(key, min[k]) < 0) {
      min[k] = key;
    }
    if (max[k] == null || RuntimeKeys.ORDER.compare(key, max[k]) > 0) {
      max[k] = key;
    }
    if (values[k] != null) {
      values[k].add(key);
      if (values[k].size() > KeyFilters.MAX_LISTED_VALUES) {
        blooms[k] = KeyFilters.newBloom(request.getMaxKeys());
        values[k].forEach(blooms[k]::put);
        values[k] = null;
      }
    } else {
      blooms[k].put(key);
    }
  }

  /** The summary for the task's result; a column that gave up has no entry (so no filter is formed). */
  public KeySummary toProto() {
    KeySummary.Builder out = KeySummary.newBuilder().setFilterId(request.getFilterId()).setRows(rows);
    for (int k = 0; k < request.getColumnsCount(); k++) {
      if (unsupported[k]) {
        continue;
      }
      KeyFilter.Builder f = KeyFilter.newBuilder().setColumn(request.getColumns(k)).setFilterId(request.getFilterId());
      if (min[k] == null) {
        out.addColumns(f.setEmpty(true).setHasValues(true));
        continue;
      }
      f.setMin(RuntimeKeys.toLiteral(min[k])).setMax(RuntimeKeys.toLiteral(max[k]));
      if (values[k] != null) {
        f.setHasValues(true);
        values[k].stream().sorted(RuntimeKeys.ORDER).forEach(v -> f.addValues(RuntimeKeys.toLiteral(v)));
      } else {
        f.setBloom(KeyFilters.bytes(blooms[k]));
      }
      out.addColumns(f);
    }
    return out.build();
  }
}

package dev.squall.engine.runtimefilter;

import dev.squall.engine.column.BytesColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.proto.v1.DataType;
import dev.squall.proto.v1.KeyFilter;
import dev.squall.proto.v1.KeySummary;
import dev.squall.proto.v1.KeySummaryRequest;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * The build side of a runtime filter in one task: per key column, over the rows the task writes,
 * the smallest and largest key, the distinct keys while they are few ({@link KeyFilters#MAX_LISTED_VALUES})
 * and, past that, a Bloom filter ({@link KeyBloom}) sized for the request's {@code max_keys} at
 * {@link KeyFilters#FALSE_POSITIVE_RATE} (every build task sizes it alike, so the coordinator can
 * merge them). A column holding a value of a kind that is not summarised, or changing kind between
 * batches, gives up (no filter).
 *
 * <p>Integer and VARCHAR key columns are summarised a column at a time without boxing (values
 * array; UTF-8 byte ranges); other kinds (DECIMAL) row by row through {@link RuntimeKeys#canonical}.
 */
public final class KeySummaryBuilder {
  private final KeySummaryRequest request;
  private final ColumnKeys[] columns;
  private long rows;

  public KeySummaryBuilder(KeySummaryRequest request) {
    this.request = request;
    columns = new ColumnKeys[request.getColumnsCount()];
  }

  /** Adds the keys of one written batch. */
  public void add(ColumnBatch batch) {
    rows += batch.rows();
    for (int k = 0; k < columns.length; k++) {
      Column col = batch.column(request.getColumns(k));
      ColumnKeys keys = columns[k];
      if (keys == null) {
        keys = columns[k] = ColumnKeys.forColumn(col, request.getMaxKeys());
      }
      if (!keys.unsupported && !keys.accepts(col)) {
        keys.unsupported = true;
      }
      if (!keys.unsupported) {
        keys.add(col, batch.rows());
      }
    }
  }

  /** The summary for the task's result; a column that gave up has no entry (so no filter is formed). */
  public KeySummary toProto() {
    KeySummary.Builder out = KeySummary.newBuilder().setFilterId(request.getFilterId()).setRows(rows);
    for (int k = 0; k < columns.length; k++) {
      if (columns[k] != null && columns[k].unsupported) {
        continue;
      }
      KeyFilter.Builder f = KeyFilter.newBuilder().setColumn(request.getColumns(k)).setFilterId(request.getFilterId());
      if (columns[k] == null || !columns[k].any()) {
        out.addColumns(f.setEmpty(true).setHasValues(true));
        continue;
      }
      columns[k].write(f);
      out.addColumns(f);
    }
    return out.build();
  }

  /** One key column's summary so far, by the column's kind. */
  private abstract static class ColumnKeys {
    final long maxKeys;
    boolean unsupported;
    KeyBloom bloom;

    ColumnKeys(long maxKeys) {
      this.maxKeys = maxKeys;
    }

    static ColumnKeys forColumn(Column col, long maxKeys) {
      if (col instanceof LongColumn) {
        return new LongKeys(maxKeys);
      }
      if (col instanceof BytesColumn && col.type().kind() == DataType.Kind.VARCHAR) {
        return new StringKeys(maxKeys);
      }
      return new ObjectKeys(maxKeys);
    }

    /** Whether a batch's column is of this summary's kind. */
    abstract boolean accepts(Column col);

    /** Adds rows {@code [0, n)}; NULL keys never match an equi-join key and are left out. */
    abstract void add(Column col, int n);

    /** Whether any non-NULL key was added. */
    abstract boolean any();

    /** Sets min, max and the listed keys or the Bloom filter. */
    abstract void write(KeyFilter.Builder f);
  }

  private static final class LongKeys extends ColumnKeys {
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;
    private boolean any;
    private LongKeySet values = new LongKeySet();

    LongKeys(long maxKeys) {
      super(maxKeys);
    }

    @Override
    boolean accepts(Column col) {
      return col instanceof LongColumn;
    }

    @Override
    void add(Column col, int n) {
      long[] v = ((LongColumn) col).values();
      boolean[] nulls = col.nullMask();
      long lo = min;
      long hi = max;
      boolean seen = any;
      for (int r = 0; r < n; r++) {
        if (nulls != null && nulls[r]) {
          continue;
        }
        long key = v[r];
        lo = Math.min(lo, key);
        hi = Math.max(hi, key);
        seen = true;
        if (values != null) {
          if (values.add(key) && values.size() > KeyFilters.MAX_LISTED_VALUES) {
            bloom = KeyBloom.sized(maxKeys);
            for (long listed : values.sorted()) {
              bloom.insert(KeyHash.ofLong(listed));
            }
            values = null;
          }
        } else {
          bloom.insert(KeyHash.ofLong(key));
        }
      }
      min = lo;
      max = hi;
      any = seen;
    }

    @Override
    boolean any() {
      return any;
    }

    @Override
    void write(KeyFilter.Builder f) {
      f.setMin(RuntimeKeys.toLiteral(min)).setMax(RuntimeKeys.toLiteral(max));
      if (values != null) {
        f.setHasValues(true);
        for (long v : values.sorted()) {
          f.addValues(RuntimeKeys.toLiteral(v));
        }
      } else {
        f.setBloom(bloom.bytes());
      }
    }
  }

  private static final class StringKeys extends ColumnKeys {
    private byte[] min;
    private byte[] max;
    private BytesKeySet values = new BytesKeySet();

    StringKeys(long maxKeys) {
      super(maxKeys);
    }

    @Override
    boolean accepts(Column col) {
      return col instanceof BytesColumn && col.type().kind() == DataType.Kind.VARCHAR;
    }

    @Override
    void add(Column col, int n) {
      BytesColumn c = (BytesColumn) col;
      byte[] data = c.data();
      int[] offsets = c.offsets();
      boolean[] nulls = col.nullMask();
      int minRow = -1;
      int maxRow = -1;
      for (int r = 0; r < n; r++) {
        if (nulls != null && nulls[r]) {
          continue;
        }
        int from = offsets[r];
        int len = offsets[r + 1] - from;
        if (minRow < 0 || Arrays.compareUnsigned(data, from, from + len, data, offsets[minRow], offsets[minRow + 1]) < 0) {
          minRow = r;
        }
        if (maxRow < 0 || Arrays.compareUnsigned(data, from, from + len, data, offsets[maxRow], offsets[maxRow + 1]) > 0) {
          maxRow = r;
        }
        long hash = KeyHash.ofBytes(data, from, len);
        if (values != null) {
          if (values.add(data, from, len, hash) && values.size() > KeyFilters.MAX_LISTED_VALUES) {
            bloom = KeyBloom.sized(maxKeys);
            for (long h : values.hashes()) {
              bloom.insert(h);
            }
            values = null;
          }
        } else {
          bloom.insert(hash);
        }
      }
      if (minRow >= 0) {
        byte[] lo = Arrays.copyOfRange(data, offsets[minRow], offsets[minRow + 1]);
        byte[] hi = Arrays.copyOfRange(data, offsets[maxRow], offsets[maxRow + 1]);
        min = min == null || Arrays.compareUnsigned(lo, min) < 0 ? lo : min;
        max = max == null || Arrays.compareUnsigned(hi, max) > 0 ? hi : max;
      }
    }

    @Override
    boolean any() {
      return min != null;
    }

    @Override
    void write(KeyFilter.Builder f) {
      f.setMin(RuntimeKeys.toLiteral(new String(min, StandardCharsets.UTF_8)))
          .setMax(RuntimeKeys.toLiteral(new String(max, StandardCharsets.UTF_8)));
      if (values != null) {
        f.setHasValues(true);
        String[] keys = values.strings();
        Arrays.sort(keys, RuntimeKeys.ORDER);
        for (String v : keys) {
          f.addValues(RuntimeKeys.toLiteral(v));
        }
      } else {
        f.setBloom(bloom.bytes());
      }
    }
  }

  /** Keys of other kinds (DECIMAL) row by row in their canonical form. */
  private static final class ObjectKeys extends ColumnKeys {
    private Object min;
    private Object max;
    private Set<Object> values = new HashSet<>();
    private Class<?> kind;

    ObjectKeys(long maxKeys) {
      super(maxKeys);
    }

    @Override
    boolean accepts(Column col) {
      return !(col instanceof LongColumn) && !(col instanceof BytesColumn && col.type().kind() == DataType.Kind.VARCHAR);
    }

    @Override
    void add(Column col, int n) {
      for (int r = 0; r < n; r++) {
        if (col.isNull(r)) {
          continue;
        }
        Object key = RuntimeKeys.canonical(col.get(r));
        if (key == null || !RuntimeKeys.supported(key) || (kind != null && key.getClass() != kind)) {
          unsupported = true;
          return;
        }
        kind = key.getClass();
        if (min == null || RuntimeKeys.ORDER.compare(key, min) < 0) {
          min = key;
        }
        if (max == null || RuntimeKeys.ORDER.compare(key, max) > 0) {
          max = key;
        }
        if (values != null) {
          values.add(key);
          if (values.size() > KeyFilters.MAX_LISTED_VALUES) {
            bloom = KeyBloom.sized(maxKeys);
            values.forEach(v -> bloom.insert(KeyHash.of(v)));
            values = null;
          }
        } else {
          bloom.insert(KeyHash.of(key));
        }
      }
    }

    @Override
    boolean any() {
      return min != null;
    }

    @Override
    void write(KeyFilter.Builder f) {
      f.setMin(RuntimeKeys.toLiteral(min)).setMax(RuntimeKeys.toLiteral(max));
      if (values != null) {
        f.setHasValues(true);
        values.stream().sorted(RuntimeKeys.ORDER).forEach(v -> f.addValues(RuntimeKeys.toLiteral(v)));
      } else {
        f.setBloom(bloom.bytes());
      }
    }
  }
}

package dev.squall.engine.operator.aggregate;

import dev.squall.engine.column.Column;
import dev.squall.engine.expr.Batch;
import dev.squall.engine.expr.Casts;
import dev.squall.engine.types.SqlType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * MAX_BY(value, key) and MIN_BY(value, key): per group, the value of a row whose key is the
 * largest (smallest); rows with a NULL key are skipped, a group without keys gives NULL. The same
 * fold merges partial (value, key) pairs, so SINGLE and FINAL differ only in where the pairs come
 * from. A group's best row is kept as one-row columns, copied only when a better key arrives.
 */
final class ValueByKey implements Accumulator {
  private final int valueArg;
  private final int keyArg;
  private final boolean max;
  private final boolean partial;
  private final SqlType valueType;
  private final SqlType keyType;
  private Column[] values = new Column[1024];
  private Column[] keys = new Column[1024];
  private long held;

  /**
   * @param valueType the output value type (also the partial value column's)
   * @param keyType the partial key column's type (PARTIAL only; otherwise unused)
   */
  ValueByKey(int valueArg, int keyArg, boolean max, boolean partial, SqlType valueType, SqlType keyType) {
    this.valueArg = valueArg;
    this.keyArg = keyArg;
    this.max = max;
    this.partial = partial;
    this.valueType = valueType;
    this.keyType = keyType;
  }

  @Override
  public void add(int[] ids, int n, int groups, Batch batch) {
    if (groups > keys.length) {
      keys = Arrays.copyOf(keys, Math.max(groups, keys.length * 2));
      values = Arrays.copyOf(values, keys.length);
    }
    Column key = batch.column(keyArg);
    Column value = batch.column(valueArg);
    int[] row = new int[1];
    for (int i = 0; i < n; i++) {
      if (key.isNull(i)) {
        continue;
      }
      int g = ids[i];
      Column best = keys[g];
      int cmp = best == null ? 1 : key.compareValues(i, best, 0);
      if (best == null || (max ? cmp > 0 : cmp < 0)) {
        row[0] = i;
        keys[g] = key.gather(row, 1);
        values[g] = value.gather(row, 1);
        held += keys[g].bytes() + values[g].bytes() - (best == null ? 0 : best.bytes() + 16);
      }
    }
  }

  @Override
  public Column[] results(int groups) {
    Column value = column(values, groups, valueType);
    return partial ? new Column[] {value, column(keys, groups, keyType)} : new Column[] {value};
  }

  private static Column column(Column[] rows, int groups, SqlType type) {
    List<Column> parts = new ArrayList<>(groups);
    for (int g = 0; g < groups; g++) {
      parts.add(g < rows.length && rows[g] != null ? Casts.cast(rows[g], type) : Column.nulls(type, 1));
    }
    return groups == 0 ? Column.empty(type, 0) : Column.concat(type, parts);
  }

  @Override
  public long bytes() {
    return keys.length * 16L + held;
  }
}

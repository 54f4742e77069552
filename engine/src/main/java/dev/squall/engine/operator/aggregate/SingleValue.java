package dev.squall.engine.operator.aggregate;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.expr.Batch;
import dev.squall.engine.expr.Casts;
import dev.squall.engine.types.SqlType;
import java.util.Arrays;

/**
 * SINGLE_VALUE(arg), the value of a scalar sub-query: NULL for a group without rows, the value of
 * its one row, and USER_ERROR "scalar sub-query returned more than one row" at a group's second
 * row (a NULL counts as a row).
 */
final class SingleValue implements Accumulator {
  static final String MORE_THAN_ONE_ROW = "scalar sub-query returned more than one row";

  private final int arg;
  private final SqlType out;
  private final Column values;
  /** Per group, its row in {@link #values}, or -1 before its first row. */
  private int[] rowOfGroup = new int[0];

  SingleValue(int arg, SqlType out) {
    this.arg = arg;
    this.out = out;
    this.values = Column.empty(out, 16);
  }

  @Override
  public void add(int[] ids, int n, int groups, Batch batch) {
    if (rowOfGroup.length < groups) {
      int old = rowOfGroup.length;
      rowOfGroup = Arrays.copyOf(rowOfGroup, Math.max(groups, old * 2));
      Arrays.fill(rowOfGroup, old, rowOfGroup.length, -1);
    }
    Column c = Casts.cast(batch.column(arg), out);
    for (int i = 0; i < n; i++) {
      int g = ids[i];
      if (rowOfGroup[g] >= 0) {
        throw EngineException.user(MORE_THAN_ONE_ROW);
      }
      rowOfGroup[g] = values.size();
      values.appendFrom(c, i);
    }
  }

  @Override
  public Column[] results(int groups) {
    Column col = Column.empty(out, groups);
    for (int g = 0; g < groups; g++) {
      int row = g < rowOfGroup.length ? rowOfGroup[g] : -1;
      if (row < 0) {
        col.appendNull();
      } else {
        col.appendFrom(values, row);
      }
    }
    return new Column[] {col};
  }

  @Override
  public long bytes() {
    return values.bytes() + rowOfGroup.length * 4L;
  }
}

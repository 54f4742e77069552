package dev.squall.engine.operator;

import dev.squall.engine.column.Column;
import dev.squall.engine.expr.Casts;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.types.SqlType;
import java.util.List;

/** A batch with its columns cast to an operator's output types (the batch itself when they already match). */
final class CastBatch {
  private CastBatch() {}

  static ColumnBatch to(ColumnBatch batch, List<SqlType> types) {
    Column[] cols = null;
    for (int i = 0; i < types.size(); i++) {
      Column c = batch.column(i);
      if (!c.type().equals(types.get(i))) {
        if (cols == null) {
          cols = batch.columns().clone();
        }
        cols[i] = Casts.cast(c, types.get(i));
      }
    }
    return cols == null ? batch : new ColumnBatch(cols, batch.rows());
  }
}

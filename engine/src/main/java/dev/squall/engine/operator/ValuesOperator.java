package dev.squall.engine.operator;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.expr.Literals;
import dev.squall.engine.memory.OperatorMemory;
import dev.squall.proto.v1.Values;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;

/** Literal rows, as one batch. */
public final class ValuesOperator extends BatchOperator {
  private final Values values;
  private boolean done;

  public ValuesOperator(OperatorMemory memory, Schema schema, Values values) {
    super(memory, schema, List.of());
    this.values = values;
  }

  @Override
  protected ColumnBatch produce() {
    if (done) {
      return null;
    }
    done = true;
    int n = values.getRowsCount();
    Column[] cols = new Column[types.size()];
    for (int c = 0; c < cols.length; c++) {
      cols[c] = Column.empty(types.get(c), n);
    }
    for (Values.Row row : values.getRowsList()) {
      if (row.getValuesCount() != cols.length) {
        throw EngineException.badPlan("VALUES row has " + row.getValuesCount() + " values for " + cols.length + " columns");
      }
      for (int c = 0; c < cols.length; c++) {
        cols[c].appendFrom(Literals.column(row.getValues(c), types.get(c), 1), 0);
      }
    }
    return new ColumnBatch(cols, n);
  }
}

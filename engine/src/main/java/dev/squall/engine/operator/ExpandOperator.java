package dev.squall.engine.operator;

import dev.squall.engine.column.Column;
import dev.squall.engine.expr.Casts;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.expr.Evaluator;
import dev.squall.engine.memory.OperatorMemory;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Replicates each input batch once per projection (plan-proto {@code Expand}, after Spark's
 * operator of that name): for every input batch it yields the batch of projection 0, then of
 * projection 1, and so on. Grouping sets use it to give each row one copy per grouping set.
 */
public final class ExpandOperator extends BatchOperator {
  private final BatchOperator input;
  private final List<List<Evaluator>> projections;
  private ColumnBatch current;
  private int next;

  /** @param projections each with one evaluator per output column */
  public ExpandOperator(OperatorMemory memory, Schema schema, BatchOperator input, List<List<Evaluator>> projections) {
    super(memory, schema, List.of(input));
    this.input = input;
    this.projections = projections;
  }

  @Override
  protected ColumnBatch produce() {
    if (current == null || next == projections.size()) {
      current = input.next();
      next = 0;
      if (current == null) {
        return null;
      }
    }
    List<Evaluator> projection = projections.get(next++);
    Column[] out = new Column[projection.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = Casts.cast(projection.get(i).evaluate(current), types.get(i));
    }
    return new ColumnBatch(out, current.rows());
  }
}

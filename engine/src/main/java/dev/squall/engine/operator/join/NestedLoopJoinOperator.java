package dev.squall.engine.operator.join;

import dev.squall.engine.column.Column;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.expr.Evaluator;
import dev.squall.engine.memory.OperatorMemory;
import dev.squall.engine.operator.BatchOperator;
import dev.squall.proto.v1.JoinType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Nested-loop join (every join type, see {@link JoinOperator}): with no equi-keys, every build row
 * is a candidate for every probe row and the condition, if any, decides. Pairs are checked a chunk
 * at a time, with a cancellation check between chunks, since one probe batch meets every build row.
 */
public final class NestedLoopJoinOperator extends JoinOperator {
  /**
   * @param buildLeft whether the left input is the build side (read whole)
   * @param condition over left ++ right columns, or null for a cross join
   */
  public NestedLoopJoinOperator(OperatorMemory memory, Schema schema, BatchOperator left, BatchOperator right,
      JoinType joinType, Evaluator condition, boolean buildLeft) {
    super(memory, schema, left, right, joinType, new int[0], new int[0], condition, buildLeft);
  }

  @Override
  protected long indexBuildSide(Column[] buildColumns) {
    return 0;
  }

  @Override
  protected void findPairs(ColumnBatch batch, int n, Pairs pairs, boolean firstMatchEnough) {
    for (int p = 0; p < n; p++) {
      for (int b = 0; b < buildRows; b++) {
        pairs.add(p, b);
        if (firstMatchEnough) {
          break;
        }
      }
    }
  }
}

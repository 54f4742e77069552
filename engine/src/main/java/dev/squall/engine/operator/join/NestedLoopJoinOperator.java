package dev.squall.engine.operator.join;

import dev.squall.engine.EngineException;
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
 * The pairs a task forms are capped: a cross join's output grows with the product of its inputs,
 * and past the cap the query fails as the user's error instead of running out of memory or time.
 */
public final class NestedLoopJoinOperator extends JoinOperator {
  private final long maxPairs;
  private long pairsFormed;

  /**
   * @param buildLeft whether the left input is the build side (read whole)
   * @param condition over left ++ right columns, or null for a cross join
   * @param maxPairs most row pairs this operator may form (before the condition); 0 for no cap
   */
  public NestedLoopJoinOperator(OperatorMemory memory, Schema schema, BatchOperator left, BatchOperator right,
      JoinType joinType, Evaluator condition, boolean buildLeft, long maxPairs) {
    super(memory, schema, left, right, joinType, new int[0], new int[0], condition, buildLeft);
    this.maxPairs = maxPairs;
  }

  @Override
  protected long indexBuildSide(Column[] buildColumns) {
    return 0;
  }

  @Override
  protected void findPairs(ColumnBatch batch, int n, Pairs pairs, boolean firstMatchEnough) {
    pairsFormed += (long) n * (firstMatchEnough ? Math.min(1, buildRows) : buildRows);
    if (maxPairs > 0 && pairsFormed > maxPairs) {
      throw EngineException.user("a nested-loop join (a cross join, or a join without an equality condition) formed"
          + " more than " + maxPairs + " rows in one task, the limit of the query property max_nested_loop_join_rows;"
          + " add an equality join condition or raise the limit");
    }
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

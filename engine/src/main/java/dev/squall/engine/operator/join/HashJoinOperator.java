package dev.squall.engine.operator.join;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.expr.Evaluator;
import dev.squall.engine.hash.RowHashes;
import dev.squall.engine.memory.OperatorMemory;
import dev.squall.engine.operator.BatchOperator;
import dev.squall.proto.v1.JoinType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Hash join on equi-keys (every join type, with an optional residual; see {@link JoinOperator}): the
 * build side goes into a {@link JoinHashTable}; each probe batch is hashed column at a time and its
 * rows look up their chains. NULL keys never match.
 */
public final class HashJoinOperator extends JoinOperator {
  private JoinHashTable table;

  /**
   * @param buildLeft whether the left input is the build side
   * @param leftKeys key columns of the left input; rightKeys of the right input (same count, at least one)
   * @param residual over left ++ right columns, or null
   */
  public HashJoinOperator(OperatorMemory memory, Schema schema, BatchOperator left, BatchOperator right,
      JoinType joinType, int[] leftKeys, int[] rightKeys, Evaluator residual, boolean buildLeft) {
    super(memory, schema, left, right, joinType, leftKeys, rightKeys, residual, buildLeft);
    if (leftKeys.length == 0) {
      throw EngineException.badPlan("hash join without keys (a join without keys is a nested-loop join)");
    }
  }

  @Override
  protected boolean partitionable() {
    return true;
  }

  @Override
  protected long indexBytes(int rows) {
    return JoinHashTable.bytes(rows);
  }

  @Override
  protected JoinOperator partitionPass(OperatorMemory memory, BatchOperator left, BatchOperator right,
      JoinType joinType, int[] leftKeys, int[] rightKeys, boolean buildLeft, int level) {
    HashJoinOperator pass = new HashJoinOperator(memory, schema, left, right, joinType, leftKeys, rightKeys,
        residual, buildLeft);
    pass.spillLevel = level;
    return pass;
  }

  @Override
  protected long indexBuildSide(Column[] buildColumns) {
    table = new JoinHashTable(buildKeyColumns(buildColumns), buildRows);
    return JoinHashTable.bytes(buildRows);
  }

  @Override
  protected void findPairs(ColumnBatch batch, int n, Pairs pairs, boolean firstMatchEnough) {
    Column[] pk = probeKeyColumns(batch);
    int[] hashes = RowHashes.of(pk, n, new int[n]);
    if (table.singleLongKey() && pk[0] instanceof LongColumn probe) {
      findLongPairs(probe, hashes, n, pairs, firstMatchEnough);
      return;
    }
    for (int p = 0; p < n; p++) {
      if (anyNull(pk, p)) {
        continue;
      }
      int h = hashes[p];
      for (int b = table.first(h); b >= 0; b = table.next(b)) {
        if (table.matches(b, h, pk, p)) {
          pairs.add(p, b);
          if (firstMatchEnough) {
            break;
          }
        }
      }
    }
  }

  /** {@link #findPairs} for a single long key: values compared in place, NULLs checked once. */
  private void findLongPairs(LongColumn probe, int[] hashes, int n, Pairs pairs, boolean firstMatchEnough) {
    long[] values = probe.values();
    boolean nulls = probe.mayHaveNulls();
    for (int p = 0; p < n; p++) {
      if (nulls && probe.isNull(p)) {
        continue;
      }
      int h = hashes[p];
      long v = values[p];
      for (int b = table.findLong(table.first(h), h, v); b >= 0; b = table.findLong(table.next(b), h, v)) {
        pairs.add(p, b);
        if (firstMatchEnough) {
          break;
        }
      }
    }
  }

  @Override
  protected void releaseState() {
    super.releaseState();
    table = null;
  }
}

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
 * rows look up their chains, or, for a single long key, the whole batch is looked up in the table's
 * slots first and the pairs listed after. NULL keys never match.
 */
public final class HashJoinOperator extends JoinOperator {
  private JoinHashTable table;
  /** Per probe row of a batch, its first build row (single-long-key probes); grown as needed. */
  private int[] firsts = new int[0];

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
    return JoinHashTable.bytes(rows, singleLongKey());
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
    return JoinHashTable.bytes(buildRows, table.singleLongKey());
  }

  @Override
  protected void findPairs(ColumnBatch batch, int n, Pairs pairs, boolean firstMatchEnough) {
    Column[] pk = probeKeyColumns(batch);
    if (table.singleLongKey()) {
      // Both sides are in the shared key type, so the probe key is a long column too.
      findLongPairs((LongColumn) pk[0], n, pairs, firstMatchEnough);
      return;
    }
    int[] hashes = RowHashes.of(pk, n, new int[n]);
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

  /** {@link #findPairs} for a single long key: the whole batch looked up first, then pairs listed. */
  private void findLongPairs(LongColumn probe, int n, Pairs pairs, boolean firstMatchEnough) {
    if (firsts.length < n) {
      firsts = new int[n];
    }
    table.findLongs(probe, n, firsts);
    for (int p = 0; p < n; p++) {
      for (int b = firsts[p]; b >= 0; b = table.nextSameKey(b)) {
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

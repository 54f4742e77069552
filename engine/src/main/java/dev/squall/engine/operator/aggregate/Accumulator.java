package dev.squall.engine.operator.aggregate;

import dev.squall.engine.column.Column;
import dev.squall.engine.expr.Batch;

/**
 * The state of one aggregate call for every group, updated a batch at a time: {@link #add} gets
 * the group id of each row and reads its argument columns from the batch.
 */
interface Accumulator {
  /** Folds rows {@code 0..n)} of the batch into groups {@code groupIds[row]}; groups has grown to {@code groups}. */
  void add(int[] groupIds, int n, int groups, Batch batch);

  /** The output columns (one, or sum and count for a partial AVG) for groups {@code 0..groups)}. */
  Column[] results(int groups);

  /** Approximate heap bytes held. */
  long bytes();
}

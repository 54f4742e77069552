package dev.squall.engine.expr;

import dev.squall.engine.column.BoolColumn;

import dev.squall.engine.column.Column;
import dev.squall.engine.types.SqlType;

/**
 * A compiled scalar expression. {@link #evaluate} computes the expression for every row of a batch
 * at once, looping over whole columns; the expression tree is walked once per batch, not per row.
 */
public interface Evaluator {
  /** The result type (from the plan's Expr.type). */
  SqlType type();

  /** A column of {@code batch.rows()} results; input columns are not modified. */
  Column evaluate(Batch batch);

  /**
   * For a BOOLEAN expression: the rows of {@code batch} where it is TRUE (not FALSE, not NULL),
   * written to {@code rows} as ascending row indexes (DuckDB's selection vectors); returns their
   * number. {@code rows} has room for {@code batch.rows()} indexes. A filter needs no more than
   * this, so evaluators that can narrow a selection without a BOOLEAN column (AND) override it.
   */
  default int selectTrue(Batch batch, int[] rows) {
    return BoolColumn.trueRows((BoolColumn) evaluate(batch), rows);
  }
}

package dev.squall.engine.expr;

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
}

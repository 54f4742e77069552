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

  /**
   * For a BOOLEAN expression: narrows a selection. Of the rows {@code rows[0..k)} of {@code batch}
   * (ascending), keeps those where it is TRUE, in order, in {@code rows[0..m)}; returns m. The
   * default evaluates over the selected rows gathered; evaluators that can test a row of {@code
   * batch} in place (a column against a literal) override it and gather nothing.
   */
  default int refineTrue(Batch batch, int[] rows, int k) {
    if (k == batch.rows()) {
      return selectTrue(batch, rows); // ascending and distinct: every row, in order
    }
    int[] kept = new int[k];
    int m = selectTrue(batch.select(rows, k), kept);
    for (int j = 0; j < m; j++) {
      rows[j] = rows[kept[j]]; // kept[j] >= j: in place is safe
    }
    return m;
  }
}

package dev.squall.planner;

import dev.squall.planner.sql.ExplainStatement;
import dev.squall.proto.v1.Schema;
import dev.squall.proto.v1.StageGraph;

/**
 * The result of planning one statement.
 *
 * @param stageGraph the distributed plan (see stages.proto for its conventions)
 * @param outputSchema names and types of the result columns (of the query, also for EXPLAIN)
 * @param explainFormat TEXT or JSON when the statement was an EXPLAIN, else {@code null}
 * @param explain the EXPLAIN rendering of the stage graph in the requested format (TEXT when the
 *     statement was not an EXPLAIN)
 * @param logicalPlan Calcite's optimized logical plan, for logs and debugging
 */
public record PlannedQuery(
    StageGraph stageGraph,
    Schema outputSchema,
    ExplainStatement.Format explainFormat,
    String explain,
    String logicalPlan) {

  /** True when the statement was an EXPLAIN: answer with {@link #explain()}, run nothing. */
  public boolean isExplain() {
    return explainFormat != null;
  }
}

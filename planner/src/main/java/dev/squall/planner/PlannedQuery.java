package dev.squall.planner;

import dev.squall.planner.sql.ExplainStatement;
import dev.squall.planner.write.WriteTarget;
import dev.squall.proto.v1.DataType;
import dev.squall.proto.v1.Field;
import dev.squall.proto.v1.Schema;
import dev.squall.proto.v1.StageGraph;
import java.util.Objects;
import java.util.Optional;

/**
 * The result of planning one statement.
 *
 * @param stageGraph the distributed plan (see stages.proto for its conventions)
 * @param outputSchema names and types of the answer's columns (of the query, also for EXPLAIN);
 *     for a write, {@link #ROW_COUNT_SCHEMA}
 * @param explainFormat TEXT or JSON when the statement was an EXPLAIN, else {@code null}
 * @param explain the EXPLAIN rendering of the stage graph in the requested format (TEXT when the
 *     statement was not an EXPLAIN)
 * @param logicalPlan Calcite's optimized logical plan, for logs and debugging
 * @param write for INSERT and CREATE TABLE AS, the table written: the root stage's tasks write
 *     data files ({@code TaskOutput.data_files = write.toDataFileWrite()}) instead of result rows,
 *     its output columns are the target's columns, and the coordinator commits the files and
 *     answers with the written row count
 */
public record PlannedQuery(
    StageGraph stageGraph,
    Schema outputSchema,
    ExplainStatement.Format explainFormat,
    String explain,
    String logicalPlan,
    Optional<WriteTarget> write) {

  /** The answer of a write: one row, column {@code rows} (BIGINT, not null), the rows written. */
  public static final Schema ROW_COUNT_SCHEMA = Schema.newBuilder()
      .addFields(Field.newBuilder().setName("rows")
          .setType(DataType.newBuilder().setKind(DataType.Kind.BIGINT).setNullable(false)))
      .build();

  public PlannedQuery {
    Objects.requireNonNull(write, "write");
  }

  /** A query (no write). */
  public PlannedQuery(StageGraph stageGraph, Schema outputSchema, ExplainStatement.Format explainFormat,
      String explain, String logicalPlan) {
    this(stageGraph, outputSchema, explainFormat, explain, logicalPlan, Optional.empty());
  }

  /** True when the statement was an EXPLAIN: answer with {@link #explain()}, run nothing. */
  public boolean isExplain() {
    return explainFormat != null;
  }

  /** True for INSERT and CREATE TABLE AS (also under EXPLAIN). */
  public boolean isWrite() {
    return write.isPresent();
  }
}

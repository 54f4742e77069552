package dev.squall.planner;

import dev.squall.planner.sql.ExplainStatement;
import dev.squall.planner.write.WriteTarget;
import dev.squall.proto.v1.AnalyzeRecord;
import dev.squall.proto.v1.DataType;
import dev.squall.proto.v1.DdlRecord;
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
 * @param ddl for DDL, the catalog change the coordinator makes once (the stage graph is empty; the
 *     answer is one row of {@link #DDL_SCHEMA})
 * @param analyze for ANALYZE, the statistics the coordinator commits: the root stage's one row is
 *     the row count and a theta sketch per analyzed column, and the answer is one row of
 *     {@link #ROW_COUNT_SCHEMA} (the rows analyzed)
 */
public record PlannedQuery(
    StageGraph stageGraph,
    Schema outputSchema,
    ExplainStatement.Format explainFormat,
    String explain,
    String logicalPlan,
    Optional<WriteTarget> write,
    Optional<DdlRecord> ddl,
    Optional<AnalyzeRecord> analyze) {

  /** The answer of a write: one row, column {@code rows} (BIGINT, not null), the rows written. */
  public static final Schema ROW_COUNT_SCHEMA = Schema.newBuilder()
      .addFields(Field.newBuilder().setName("rows")
          .setType(DataType.newBuilder().setKind(DataType.Kind.BIGINT).setNullable(false)))
      .build();

  /** The answer of DDL: one row, column {@code result} (VARCHAR), what was done, e.g. "CREATE TABLE tpch.t". */
  public static final Schema DDL_SCHEMA = Schema.newBuilder()
      .addFields(Field.newBuilder().setName("result")
          .setType(DataType.newBuilder().setKind(DataType.Kind.VARCHAR).setNullable(true)))
      .build();

  public PlannedQuery {
    Objects.requireNonNull(write, "write");
    Objects.requireNonNull(ddl, "ddl");
    Objects.requireNonNull(analyze, "analyze");
  }

  /** A query, write or DDL (no ANALYZE). */
  public PlannedQuery(StageGraph stageGraph, Schema outputSchema, ExplainStatement.Format explainFormat,
      String explain, String logicalPlan, Optional<WriteTarget> write, Optional<DdlRecord> ddl) {
    this(stageGraph, outputSchema, explainFormat, explain, logicalPlan, write, ddl, Optional.empty());
  }

  /** A query or write (no DDL). */
  public PlannedQuery(StageGraph stageGraph, Schema outputSchema, ExplainStatement.Format explainFormat,
      String explain, String logicalPlan, Optional<WriteTarget> write) {
    this(stageGraph, outputSchema, explainFormat, explain, logicalPlan, write, Optional.empty());
  }

  /** A query (no write). */
  public PlannedQuery(StageGraph stageGraph, Schema outputSchema, ExplainStatement.Format explainFormat,
      String explain, String logicalPlan) {
    this(stageGraph, outputSchema, explainFormat, explain, logicalPlan, Optional.empty(), Optional.empty());
  }

  /** True when the statement was an EXPLAIN: answer with {@link #explain()}, run nothing. */
  public boolean isExplain() {
    return explainFormat != null;
  }

  /** True for DDL (also under EXPLAIN). */
  public boolean isDdl() {
    return ddl.isPresent();
  }

  /** True for ANALYZE (also under EXPLAIN). */
  public boolean isAnalyze() {
    return analyze.isPresent();
  }

  /** True for INSERT and CREATE TABLE AS (also under EXPLAIN). */
  public boolean isWrite() {
    return write.isPresent();
  }
}

package dev.squall.planner;

import dev.squall.planner.analyze.AnalyzePlanner;
import dev.squall.planner.ddl.DdlPlanner;
import dev.squall.planner.ddl.TableProcedures;
import dev.squall.planner.explain.ExplainRenderer;
import dev.squall.planner.meta.DerivedTableNames;
import dev.squall.planner.meta.MetadataAnswers;
import dev.squall.planner.meta.MetadataRelation;
import dev.squall.planner.optimize.CurrentTimeLiterals;
import dev.squall.planner.optimize.LogicalOptimizer;
import dev.squall.planner.optimize.PlanningInterrupts;
import dev.squall.planner.sql.AnalyzeStatement;
import dev.squall.planner.sql.CreateTableAsStatement;
import dev.squall.planner.sql.DdlStatement;
import dev.squall.planner.sql.ExplainStatement;
import dev.squall.planner.sql.MergeStatement;
import dev.squall.planner.sql.MetadataStatement;
import dev.squall.planner.sql.SqlFrontEnd;
import dev.squall.planner.sql.TimeTravelClauses;
import dev.squall.planner.sql.TrinoLexicon;
import dev.squall.planner.stage.StageGraphTranslator;
import dev.squall.planner.translate.TypeTranslator;
import dev.squall.planner.write.MergePlanner;
import dev.squall.planner.write.OptimizePlanner;
import dev.squall.planner.write.PartitionClustering;
import dev.squall.planner.write.RowDeletePlanner;
import dev.squall.planner.write.RowDeleteScans;
import dev.squall.planner.write.WritePlanner;
import dev.squall.planner.write.WriteSortOrder;
import dev.squall.planner.write.WriteTarget;
import dev.squall.proto.v1.AnalyzeRecord;
import dev.squall.proto.v1.DdlRecord;
import dev.squall.proto.v1.Schema;
import dev.squall.proto.v1.SortKey;
import dev.squall.proto.v1.StageGraph;
import java.util.List;
import java.util.Optional;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.sql.SqlDelete;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlUpdate;
import org.apache.iceberg.catalog.Catalog;

/**
 * Squall's SQL planner: SQL text in, stage graph out.
 *
 * <pre>
 * PlannedQuery q = new DistributedPlanner(catalog).plan(sql, settings);
 * ScanAssignment splits = new SplitPlanner(catalog, settings.targetSplitSizeBytes()).plan(q.stageGraph());
 * </pre>
 *
 * Steps: optional EXPLAIN prefix ({@link ExplainStatement}); for INSERT and CREATE TABLE AS the
 * target and the final projection onto its columns ({@link WritePlanner}); parse, refuse unsupported SQL,
 * validate against the Iceberg catalog and convert ({@link SqlFrontEnd}); optimize with Calcite's
 * rules ({@link LogicalOptimizer}); cut into stages with typed edges ({@link StageGraphTranslator});
 * render EXPLAIN ({@link ExplainRenderer}). Splits are planned separately by
 * {@code SplitPlanner}, which the coordinator calls just before scheduling.
 *
 * <p>Thread-safe: every call builds its own Calcite state.
 */
public final class DistributedPlanner {
  private final Catalog catalog;

  public DistributedPlanner(Catalog catalog) {
    this.catalog = catalog;
  }

  /**
   * Plans one statement.
   *
   * @throws PlanningException for every query that cannot be planned; user errors carry the line
   *     and column of the offending text
   */
  public PlannedQuery plan(String sql, PlannerSettings settings) {
    return plan(sql, settings, java.time.Instant.now());
  }

  /**
   * Plans one statement whose CURRENT_DATE, CURRENT_TIMESTAMP and NOW() are {@code queryStart}
   * (written into the plan as literals, so that every task sees the same time).
   *
   * @throws PlanningException as {@link #plan(String, PlannerSettings)}
   */
  public PlannedQuery plan(String sql, PlannerSettings settings, java.time.Instant queryStart) {
    TrinoLexicon.Rewritten rewritten = TrinoLexicon.rewrite(sql);
    try {
      return planRewritten(rewritten.sql(), settings, queryStart);
    } catch (PlanningException e) {
      if (e.line() <= 0 || rewritten.insertions().isEmpty()) {
        throw e;
      }
      // Positions as in the text the user sent, not in the one with Trino's words quoted.
      throw new PlanningException(e.code(), e.reason(), e.line(), rewritten.originalColumn(e.line(), e.column()), e);
    }
  }

  /** Output columns without a name are named as in Trino, {@code _col<index>}, not Calcite's {@code EXPR$<index>}. */
  static List<String> unnamedAsTrino(List<String> names) {
    List<String> out = new java.util.ArrayList<>(names.size());
    for (int i = 0; i < names.size(); i++) {
      out.add(names.get(i).matches("EXPR\\$\\d+") ? "_col" + i : names.get(i));
    }
    return out;
  }

  private PlannedQuery planRewritten(String sql, PlannerSettings settings, java.time.Instant queryStart) {
    SqlFrontEnd.requireStatement(sql);
    ExplainStatement statement;
    try {
      statement = ExplainStatement.parse(sql);
    } catch (ExplainStatement.BadOptionException e) {
      throw PlanningException.atOffset(PlanningException.Code.SYNTAX_ERROR, e.getMessage(), sql, e.offset(), e);
    }
    try {
      TimeTravelClauses timeTravel = TimeTravelClauses.rewrite(statement.query());
      statement = new ExplainStatement(statement.format(), timeTravel.sql());
      DerivedTableNames derived = new DerivedTableNames(timeTravel);
      SqlFrontEnd frontEnd = new SqlFrontEnd(catalog, settings, (base, mark, suffix) ->
          mark == '$' && suffix.equals(RowDeletePlanner.ROW_POSITIONS_SUFFIX)
              ? base.withRowPositions() : derived.derive(base, mark, suffix));
      WritePlanner writes = new WritePlanner(catalog, frontEnd, settings);
      Optional<DdlStatement> ddl = DdlStatement.parse(statement.query());
      Optional<OptimizePlanner.Planned> optimize = Optional.empty();
      if (ddl.isPresent() && ddl.get() instanceof DdlStatement.ExecuteProcedure procedure
          && TableProcedures.name(procedure).equals(TableProcedures.OPTIMIZE)) {
        // Compaction is a write: tasks read the chosen files and write new ones.
        var table = new DdlPlanner(catalog, frontEnd, writes, settings).table(procedure.table());
        optimize = Optional.of(new OptimizePlanner(frontEnd).plan(procedure, table));
        ddl = Optional.empty();
      }
      if (ddl.isPresent()) {
        DdlRecord record = new DdlPlanner(catalog, frontEnd, writes, settings).plan(ddl.get());
        String explain = statement.format() == ExplainStatement.Format.JSON
            ? ExplainRenderer.json(StageGraph.getDefaultInstance(), "DDL: " + record.getDescription())
            : "DDL: " + record.getDescription() + "\n";
        return new PlannedQuery(StageGraph.getDefaultInstance(), PlannedQuery.DDL_SCHEMA, statement.format(), explain,
            "", Optional.empty(), Optional.of(record));
      }
      Optional<AnalyzeStatement> analyze = AnalyzeStatement.parse(statement.query());
      if (analyze.isPresent()) {
        return planAnalyze(analyze.get(), statement, frontEnd, writes, settings);
      }
      Optional<CreateTableAsStatement> ctas = CreateTableAsStatement.parse(statement.query());
      RelNode logical;
      List<String> names;
      Optional<WriteTarget> write = Optional.empty();
      Optional<MetadataStatement> metadata = MetadataStatement.parse(statement.query());
      Optional<MergeStatement> merge = ctas.isPresent() || metadata.isPresent() || optimize.isPresent()
          ? Optional.empty() : MergeStatement.parse(statement.query());
      SqlNode parsed = ctas.isPresent() || metadata.isPresent() || optimize.isPresent() || merge.isPresent() ? null
          : SqlFrontEnd.parse(statement.query());
      if (optimize.isPresent()) {
        logical = optimize.get().write().plan();
        names = optimize.get().write().columnNames();
        write = Optional.of(optimize.get().write().target());
      } else if (metadata.isPresent()) {
        MetadataRelation relation = new MetadataAnswers(frontEnd, settings.defaultSchema()).answer(metadata.get());
        logical = relation.toValues(frontEnd.cluster());
        names = logical.getRowType().getFieldNames();
      } else if (ctas.isPresent() || merge.isPresent() || parsed instanceof SqlInsert || parsed instanceof SqlDelete
          || parsed instanceof SqlUpdate) {
        WritePlanner.PlannedWrite planned = ctas.isPresent() ? writes.createTableAs(ctas.get())
            : merge.isPresent() ? new MergePlanner(frontEnd).merge(merge.get())
            : parsed instanceof SqlDelete delete ? new RowDeletePlanner(frontEnd).delete(delete)
            : parsed instanceof SqlUpdate update ? new RowDeletePlanner(frontEnd).update(update)
            : writes.insert((SqlInsert) parsed);
        logical = planned.plan();
        names = planned.columnNames();
        write = Optional.of(planned.target());
      } else {
        RelRoot root = frontEnd.toRel(parsed);
        logical = root.project();
        names = unnamedAsTrino(root.validatedRowType.getFieldNames());
      }
      PlanningInterrupts.check();
      logical = CurrentTimeLiterals.apply(logical, queryStart);
      RelNode optimized = new LogicalOptimizer().optimize(logical, frontEnd.relBuilder());
      PlanningInterrupts.check();
      StageGraph graph;
      if (write.isPresent() && write.get().isRowDelete()) {
        // One writer task holds every position of a data file: a deletion vector covers a whole file.
        // New rows (UPDATE, MERGE) are written in the table's sort order; positions need no order.
        var deletes = write.get().rowDelete().getDeleteFiles();
        List<SortKey> sorted = deletes.hasUpdatedRows() ? WriteSortOrder.keys(write.get().writeOrder(),
            write.get().schema(), deletes.getMerge() ? 3 : 2) : List.of();
        if (merge.isPresent() && merge.get().clauses().stream().anyMatch(c -> !c.matched())) {
          // A MERGE's inserted rows have no data file: they spread over the writer tasks by value.
          MergePlanner.InsertSpread spread = MergePlanner.spreadInserts(optimized, frontEnd.relBuilder());
          graph = new StageGraphTranslator(settings).translateClustered(spread.plan(), names, spread.keys(),
              names.size(), sorted);
        } else {
          graph = new StageGraphTranslator(settings).translateClustered(optimized, names, List.of(0),
              names.size(), sorted);
        }
        graph = RowDeleteScans.skip(graph, RowDeletePlanner.removedPaths(write.get().rowDelete()));
      } else if (write.isPresent()) {
        // Every row of a partition value goes to one writer task, which writes it into few files.
        WriteTarget target = write.get();
        Optional<PartitionClustering.Keys> clustering =
            PartitionClustering.of(optimized, target.schema(), target.spec(), frontEnd.relBuilder());
        // Within a partition value, rows go in the table's sort order.
        List<SortKey> sorted = WriteSortOrder.keys(target.writeOrder(), target.schema(), 0);
        if (clustering.isPresent()) {
          List<SortKey> keys = new java.util.ArrayList<>(clustering.get().sortKeys());
          keys.addAll(sorted);
          graph = new StageGraphTranslator(settings).translateClustered(clustering.get().plan(), names,
              clustering.get().keys(), clustering.get().tableColumns(), keys);
        } else if (target.isRewrite()) {
          // Optimize of an unpartitioned table: rows gather into as few writer tasks as their bytes
          // need, instead of one file per scan task.
          graph = new StageGraphTranslator(settings).translateClustered(optimized, names,
              java.util.stream.IntStream.range(0, names.size()).boxed().toList(), names.size(), sorted);
        } else if (!sorted.isEmpty()) {
          graph = new StageGraphTranslator(settings).translateClustered(optimized, names, List.of(), names.size(),
              sorted);
        } else {
          graph = new StageGraphTranslator(settings).translate(optimized, names);
        }
        if (optimize.isPresent()) {
          graph = RowDeleteScans.skip(graph, optimize.get().skippedDataFiles());
        }
      } else {
        graph = new StageGraphTranslator(settings).translate(optimized, names);
      }
      String header = write.map(w -> w.describe()).orElse(null);
      String explain = statement.format() == ExplainStatement.Format.JSON
          ? ExplainRenderer.json(graph, header) : ExplainRenderer.text(graph, header);
      // An optimize answers what it did in words, as the other table procedures do.
      Schema output = optimize.isPresent() ? PlannedQuery.DDL_SCHEMA : write.isPresent()
          ? PlannedQuery.ROW_COUNT_SCHEMA : TypeTranslator.schema(optimized.getRowType(), names);
      return new PlannedQuery(graph, output, statement.format(), explain, RelOptUtil.toString(optimized), write);
    } catch (PlanningException e) {
      throw e;
    } catch (RuntimeException | StackOverflowError e) {
      throw new PlanningException(PlanningException.Code.INTERNAL,
          "Internal planner error: " + e, 0, 0, e);
    }
  }

  /**
   * ANALYZE: a global aggregate of the row count and one theta sketch per column over the
   * table's current snapshot ({@link AnalyzePlanner}), translated as any query; the record names
   * the snapshot the graph scans.
   */
  private PlannedQuery planAnalyze(AnalyzeStatement analyze, ExplainStatement statement, SqlFrontEnd frontEnd,
      WritePlanner writes, PlannerSettings settings) {
    AnalyzePlanner.refuseMetadataTable(analyze);
    var table = new DdlPlanner(catalog, frontEnd, writes, settings).table(analyze.table());
    AnalyzePlanner.Planned planned = new AnalyzePlanner(frontEnd).plan(analyze, table);
    PlanningInterrupts.check();
    RelNode optimized = new LogicalOptimizer().optimize(planned.plan(), frontEnd.relBuilder());
    StageGraph graph = new StageGraphTranslator(settings).translate(optimized, planned.columnNames());
    AnalyzeRecord record = planned.withSnapshot(graph);
    String header = record.getDescription() + (record.hasSnapshotId() ? " of snapshot " + record.getSnapshotId()
        : " (no snapshot)");
    String explain = statement.format() == ExplainStatement.Format.JSON
        ? ExplainRenderer.json(graph, header) : ExplainRenderer.text(graph, header);
    return new PlannedQuery(graph, PlannedQuery.ROW_COUNT_SCHEMA, statement.format(), explain,
        RelOptUtil.toString(optimized), Optional.empty(), Optional.empty(), Optional.of(record));
  }
}

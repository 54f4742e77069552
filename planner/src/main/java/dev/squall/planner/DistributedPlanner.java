package dev.squall.planner;

import dev.squall.planner.explain.ExplainRenderer;
import dev.squall.planner.optimize.LogicalOptimizer;
import dev.squall.planner.sql.ExplainStatement;
import dev.squall.planner.sql.SqlFrontEnd;
import dev.squall.planner.stage.StageGraphTranslator;
import dev.squall.planner.translate.TypeTranslator;
import dev.squall.proto.v1.StageGraph;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelRoot;
import org.apache.iceberg.catalog.Catalog;

/**
 * Squall's SQL planner: SQL text in, stage graph out.
 *
 * <pre>
 * PlannedQuery q = new DistributedPlanner(catalog).plan(sql, settings);
 * ScanAssignment splits = new SplitPlanner(catalog, settings.targetSplitSizeBytes()).plan(q.stageGraph());
 * </pre>
 *
 * Steps: optional EXPLAIN prefix ({@link ExplainStatement}); parse, refuse unsupported SQL,
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
    ExplainStatement statement;
    try {
      statement = ExplainStatement.parse(sql);
    } catch (IllegalArgumentException e) {
      throw new PlanningException(PlanningException.Code.SYNTAX_ERROR, e.getMessage(), 1, 1, e);
    }
    try {
      SqlFrontEnd frontEnd = new SqlFrontEnd(catalog, settings);
      RelRoot root = frontEnd.toRel(statement.query());
      RelNode logical = root.project();
      RelNode optimized = new LogicalOptimizer().optimize(logical, frontEnd.relBuilder());
      var names = root.validatedRowType.getFieldNames();
      StageGraph graph = new StageGraphTranslator(settings).translate(optimized, names);
      String explain = statement.format() == ExplainStatement.Format.JSON
          ? ExplainRenderer.json(graph) : ExplainRenderer.text(graph);
      return new PlannedQuery(graph, TypeTranslator.schema(optimized.getRowType(), names),
          statement.format(), explain, RelOptUtil.toString(optimized));
    } catch (PlanningException e) {
      throw e;
    } catch (RuntimeException | StackOverflowError e) {
      throw new PlanningException(PlanningException.Code.INTERNAL,
          "Internal planner error: " + e, 0, 0, e);
    }
  }
}

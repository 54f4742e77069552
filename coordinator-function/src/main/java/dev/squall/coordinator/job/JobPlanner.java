package dev.squall.coordinator.job;

import dev.squall.coordinator.CoordinatorSettings;
import dev.squall.coordinator.QueryProperties;
import dev.squall.coordinator.SchemaAllowList;
import dev.squall.coordinator.api.SquallException;
import dev.squall.coordinator.commit.WriteTargets;
import dev.squall.coordinator.scheduler.JobPlan;
import dev.squall.coordinator.scheduler.OneTaskStageFusion;
import dev.squall.planner.DistributedPlanner;
import dev.squall.planner.PlannedQuery;
import dev.squall.planner.PlannerSettings;
import dev.squall.planner.PlanningException;
import dev.squall.planner.catalog.MetadataCachingCatalog;
import dev.squall.planner.explain.ExplainRenderer;
import dev.squall.planner.split.ScanAssignment;
import dev.squall.planner.split.SplitPlanner;
import dev.squall.planner.sql.ExplainStatement;
import dev.squall.planner.stage.CombiningExchanges;
import dev.squall.proto.ArrowTypes;
import dev.squall.proto.ProtoNesting;
import dev.squall.proto.v1.StageGraph;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;

/**
 * Plans a stored job's SQL: the distributed planner's stage graph, then split planning from
 * Iceberg metadata, into a {@link JobPlan} (with its write target for INSERT and CREATE TABLE AS);
 * or, for EXPLAIN, the rendered plan.
 *
 * <p>Plans read tables through a {@link MetadataCachingCatalog} that lives as long as this planner
 * (the coordinator's process), so a warm coordinator reads a table's metadata file and manifest
 * list again only after the table changed. Changes (DDL, commits) go to the catalog itself.
 */
public final class JobPlanner {
  /** The deepest stage graph a job may run: room is left for the TaskSpec around a stage's fragment. */
  private static final int MAX_GRAPH_DEPTH = ProtoNesting.MAX_DEPTH - 20;

  private final Catalog catalog;
  /** The catalog plans read: table metadata kept between jobs, re-read when a table changes. */
  private final Catalog planningCatalog;
  private final CoordinatorSettings settings;
  private final PlannerSettings defaults;
  private final SchemaAllowList allowList;
  private final long combineMinRequests;

  public JobPlanner(Catalog catalog, CoordinatorSettings settings, PlannerSettings defaults) {
    this(catalog, settings, defaults, SchemaAllowList.NONE);
  }

  /** @param allowList the schemas each caller may plan against */
  public JobPlanner(Catalog catalog, CoordinatorSettings settings, PlannerSettings defaults, SchemaAllowList allowList) {
    this(catalog, settings, defaults, allowList, CombiningExchanges.Settings.DEFAULT_MIN_REQUESTS);
  }

  private JobPlanner(Catalog catalog, CoordinatorSettings settings, PlannerSettings defaults, SchemaAllowList allowList,
      long combineMinRequests) {
    this.catalog = catalog;
    this.planningCatalog = new MetadataCachingCatalog(catalog);
    this.settings = settings;
    this.defaults = defaults;
    this.allowList = allowList;
    this.combineMinRequests = combineMinRequests;
  }

  /**
   * This planner, combining an exchange (when the query's {@code shuffle_combine} is auto) once its
   * direct S3 requests {@code M + M·R} reach {@code minRequests} ({@link CombiningExchanges}).
   */
  public JobPlanner withShuffleCombineMinRequests(long minRequests) {
    return new JobPlanner(catalog, settings, defaults, allowList, minRequests);
  }

  /** A planned job: a plan to run, or EXPLAIN text to answer with. */
  public record Planned(JobPlan plan, String explain) {
    public boolean isExplain() {
      return explain != null;
    }
  }

  /**
   * @throws SquallException USER_ERROR with line and column for SQL the planner refuses, or the
   *     error category of a split-planning failure
   */
  public Planned plan(String jobId, String sql, Map<String, String> properties) {
    return plan(jobId, sql, properties, "");
  }

  /**
   * Plans for {@code caller}: tables outside the caller's allowed schemas are unknown to the plan.
   *
   * @throws SquallException as {@link #plan(String, String, Map)}
   */
  public Planned plan(String jobId, String sql, Map<String, String> properties, String caller) {
    Catalog catalog = allowList.restrict(planningCatalog, caller);
    QueryProperties.Settings query = QueryProperties.apply(defaults, settings.queryLimits(), properties);
    PlannerSettings plannerSettings = query.planner();
    requireSchema(plannerSettings.defaultSchema());
    PlannedQuery planned;
    ScanAssignment splits;
    StageGraph filtered;
    Optional<String> analyzed = ExplainStatement.analyzedQuery(sql);
    try {
      planned = new DistributedPlanner(catalog).plan(withoutTrailingSemicolons(analyzed.orElse(sql)), plannerSettings);
      if (analyzed.isPresent() && (planned.isExplain() || planned.isDdl() || planned.write().isPresent()
          || planned.isAnalyze())) {
        throw positionedAt(analyzed.get(), PlanningException.Code.UNSUPPORTED,
            "EXPLAIN ANALYZE runs queries only, not EXPLAIN, DDL, writes or ANALYZE");
      }
      if (planned.isExplain()) {
        // Leaf task counts as a run has them: the planner's estimate from bytes cannot know that a
        // split never goes below a row group.
        StageGraph graph = new SplitPlanner(catalog, plannerSettings.targetSplitSizeBytes())
            .plan(planned.stageGraph()).applyTo(planned.stageGraph());
        return new Planned(null, explain(planned, graph, combining(properties)));
      }
      if (planned.isDdl()) {
        return new Planned(new JobPlan(jobId, planned.stageGraph(), Map.of(), settings.shuffleBucket(),
            PlanStore.jobPrefix(jobId), settings.compression(), settings.taskMemoryBudgetBytes(),
            ArrowTypes.arrowSchema(planned.outputSchema()), null, planned.ddl().get()), null);
      }
      // Runtime filters as the properties set them first: only their probe scans' splits carry key bounds.
      filtered = QueryProperties.runtimeFilters(planned.stageGraph(), properties);
      splits = new SplitPlanner(catalog, plannerSettings.targetSplitSizeBytes()).plan(filtered);
    } catch (PlanningException e) {
      throw new SquallException(e.code().errorCode(), e.reason(), e.line(), e.column(), e);
    }
    StageGraph graph = CombiningExchanges.apply(fused(splits.applyTo(filtered)), combining(properties));
    int depth = ProtoNesting.depth(graph);
    if (depth > MAX_GRAPH_DEPTH) {
      throw SquallException.userError("the query nests too deeply: its plan is %d levels deep, at most %d are"
          + " supported; nest fewer expressions (chains of - or /, nested function calls, sub-queries)", depth, MAX_GRAPH_DEPTH);
    }
    checkTaskCounts(graph, splits, plannerSettings.maxTasksPerStage(), query.maxTotalTasks());
    JobPlan plan = new JobPlan(jobId, graph, splits.tasksByStage(), settings.shuffleBucket(),
        PlanStore.jobPrefix(jobId), settings.compression(), settings.taskMemoryBudgetBytes(), ArrowTypes.arrowSchema(planned.outputSchema()),
        planned.write().map(WriteTargets::toRecord).orElse(null))
        .withAdaptiveTargetPartitionBytes(query.adaptiveTargetPartitionBytes()
            .orElse(settings.adaptiveTargetPartitionBytes()))
        .withSkewSplitting(QueryProperties.skewFactor(properties), QueryProperties.skewMinPartitionBytes(properties))
        .withAdaptiveBroadcastJoinBytes(QueryProperties.adaptiveBroadcastJoinBytes(properties,
            plannerSettings.broadcastThresholdBytes()));
    if (planned.isAnalyze()) {
      plan = plan.withAnalyze(planned.analyze().get());
    }
    return new Planned(analyzed.isPresent() ? plan.withExplainAnalyze() : plan, null);
  }

  /** How a job's exchanges are combined: the query's mode; groups sized to half a task's memory budget. */
  private CombiningExchanges.Settings combining(Map<String, String> properties) {
    return new CombiningExchanges.Settings(QueryProperties.shuffleCombine(properties), combineMinRequests,
        Math.max(1, settings.taskMemoryBudgetBytes() / 2));
  }

  /**
   * EXPLAIN of the graph with leaf task counts from split planning ({@code split}), its one-task
   * stages fused and its combining exchanges, chosen from those counts as a run chooses them.
   */
  private static String explain(PlannedQuery planned, StageGraph split, CombiningExchanges.Settings combining) {
    StageGraph graph = CombiningExchanges.apply(fused(split), combining);
    if (graph.equals(planned.stageGraph())) {
      return planned.explain();
    }
    String header = planned.write().map(w -> w.describe()).orElse(null);
    return planned.explainFormat() == ExplainStatement.Format.JSON
        ? ExplainRenderer.json(graph, header) : ExplainRenderer.text(graph, header);
  }

  /**
   * The graph with its one-task stages fused ({@link OneTaskStageFusion}), unless a fused fragment
   * would nest past what a task spec may hold, where the stages stay apart.
   */
  private static StageGraph fused(StageGraph graph) {
    StageGraph fused = OneTaskStageFusion.apply(graph);
    // Unchanged (the same instance) when nothing fused: no second walk of the graph's nesting.
    return fused != graph && ProtoNesting.depth(fused) > MAX_GRAPH_DEPTH ? graph : fused;
  }

  /** The catalog as {@code caller} may see it (and change it: DDL is applied through this view). */
  public Catalog catalogFor(String caller) {
    return allowList.restrict(catalog, caller);
  }

  /** Refuses a default schema the catalog does not have (rather than failing later on a table name). */
  private void requireSchema(String schema) {
    if (schema.isEmpty() || !(catalog instanceof SupportsNamespaces namespaces)) {
      return;
    }
    if (!namespaces.namespaceExists(Namespace.of(schema.split("\\.")))) {
      throw SquallException.userError("query property 'default_schema' names an unknown schema '%s'", schema);
    }
  }

  /**
   * Refuses a plan with more tasks than a stage or the job may start: a leaf stage has one task per
   * split, which the planner does not cap.
   */
  private void checkTaskCounts(StageGraph graph, ScanAssignment splits, int maxPerStage, int maxTotal) {
    long total = 0;
    for (var stage : graph.getStagesList()) {
      var scans = splits.tasksByStage().get(stage.getStageId());
      int tasks = scans != null ? scans.size() : stage.getTaskCount();
      if (tasks > maxPerStage) {
        throw SquallException.userError("stage %d needs %d tasks, above max_tasks_per_stage = %d (range 1 to %d);"
            + " raise target_split_size_bytes or max_tasks_per_stage", stage.getStageId(), tasks, maxPerStage,
            settings.queryLimits().maxTasksPerStage());
      }
      total += tasks;
    }
    if (total > maxTotal) {
      throw SquallException.userError("the query needs %d tasks, above max_total_tasks = %d (range 1 to %d)",
          total, maxTotal, settings.queryLimits().maxTotalTasks());
    }
  }

  /** One statement may end in semicolons, as pasted from a SQL console; positions are unchanged. */
  static String withoutTrailingSemicolons(String sql) {
    int end = sql.length();
    while (end > 0 && (sql.charAt(end - 1) == ';' || Character.isWhitespace(sql.charAt(end - 1)))) {
      end--;
    }
    return sql.substring(0, end);
  }

  /**
   * An error at the first token of {@code text} (the statement with what came before it blanked,
   * so that its offsets are the statement's own).
   */
  private static PlanningException positionedAt(String text, PlanningException.Code code, String message) {
    int first = 0;
    while (first < text.length() && Character.isWhitespace(text.charAt(first))) {
      first++;
    }
    return PlanningException.atOffset(code, message, text, first, null);
  }
}

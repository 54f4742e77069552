package dev.squall.planner.testing;

import dev.squall.planner.DistributedPlanner;
import dev.squall.planner.PlannedQuery;
import dev.squall.planner.PlannerSettings;
import dev.squall.proto.v1.StageGraph;
import org.apache.iceberg.inmemory.InMemoryCatalog;

/** Shared TPC-H catalogs (built once per JVM) and planning shortcuts for tests. */
public final class Planning {
  /** Scale factor 1: 6M lineitem rows; with default settings nearly every join side is broadcast. */
  public static final InMemoryCatalog SF1 = TpchCatalog.create(1);
  /** Scale factor 100: 600M lineitem rows; large sides are hash-partitioned. */
  public static final InMemoryCatalog SF100 = TpchCatalog.create(100);
  public static final PlannerSettings SETTINGS = PlannerSettings.defaults().withDefaultSchema("tpch");

  private Planning() {}

  public static PlannedQuery sf1(String sql) {
    return new DistributedPlanner(SF1).plan(sql, SETTINGS);
  }

  public static PlannedQuery sf100(String sql) {
    return new DistributedPlanner(SF100).plan(sql, SETTINGS);
  }

  /** The stage graph of {@code sql} at SF 1, checked well formed ({@link StageGraphs#assertWellFormed}). */
  public static StageGraph sf1Graph(String sql) {
    StageGraph graph = sf1(sql).stageGraph();
    StageGraphs.assertWellFormed(graph);
    return graph;
  }

  /** The stage graph of {@code sql} at SF 100, checked well formed. */
  public static StageGraph sf100Graph(String sql) {
    StageGraph graph = sf100(sql).stageGraph();
    StageGraphs.assertWellFormed(graph);
    return graph;
  }
}

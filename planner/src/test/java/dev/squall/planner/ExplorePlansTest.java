package dev.squall.planner;

import dev.squall.planner.testing.TpchCatalog;
import dev.squall.planner.testing.TpchQueries;
import org.junit.jupiter.api.Test;

class ExplorePlansTest {
  @Test
  void print() {
    var catalog = TpchCatalog.create(1);
    var planner = new DistributedPlanner(catalog);
    var settings = PlannerSettings.defaults().withDefaultSchema("tpch");
    for (int q = 1; q <= 22; q++) {
      try {
        PlannedQuery p = planner.plan(TpchQueries.query(q), settings);
        System.out.println("===== Q" + q + "\n" + p.logicalPlan() + "\n" + p.explain());
      } catch (Exception e) {
        System.out.println("===== Q" + q + " FAILED " + e);
        e.printStackTrace(System.out);
      }
    }
  }
}

package dev.squall.planner.stage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.planner.PlannedQuery;
import dev.squall.planner.testing.Planning;
import org.junit.jupiter.api.Test;

class WindowPlanningTest {
  @Test
  void scratch() {
    for (String sql : new String[] {
        "select o_custkey, o_orderkey, sum(o_totalprice) over (partition by o_custkey order by o_orderdate), avg(o_totalprice) over (partition by o_custkey), rank() over (order by o_totalprice desc), lag(o_totalprice, 2, 0) over (partition by o_custkey order by o_orderkey) from orders",
        "select o_orderkey, min(o_totalprice) over (order by o_orderdate range between interval '10' day preceding and current row), count(*) over (partition by o_orderstatus order by o_orderkey rows between 2 preceding and 3 following) from orders where o_orderkey < 100",
        "select o_custkey, sum(sum(o_totalprice)) over (order by o_custkey), row_number() over (partition by count(*) order by o_custkey) from orders group by o_custkey"}) {
      PlannedQuery q = Planning.sf1(sql);
      System.out.println(q.logicalPlan());
      System.out.println(q.explain());
    }
  }
}

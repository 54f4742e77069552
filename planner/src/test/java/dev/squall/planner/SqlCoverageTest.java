package dev.squall.planner;

import static dev.squall.planner.testing.StageGraphs.operators;
import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.planner.testing.Planning;
import dev.squall.planner.testing.StageGraphs;
import dev.squall.proto.v1.Function;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.StageGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** SQL forms beyond TPC-H that Calcite rewrites into shapes the engine must be able to run. */
class SqlCoverageTest {
  @ParameterizedTest
  @ValueSource(strings = {
      "select o_orderkey in (select l_orderkey from lineitem where l_quantity > 49) from orders",
      "select c_name from customer where c_nationkey not in (select n_nationkey from nation where n_name like 'A%')",
      "select (select max(n_name) from nation) from region",
      "select r_name, (select count(*) from nation where n_regionkey = r_regionkey) from region",
      "select r_name from region where exists (select 1 from nation where n_regionkey = r_regionkey and n_name like 'A%') or r_regionkey = 0",
      "select n_name from nation intersect select r_name from region",
      "select n_name from nation except select r_name from region",
      "select n_name from nation union select r_name from region",
      "select count(distinct n_regionkey), sum(n_nationkey) from nation",
      "select n_regionkey, count(distinct n_name), count(distinct n_comment) from nation group by n_regionkey",
      "select count(*) filter (where n_regionkey = 1), sum(n_nationkey) filter (where n_name like 'A%') from nation",
      "select * from nation where n_name = 'x' and 1 = 0",
      "select n_name, coalesce(nullif(n_name, 'x'), 'y') from nation order by 1 nulls first limit 3",
      "select o_orderpriority, avg(o_totalprice), min(o_orderdate), max(o_comment) from orders group by o_orderpriority having count(*) > 10",
      "select c_custkey from customer c left join orders o on c.c_custkey = o.o_custkey and o.o_totalprice > c.c_acctbal",
      "select n1.n_name, n2.n_name from nation n1 cross join nation n2 where n1.n_nationkey < n2.n_nationkey",
      "with t as (select l_orderkey k, count(*) c from lineitem group by l_orderkey) select c, count(*) from t group by c order by c",
      "select l_orderkey from lineitem order by l_extendedprice * (1 - l_discount) desc limit 5",
      "select extract(quarter from o_orderdate), extract(month from o_orderdate), extract(day from o_orderdate) from orders",
      "select char_length(c_name), lower(c_name), abs(c_acctbal), mod(c_custkey, 7) from customer",
      "select cast(o_orderdate as timestamp), cast(o_totalprice as varchar) from orders where o_orderkey between 1 and 10"})
  void planIntoAWellFormedStageGraph(String sql) {
    StageGraphs.assertWellFormed(Planning.sf1(sql).stageGraph());
  }

  @Test
  void filteredAggregatesAggregateACaseExpression() {
    StageGraph graph = Planning.sf1("select count(*) filter (where n_regionkey = 1) from nation").stageGraph();
    assertThat(operators(graph, Operator.OpCase.PROJECT)).anySatisfy(p ->
        assertThat(p.getProject().getExpressionsList()).anySatisfy(e ->
            assertThat(e.getCall().getFunction()).isEqualTo(Function.CASE)));
    assertThat(operators(graph, Operator.OpCase.AGGREGATE)).allSatisfy(a ->
        assertThat(a.getAggregate().getAggregates(0).getKind()).isEqualTo(dev.squall.proto.v1.AggregateCall.Kind.COUNT));
  }

  @Test
  void scalarSubQueryThatMayReturnSeveralRowsPlansASingleValueCheck() {
    StageGraph graph = Planning.sf1(
        "select n_name from nation where n_regionkey = (select r_regionkey from region where r_name = 'ASIA')").stageGraph();
    assertThat(operators(graph, Operator.OpCase.AGGREGATE)).anySatisfy(a ->
        assertThat(a.getAggregate().getAggregatesList()).extracting(dev.squall.proto.v1.AggregateCall::getKind)
            .contains(dev.squall.proto.v1.AggregateCall.Kind.SINGLE_VALUE));
  }
}

package dev.squall.planner.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.squall.planner.PlanningException;
import dev.squall.planner.testing.Planning;
import dev.squall.planner.testing.StageGraphs;
import dev.squall.proto.v1.Aggregate;
import dev.squall.proto.v1.AggregateCall;
import dev.squall.proto.v1.Expand;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.StageGraph;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Grouping sets plan as an Expand (one copy of each row per grouping set, keys outside the set
 * NULL, the set's index as a column) below an ordinary PARTIAL/FINAL aggregation on (keys, index);
 * ordered-set aggregates and scalar sub-queries that may return several rows plan in one step
 * after a hash (or single) edge.
 */
class GroupingSetsPlanningTest {
  @ParameterizedTest
  @ValueSource(strings = {
      "select l_returnflag, l_linestatus, sum(l_quantity), count(*) from lineitem group by rollup (l_returnflag, l_linestatus)",
      "select l_returnflag, l_linestatus, max(l_shipdate) from lineitem group by cube (l_returnflag, l_linestatus)",
      "select l_returnflag, l_linestatus, grouping(l_returnflag, l_linestatus), avg(l_tax) from lineitem"
          + " group by grouping sets ((l_returnflag), (l_linestatus), ())",
      "select l_returnflag, l_linestatus, l_shipmode, count(*) from lineitem group by l_returnflag, rollup (l_linestatus, l_shipmode)"})
  void groupingSetsPlanAsExpandBelowPartialAndFinalAggregates(String sql) {
    StageGraph graph = Planning.sf100(sql).stageGraph();
    StageGraphs.assertWellFormed(graph);
    assertThat(StageGraphs.operators(graph, Operator.OpCase.EXPAND)).hasSize(1);
    assertThat(StageGraphs.operators(graph, Operator.OpCase.AGGREGATE)).extracting(o -> o.getAggregate().getMode())
        .containsExactlyInAnyOrder(Aggregate.Mode.PARTIAL, Aggregate.Mode.FINAL);
  }

  @Test
  void rollupExpandsEveryRowOncePerGroupingSetWithKeysOutsideTheSetNulled() {
    StageGraph graph = Planning.sf100("select l_returnflag, l_linestatus, sum(l_quantity) from lineitem"
        + " group by rollup (l_returnflag, l_linestatus)").stageGraph();
    Operator expandOp = StageGraphs.operators(graph, Operator.OpCase.EXPAND).get(0);
    Expand expand = expandOp.getExpand();
    int width = expand.getInput().getOutputSchema().getFieldsCount();
    // Sets (a, b), (a), (): the input columns, then both keys (NULL outside the set), then the set index.
    assertThat(expand.getProjectionsCount()).isEqualTo(3);
    assertThat(expandOp.getOutputSchema().getFieldsCount()).isEqualTo(width + 3);
    List<Boolean> nulled = expand.getProjectionsList().stream()
        .map(p -> p.getExpressions(width + 1).hasLiteral() && p.getExpressions(width + 1).getLiteral().getIsNull())
        .toList();
    assertThat(nulled).containsExactly(false, true, true);
    assertThat(expand.getProjectionsList()).extracting(p -> p.getExpressions(width + 2).getLiteral().getLongValue())
        .containsExactly(0L, 1L, 2L);
    // The grand total's group exists even when no row reaches it.
    Aggregate partial = StageGraphs.operators(graph, Operator.OpCase.AGGREGATE).stream().map(Operator::getAggregate)
        .filter(a -> a.getMode() == Aggregate.Mode.PARTIAL).findFirst().orElseThrow();
    assertThat(partial.getGroupKeysList()).containsExactly(width, width + 1, width + 2);
    assertThat(partial.getAlwaysGroupList()).extracting(l -> l.getIsNull()).containsExactly(true, true, false);
    assertThat(partial.getAlwaysGroup(2).getLongValue()).isEqualTo(2L);
  }

  @Test
  void groupingSetsWithoutTheEmptySetKeepNoGroupForEmptyInput() {
    StageGraph graph = Planning.sf100("select l_returnflag, l_linestatus, count(*) from lineitem"
        + " group by grouping sets ((l_returnflag), (l_linestatus))").stageGraph();
    assertThat(StageGraphs.operators(graph, Operator.OpCase.AGGREGATE))
        .allSatisfy(o -> assertThat(o.getAggregate().getAlwaysGroupList()).isEmpty());
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "select o_orderstatus, listagg(o_orderpriority, ',') within group (order by o_orderkey desc) from orders group by o_orderstatus",
      "select o_orderstatus, string_agg(o_orderpriority, '|' order by o_totalprice) from orders group by o_orderstatus",
      "select o_orderstatus, percentile_cont(0.25) within group (order by o_totalprice),"
          + " percentile_disc(0.5) within group (order by o_shippriority) from orders group by o_orderstatus"})
  void orderedSetAggregatesRunInOneStepAfterAHashEdgeOnTheGroupKeys(String sql) {
    StageGraph graph = Planning.sf100(sql).stageGraph();
    StageGraphs.assertWellFormed(graph);
    List<Operator> aggregates = StageGraphs.operators(graph, Operator.OpCase.AGGREGATE);
    assertThat(aggregates).extracting(o -> o.getAggregate().getMode()).containsExactly(Aggregate.Mode.SINGLE);
    assertThat(StageGraphs.edgeKinds(graph)).containsKey(Partitioning.KindCase.HASH);
    AggregateCall call = aggregates.get(0).getAggregate().getAggregates(0);
    assertThat(call.getOrderKeysCount()).isEqualTo(1);
  }

  @Test
  void percentileIsAConstantAndReadsItsOrderByColumn() {
    StageGraph graph = Planning.sf100("select percentile_cont(0.25) within group (order by o_totalprice desc)"
        + " from orders").stageGraph();
    Aggregate single = StageGraphs.operators(graph, Operator.OpCase.AGGREGATE).get(0).getAggregate();
    AggregateCall call = single.getAggregates(0);
    assertThat(call.getKind()).isEqualTo(AggregateCall.Kind.PERCENTILE_CONT);
    assertThat(call.getPercentile()).isEqualTo(0.25);
    assertThat(call.getOrderKeys(0).getDescending()).isTrue();
    assertThat(call.getArgsList()).containsExactly(call.getOrderKeys(0).getColumn());
    assertThat(StageGraphs.edgeKinds(graph)).containsKey(Partitioning.KindCase.SINGLE);
  }

  @Test
  void singleStepAggregatesUnderARollupMeetInOneTaskSoThatOneTaskMakesTheGrandTotal() {
    StageGraph graph = Planning.sf100("select o_orderstatus, listagg(o_orderpriority, ',') within group (order by o_orderkey)"
        + " from orders group by rollup (o_orderstatus)").stageGraph();
    StageGraphs.assertWellFormed(graph);
    List<Operator> aggregates = StageGraphs.operators(graph, Operator.OpCase.AGGREGATE);
    assertThat(aggregates).extracting(o -> o.getAggregate().getMode()).containsExactly(Aggregate.Mode.SINGLE);
    assertThat(aggregates.get(0).getAggregate().getAlwaysGroupCount()).isEqualTo(2);
    assertThat(StageGraphs.edgeKinds(graph)).containsKey(Partitioning.KindCase.SINGLE)
        .doesNotContainKey(Partitioning.KindCase.HASH);
  }

  @Test
  void percentileOfANonNumericColumnIsRefused() {
    PlanningException e = catchThrowableOfType(PlanningException.class,
        () -> Planning.sf1("select percentile_disc(0.5) within group (order by o_orderdate) from orders"));
    assertThat(e.code()).isEqualTo(PlanningException.Code.VALIDATION_ERROR);
    assertThat(e.reason()).contains("for function percentile_disc").contains("DATE").contains("NUMERIC");
  }

  @Test
  void scalarSubQueryThatMayReturnSeveralRowsPlansWithASingleValueAggregate() {
    StageGraph graph = Planning.sf1("select n_name, (select c_name from customer where c_nationkey = n_nationkey)"
        + " from nation").stageGraph();
    StageGraphs.assertWellFormed(graph);
    assertThat(StageGraphs.operators(graph, Operator.OpCase.AGGREGATE)).extracting(o -> o.getAggregate().getMode())
        .contains(Aggregate.Mode.SINGLE);
    StageGraph uncorrelated = Planning.sf1("select n_name from nation where n_regionkey = (select r_regionkey from region)")
        .stageGraph();
    assertThat(StageGraphs.operators(uncorrelated, Operator.OpCase.AGGREGATE))
        .flatExtracting(o -> o.getAggregate().getAggregatesList()).extracting(AggregateCall::getKind)
        .contains(AggregateCall.Kind.SINGLE_VALUE);
  }
}

package dev.squall.planner.stage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.planner.testing.Planning;
import dev.squall.planner.testing.StageGraphs;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.RuntimeFilter;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import org.junit.jupiter.api.Test;

/** Which joins carry a runtime filter, and where it points (TPC-H SF 1 statistics). */
class RuntimeFilterPlanningTest {
  private static StageGraph sf1(String sql) {
    StageGraph graph = Planning.sf1(sql).stageGraph();
    StageGraphs.assertWellFormed(graph);
    return graph;
  }

  private static Operator scanOf(Stage stage, int inputIndex) {
    return StageGraphs.operators(stage.getFragment(), Operator.OpCase.SCAN).stream()
        .filter(s -> s.getScan().getInputIndex() == inputIndex).findFirst().orElseThrow();
  }

  @Test
  void aSelectiveJoinFiltersTheFactScanByTheDimensionsKeys() {
    StageGraph graph = sf1("select sum(l_extendedprice) from lineitem join part on l_partkey = p_partkey"
        + " where p_brand = 'Brand#23' and p_container = 'MED BOX'");
    assertThat(graph.getRuntimeFiltersCount()).isEqualTo(1);
    RuntimeFilter f = graph.getRuntimeFilters(0);
    Operator scan = scanOf(graph.getStages(f.getProbeStageId()), f.getProbeScanInputIndex());
    assertThat(scan.getScan().getTable()).endsWith("lineitem");
    assertThat(scan.getOutputSchema().getFields(f.getProbeColumns(0)).getName()).isEqualTo("l_partkey");
    Stage build = graph.getStages(f.getBuildStageId());
    assertThat(StageGraphs.operators(build.getFragment(), Operator.OpCase.SCAN).get(0).getScan().getTable()).endsWith("part");
    assertThat(build.getOutputSchema().getFields(f.getBuildColumns(0)).getName()).isEqualTo("p_partkey");
  }

  @Test
  void outerAndAntiJoinsNeverFilterTheirPreservedSide() {
    assertThat(sf1("select count(*) from lineitem left join (select * from part where p_brand = 'Brand#23') p"
        + " on l_partkey = p_partkey").getRuntimeFiltersCount()).isZero();
    assertThat(sf1("select count(*) from lineitem where l_partkey not in (select p_partkey from part"
        + " where p_brand = 'Brand#23')").getRuntimeFiltersCount()).isZero();
  }

  @Test
  void aSemiJoinFiltersItsLeftSide() {
    StageGraph graph = sf1("select count(*) from lineitem where l_partkey in (select p_partkey from part"
        + " where p_brand = 'Brand#23')");
    assertThat(graph.getRuntimeFiltersCount()).isEqualTo(1);
    RuntimeFilter f = graph.getRuntimeFilters(0);
    assertThat(scanOf(graph.getStages(f.getProbeStageId()), f.getProbeScanInputIndex()).getScan().getTable())
        .endsWith("lineitem");
  }

  @Test
  void aProbeKeyComputedFromItsColumnsIsNotFiltered() {
    assertThat(sf1("select count(*) from (select l_partkey + 1 as k from lineitem) l join"
        + " (select * from part where p_brand = 'Brand#23') p on l.k = p.p_partkey").getRuntimeFiltersCount()).isZero();
  }

  @Test
  void aJoinOnTheGroupKeysOfAnAggregationFiltersTheScanBelowItInTheStageThatReadsIt() {
    // TPC-H Q4's shape: lineitem grouped by order key in a stage of its own, then joined to a
    // few orders. The filter reaches the lineitem scan below the partial aggregation.
    StageGraph graph = sf1("select count(*) from orders join (select l_orderkey, sum(l_quantity) as q from lineitem"
        + " group by l_orderkey) l on o_orderkey = l.l_orderkey where o_orderdate = date '1995-01-15'");
    assertThat(graph.getRuntimeFiltersCount()).isEqualTo(1);
    RuntimeFilter f = graph.getRuntimeFilters(0);
    Stage probe = graph.getStages(f.getProbeStageId());
    Operator scan = scanOf(probe, f.getProbeScanInputIndex());
    assertThat(scan.getScan().getTable()).endsWith("lineitem");
    assertThat(scan.getOutputSchema().getFields(f.getProbeColumns(0)).getName()).isEqualTo("l_orderkey");
    assertThat(StageGraphs.operators(probe.getFragment(), Operator.OpCase.AGGREGATE)).isNotEmpty();
    Stage build = graph.getStages(f.getBuildStageId());
    assertThat(StageGraphs.operators(build.getFragment(), Operator.OpCase.SCAN).get(0).getScan().getTable()).endsWith("orders");
    // The join itself is in another stage: the filter crossed the shuffle edge.
    assertThat(StageGraphs.operators(probe.getFragment(), Operator.OpCase.HASH_JOIN)).isEmpty();
  }

  @Test
  void aJoinOnAnAggregatedValueOrOverGroupingSetsIsNotFiltered() {
    // The same estimates as the test above, so only the trace can refuse.
    assertThat(sf1("select count(*) from orders join (select l_orderkey, count(*) as n from lineitem"
        + " group by l_orderkey) l on o_orderkey = l.n where o_orderdate = date '1995-01-15'").getRuntimeFiltersCount())
        .isZero();
    assertThat(sf1("select count(*) from orders join (select l_orderkey, sum(l_quantity) as q from lineitem"
        + " group by rollup (l_orderkey)) l on o_orderkey = l.l_orderkey where o_orderdate = date '1995-01-15'")
        .getRuntimeFiltersCount()).isZero();
  }
}

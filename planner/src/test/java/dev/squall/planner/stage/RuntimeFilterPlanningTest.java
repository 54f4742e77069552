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
  private static Operator scanOf(Stage stage, int inputIndex) {
    return StageGraphs.operators(stage.getFragment(), Operator.OpCase.SCAN).stream()
        .filter(s -> s.getScan().getInputIndex() == inputIndex).findFirst().orElseThrow();
  }

  @Test
  void aSelectiveJoinFiltersTheFactScanByTheDimensionsKeys() {
    StageGraph graph = Planning.sf1Graph("select sum(l_extendedprice) from lineitem join part on l_partkey = p_partkey"
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
    assertThat(Planning.sf1Graph("select count(*) from lineitem left join (select * from part where p_brand = 'Brand#23') p"
        + " on l_partkey = p_partkey").getRuntimeFiltersCount()).isZero();
    assertThat(Planning.sf1Graph("select count(*) from lineitem where l_partkey not in (select p_partkey from part"
        + " where p_brand = 'Brand#23')").getRuntimeFiltersCount()).isZero();
  }

  @Test
  void aSemiJoinFiltersItsLeftSide() {
    StageGraph graph = Planning.sf1Graph("select count(*) from lineitem where l_partkey in (select p_partkey from part"
        + " where p_brand = 'Brand#23')");
    assertThat(graph.getRuntimeFiltersCount()).isEqualTo(1);
    RuntimeFilter f = graph.getRuntimeFilters(0);
    assertThat(scanOf(graph.getStages(f.getProbeStageId()), f.getProbeScanInputIndex()).getScan().getTable())
        .endsWith("lineitem");
  }

  @Test
  void aProbeKeyComputedFromItsColumnsIsNotFiltered() {
    assertThat(Planning.sf1Graph("select count(*) from (select l_partkey + 1 as k from lineitem) l join"
        + " (select * from part where p_brand = 'Brand#23') p on l.k = p.p_partkey").getRuntimeFiltersCount()).isZero();
  }

  @Test
  void aJoinOnTheGroupKeysOfAnAggregationFiltersTheScanBelowItInTheStageThatReadsIt() {
    // TPC-H Q4's shape: lineitem grouped by order key in a stage of its own, then joined to a
    // few orders. The filter reaches the lineitem scan below the partial aggregation.
    StageGraph graph = Planning.sf1Graph("select count(*) from orders join (select l_orderkey, sum(l_quantity) as q from lineitem"
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
    assertThat(Planning.sf1Graph("select count(*) from orders join (select l_orderkey, count(*) as n from lineitem"
        + " group by l_orderkey) l on o_orderkey = l.n where o_orderdate = date '1995-01-15'").getRuntimeFiltersCount())
        .isZero();
    assertThat(Planning.sf1Graph("select count(*) from orders join (select l_orderkey, sum(l_quantity) as q from lineitem"
        + " group by rollup (l_orderkey)) l on o_orderkey = l.l_orderkey where o_orderdate = date '1995-01-15'")
        .getRuntimeFiltersCount()).isZero();
  }

  @Test
  void q17sPartKeysFilterBothLineitemScansFromThePartStage() {
    // The per-part average joins the lineitem ⋈ part stage, estimated too large to filter by; its
    // part keys all come from the filtered part stage, which filters the lineitem scan under the
    // average too, and sooner.
    StageGraph graph = Planning.sf1Graph(dev.squall.planner.testing.TpchQueries.query(17));
    assertThat(graph.getRuntimeFiltersCount()).isEqualTo(2);
    java.util.Set<Integer> probeStages = new java.util.HashSet<>();
    for (RuntimeFilter f : graph.getRuntimeFiltersList()) {
      Stage build = graph.getStages(f.getBuildStageId());
      assertThat(StageGraphs.operators(build.getFragment(), Operator.OpCase.SCAN)).hasSize(1);
      assertThat(StageGraphs.operators(build.getFragment(), Operator.OpCase.SCAN).get(0).getScan().getTable())
          .endsWith("part");
      assertThat(build.getOutputSchema().getFields(f.getBuildColumns(0)).getName()).isEqualTo("p_partkey");
      Operator scan = scanOf(graph.getStages(f.getProbeStageId()), f.getProbeScanInputIndex());
      assertThat(scan.getScan().getTable()).endsWith("lineitem");
      assertThat(scan.getOutputSchema().getFields(f.getProbeColumns(0)).getName()).isEqualTo("l_partkey");
      probeStages.add(f.getProbeStageId());
    }
    assertThat(probeStages).hasSize(2);
    Stage average = graph.getStages(graph.getRuntimeFilters(1).getProbeStageId());
    assertThat(StageGraphs.operators(average.getFragment(), Operator.OpCase.AGGREGATE)).isNotEmpty();
  }

  @Test
  void aKeyThatReachesAScanFiltersWhenAnotherKeyIsAnAggregatedValue() {
    // TPC-H Q2's shape: joined on the part key and the minimum cost per part. The part key alone
    // reaches partsupp, below the minimum and an inner join to supplier.
    StageGraph graph = Planning.sf1Graph("select count(*) from (select ps_partkey, min(ps_supplycost) as c from partsupp"
        + " join supplier on ps_suppkey = s_suppkey where s_acctbal > 0 group by ps_partkey) m"
        + " join (select * from part where p_size = 15 and p_type like '%BRASS') p"
        + " on m.ps_partkey = p.p_partkey and m.c = p.p_retailprice");
    RuntimeFilter underMinimum = graph.getRuntimeFiltersList().stream()
        .filter(f -> StageGraphs.operators(graph.getStages(f.getBuildStageId()).getFragment(), Operator.OpCase.SCAN)
            .get(0).getScan().getTable().endsWith(".part"))
        .findFirst().orElseThrow();
    assertThat(underMinimum.getProbeColumnsCount()).isEqualTo(1);
    Stage probe = graph.getStages(underMinimum.getProbeStageId());
    assertThat(StageGraphs.operators(probe.getFragment(), Operator.OpCase.AGGREGATE)).isNotEmpty();
    assertThat(StageGraphs.operators(probe.getFragment(), Operator.OpCase.HASH_JOIN)).isNotEmpty();
    Operator scan = scanOf(probe, underMinimum.getProbeScanInputIndex());
    assertThat(scan.getScan().getTable()).endsWith("partsupp");
    assertThat(scan.getOutputSchema().getFields(underMinimum.getProbeColumns(0)).getName()).isEqualTo("ps_partkey");
    Stage build = graph.getStages(underMinimum.getBuildStageId());
    assertThat(build.getOutputSchema().getFields(underMinimum.getBuildColumns(0)).getName()).isEqualTo("p_partkey");
  }

  @Test
  void aProbeKeyFromBothSidesOfAJoinBelowIsNotFiltered() {
    // The probe key is the sum of a column of each side: no scan holds it.
    StageGraph graph = Planning.sf1Graph("select count(*) from (select l_partkey + ps_suppkey as k from lineitem join partsupp"
        + " on l_partkey = ps_partkey and l_suppkey = ps_suppkey) l join (select * from part where p_brand"
        + " = 'Brand#23') p on l.k = p.p_partkey");
    assertThat(graph.getRuntimeFiltersList()).noneMatch(f -> StageGraphs.operators(
        graph.getStages(f.getBuildStageId()).getFragment(), Operator.OpCase.SCAN).stream()
        .anyMatch(scan -> scan.getScan().getTable().endsWith(".part")));
  }
}

package dev.squall.planner.stage;

import static dev.squall.planner.testing.StageGraphs.edgeKinds;
import static dev.squall.planner.testing.StageGraphs.operators;
import static dev.squall.planner.testing.StageGraphs.root;
import static dev.squall.proto.v1.Partitioning.KindCase.BROADCAST;
import static dev.squall.proto.v1.Partitioning.KindCase.HASH;
import static dev.squall.proto.v1.Partitioning.KindCase.SINGLE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.squall.planner.DistributedPlanner;
import dev.squall.planner.testing.Planning;
import dev.squall.planner.testing.StageGraphs;
import dev.squall.proto.v1.Aggregate;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.StageGraph;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Where the stage translator places exchanges, on small queries whose shape is clear by hand. */
class ExchangePlacementTest {
  @Test
  void scanWithoutExchangeIsASingleStage() {
    StageGraph graph = Planning.sf1Graph("select l_orderkey from lineitem where l_quantity > 10");
    assertThat(graph.getStagesCount()).isEqualTo(1);
    assertThat(graph.getEdgesCount()).isZero();
  }

  @Test
  void limitWithoutOrderIsPushedBelowTheSingleEdge() {
    StageGraph graph = Planning.sf1Graph("select l_orderkey from lineitem limit 5 offset 2");
    assertThat(edgeKinds(graph)).isEqualTo(Map.of(SINGLE, 1));
    Operator leafLimit = operators(graph.getStages(0).getFragment(), Operator.OpCase.LIMIT).get(0);
    assertThat(leafLimit.getLimit().getLimit()).isEqualTo(7);
    assertThat(leafLimit.getLimit().getOffset()).isZero();
    Operator rootLimit = root(graph).getFragment();
    assertThat(rootLimit.getLimit().getOffset()).isEqualTo(2);
    assertThat(rootLimit.getLimit().getLimit()).isEqualTo(5);
  }

  @Test
  void orderByWithoutLimitSortsOnceInOneTask() {
    StageGraph graph = Planning.sf1Graph("select l_orderkey from lineitem order by l_orderkey desc");
    assertThat(edgeKinds(graph)).isEqualTo(Map.of(SINGLE, 1));
    assertThat(operators(graph.getStages(0).getFragment(), Operator.OpCase.SORT)).isEmpty();
    Operator sort = operators(root(graph).getFragment(), Operator.OpCase.SORT).get(0);
    assertThat(sort.getSort().getKeys(0).getDescending()).isTrue();
    // Trino's default: NULLs last in both directions (Calcite's would put them first for DESC).
    assertThat(sort.getSort().getKeys(0).getNullsFirst()).isFalse();
    assertThat(root(graph).getTaskCount()).isEqualTo(1);
  }

  @Test
  void globalAggregateGathersPartialStatesThroughASingleEdge() {
    StageGraph graph = Planning.sf1Graph("select count(*), max(l_comment) from lineitem"); // not answered from metadata (string bounds)
    assertThat(edgeKinds(graph)).isEqualTo(Map.of(SINGLE, 1));
    assertThat(operators(graph.getStages(0).getFragment(), Operator.OpCase.AGGREGATE).get(0).getAggregate().getMode())
        .isEqualTo(Aggregate.Mode.PARTIAL);
    assertThat(root(graph).getFragment().getAggregate().getMode()).isEqualTo(Aggregate.Mode.FINAL);
  }

  @Test
  void aggregateOverRowsAlreadyHashedOnAGroupKeyNeedsNoExchange() {
    // The inner aggregate hashes by l_orderkey; the outer groups by (l_orderkey, s) and runs in place.
    StageGraph graph = Planning.sf100(
        "select l_orderkey, s, count(*) from (select l_orderkey, sum(l_quantity) s from lineitem group by l_orderkey) t group by l_orderkey, s")
        .stageGraph();
    assertThat(edgeKinds(graph)).isEqualTo(Map.of(HASH, 1));
    assertThat(operators(root(graph).getFragment(), Operator.OpCase.AGGREGATE))
        .extracting(o -> o.getAggregate().getMode())
        .containsExactly(Aggregate.Mode.SINGLE, Aggregate.Mode.FINAL);
  }

  @Test
  void selectDistinctIsAnAggregateWithoutCalls() {
    StageGraph graph = Planning.sf100("select distinct l_returnflag, l_linestatus from lineitem").stageGraph();
    assertThat(edgeKinds(graph)).isEqualTo(Map.of(HASH, 1));
    assertThat(operators(graph, Operator.OpCase.AGGREGATE)).allMatch(o -> o.getAggregate().getAggregatesCount() == 0);
  }

  @Test
  void unionAllGathersEveryInputIntoOneStage() {
    StageGraph graph = Planning.sf1Graph("select n_name from nation union all select r_name from region");
    assertThat(graph.getStagesCount()).isEqualTo(3);
    assertThat(root(graph).getFragment().getUnionAll().getInputsCount()).isEqualTo(2);
    assertThat(StageGraphs.edgesInto(graph, graph.getRootStageId())).hasSize(2);
  }

  @Test
  void valuesRunInOneTask() {
    StageGraph graph = Planning.sf1Graph("select x + 1 from (values (1), (2), (3)) as t(x)");
    assertThat(graph.getStagesCount()).isEqualTo(1);
    assertThat(operators(root(graph).getFragment(), Operator.OpCase.VALUES).get(0).getValues().getRowsCount()).isEqualTo(3);
    assertThat(root(graph).getTaskCount()).isEqualTo(1);
  }

  @Test
  void smallBuildSideOfAJoinIsBroadcastIntoTheProbeStage() {
    StageGraph graph = new DistributedPlanner(Planning.SF1).plan(
        "select n_name, r_name from nation join region on n_regionkey = r_regionkey",
        Planning.SETTINGS.withReplicatedScanMaxBytes(0)).stageGraph();
    StageGraphs.assertWellFormed(graph);
    assertThat(edgeKinds(graph)).isEqualTo(Map.of(BROADCAST, 1));
    assertThat(operators(root(graph).getFragment(), Operator.OpCase.HASH_JOIN)).hasSize(1);
  }

  /**
   * A broadcast side that only scans tables whose data files are within replicatedScanMaxBytes is
   * scanned in every task of the probe stage: no stage, no edge; its scan is the stage's second
   * input, marked replicated, with the side's estimate for the memory estimate.
   */
  @Test
  void aTinyBuildSideIsScannedInEveryTaskOfTheProbeStage() {
    StageGraph graph = Planning.sf1Graph("select n_name, r_name from nation join region on n_regionkey = r_regionkey"
        + " where r_name = 'ASIA'");
    assertThat(graph.getStagesCount()).isEqualTo(1);
    assertThat(graph.getEdgesList()).isEmpty();
    List<Operator> scans = operators(root(graph).getFragment(), Operator.OpCase.SCAN);
    assertThat(scans).extracting(o -> o.getScan().getTable(), o -> o.getScan().getInputIndex(), o -> o.getScan().getReplicated())
        .containsExactlyInAnyOrder(tuple("tpch.nation", 0, false), tuple("tpch.region", 1, true));
    assertThat(scans).filteredOn(o -> o.getScan().getReplicated())
        .allSatisfy(o -> assertThat(o.getScan().getReplicatedEstimatedBytes()).isPositive());
  }

  /**
   * A side that would build a runtime filter into a probe scan over more data files than the
   * bound keeps its stage and the filter when the probe column's file bounds are unknown (the test
   * catalog's l_suppkey) or clustered; the same side is scanned in the probe's tasks when the
   * filter would not be planned (an outer join).
   */
  @Test
  void aTinySideThatWouldFilterALargeProbeScanKeepsItsStageAndTheFilter() {
    StageGraph inner = Planning.sf1Graph("select l_orderkey, n_name from lineitem join nation on l_suppkey = n_nationkey"
        + " where n_name = 'GERMANY'");
    assertThat(edgeKinds(inner)).isEqualTo(Map.of(BROADCAST, 1));
    assertThat(inner.getRuntimeFiltersList()).hasSize(1);
    StageGraph left = Planning.sf1Graph("select l_orderkey, n_name from lineitem left join nation on l_suppkey = n_nationkey"
        + " and n_name = 'GERMANY'");
    assertThat(left.getEdgesList()).isEmpty();
    assertThat(operators(left, Operator.OpCase.SCAN)).anyMatch(o -> o.getScan().getReplicated());
  }

  /**
   * Every file of customer holds nation keys 0..24 (its bounds), so a runtime filter on
   * c_nationkey could skip no file: nation is scanned in customer's tasks, with no filter.
   */
  @Test
  void aTinySideIsReplicatedIntoALargeProbeScanWhoseFilesAreNotClusteredOnTheKey() {
    StageGraph graph = Planning.sf100("select c_name, n_name from customer join nation on c_nationkey = n_nationkey"
        + " where n_name = 'GERMANY'").stageGraph();
    StageGraphs.assertWellFormed(graph);
    assertThat(graph.getEdgesList()).isEmpty();
    assertThat(graph.getRuntimeFiltersList()).isEmpty();
    assertThat(operators(graph, Operator.OpCase.SCAN)).filteredOn(o -> o.getScan().getReplicated())
        .extracting(o -> o.getScan().getTable()).containsExactly("tpch.nation");
  }

  /** A side over the bound, or one that aggregates, keeps its broadcast stage. */
  @Test
  void aBuildSideOverTheBoundOrThatAggregatesIsStillBroadcast() {
    String join = "select n_name, r_name from nation join region on n_regionkey = r_regionkey";
    StageGraph small = new DistributedPlanner(Planning.SF1).plan(join, Planning.SETTINGS.withReplicatedScanMaxBytes(1))
        .stageGraph();
    assertThat(edgeKinds(small)).isEqualTo(Map.of(BROADCAST, 1));
    StageGraph grouped = Planning.sf1Graph("select n_name, c from nation join (select r_regionkey k, count(*) c from region"
        + " group by r_regionkey) on n_regionkey = k");
    assertThat(edgeKinds(grouped)).containsEntry(BROADCAST, 1);
    assertThat(operators(grouped, Operator.OpCase.SCAN)).noneMatch(o -> o.getScan().getReplicated());
  }

  @Test
  void joinKeysOfDifferentTypesAreHashedInOneCommonType() {
    // l_linenumber is INTEGER, o_orderkey BIGINT: both hash edges must carry BIGINT keys, so that
    // equal values hash alike.
    StageGraph graph = Planning.sf100("select o_orderkey from orders join lineitem on o_orderkey = l_linenumber").stageGraph();
    StageGraphs.assertWellFormed(graph);
    var hashEdges = graph.getEdgesList().stream().filter(e -> e.getPartitioning().hasHash()).toList();
    assertThat(hashEdges).hasSize(2).allSatisfy(e -> {
      var schema = StageGraphs.stage(graph, e.getProducerStageId()).getOutputSchema();
      int key = e.getPartitioning().getHash().getKeys(0);
      assertThat(schema.getFields(key).getType().getKind()).isEqualTo(dev.squall.proto.v1.DataType.Kind.BIGINT);
    });
  }

  @Test
  void fullOuterJoinOfLargeSidesIsHashPartitioned() {
    StageGraph graph = Planning.sf100("select o_orderkey, l_orderkey from orders full join lineitem on o_orderkey = l_orderkey").stageGraph();
    assertThat(edgeKinds(graph)).isEqualTo(Map.of(HASH, 2));
    assertThat(root(graph).getTaskCount()).isGreaterThan(1);
  }
}

package dev.squall.planner;

import static dev.squall.planner.testing.StageGraphs.edgeKinds;
import static dev.squall.planner.testing.StageGraphs.edgesInto;
import static dev.squall.planner.testing.StageGraphs.operators;
import static dev.squall.planner.testing.StageGraphs.root;
import static dev.squall.planner.testing.StageGraphs.stagesScanning;
import static dev.squall.proto.v1.Partitioning.KindCase.BROADCAST;
import static dev.squall.proto.v1.Partitioning.KindCase.HASH;
import static dev.squall.proto.v1.Partitioning.KindCase.SINGLE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.planner.testing.Planning;
import dev.squall.planner.testing.StageGraphs;
import dev.squall.planner.testing.TpchQueries;
import dev.squall.proto.v1.Aggregate;
import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Stage graphs of TPC-H queries at scale factor 100 (600M lineitem rows, 150M orders, 15M
 * customers, 20M parts, 80M partsupp, 1M suppliers) with the default settings: 32 MiB broadcast
 * threshold, 128 MiB splits, 256 MiB per task. Expected shapes are derived by hand from the
 * query text and the table sizes; the reasoning is written beside each test.
 */
class TpchStageGraphTest {

  @ParameterizedTest(name = "Q{0} plans at SF1 into a well-formed stage graph")
  @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22})
  void everyTpchQueryPlansAtScaleFactorOne(int q) {
    PlannedQuery planned = Planning.sf1(TpchQueries.query(q));
    StageGraphs.assertWellFormed(planned.stageGraph());
    assertThat(planned.outputSchema().getFieldsCount()).isPositive();
    assertThat(planned.explain()).contains("[root]");
  }

  @ParameterizedTest(name = "Q{0} plans at SF100 into a well-formed stage graph")
  @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22})
  void everyTpchQueryPlansAtScaleFactorHundred(int q) {
    StageGraphs.assertWellFormed(Planning.sf100(TpchQueries.query(q)).stageGraph());
  }

  /**
   * Q1 scans lineitem once and groups by two columns. The partial aggregate runs in the scan stage,
   * a hash edge on the two group keys feeds the final aggregate, and a single edge gathers the
   * groups for ORDER BY. Three stages; edges: 1 hash, 1 single.
   */
  @Test
  void q1IsPartialAggregateHashEdgeFinalAggregateSingleEdgeSort() {
    StageGraph graph = Planning.sf100(TpchQueries.query(1)).stageGraph();
    assertThat(graph.getStagesCount()).isEqualTo(3);
    assertThat(edgeKinds(graph)).isEqualTo(Map.of(HASH, 1, SINGLE, 1));

    Stage leaf = stagesScanning(graph, "tpch.lineitem").get(0);
    Aggregate partial = operators(leaf.getFragment(), Operator.OpCase.AGGREGATE).get(0).getAggregate();
    assertThat(partial.getMode()).isEqualTo(Aggregate.Mode.PARTIAL);
    assertThat(partial.getGroupKeysCount()).isEqualTo(2);
    // AVG was reduced: 4 SUMs of the query, COUNT(*), and the SUM of l_discount for avg_disc.
    assertThat(partial.getAggregatesList()).extracting(c -> c.getKind().name())
        .containsExactly("SUM", "SUM", "SUM", "SUM", "COUNT_STAR", "SUM");
    Edge hash = edgesInto(graph, graph.getEdges(0).getConsumerStageId()).get(0);
    assertThat(hash.getPartitioning().getHash().getKeysList()).containsExactly(0, 1);
    assertThat(leaf.getFragment().toString()).contains("l_shipdate").contains("lt-eq");

    Stage root = root(graph);
    assertThat(root.getTaskCount()).isEqualTo(1);
    assertThat(operators(root.getFragment(), Operator.OpCase.SORT)).hasSize(1);
    assertThat(operators(graph, Operator.OpCase.AGGREGATE))
        .extracting(o -> o.getAggregate().getMode())
        .containsExactlyInAnyOrder(Aggregate.Mode.PARTIAL, Aggregate.Mode.FINAL);
  }

  /**
   * Q3: customers of one segment (15M * 15% guessed selectivity, 9 bytes a row = 20 MB) are
   * broadcast; filtered lineitem (~300M rows) and orders (~75M rows) are both far above the
   * threshold, so both are hash-partitioned on the order key. The grouping keys include
   * l_orderkey, so the aggregate runs whole in the join stage without another exchange; a local
   * TopN(10) below a single edge and the final TopN above it. Five stages; edges: 2 hash,
   * 1 broadcast, 1 single.
   */
  @Test
  void q3HashJoinsOrdersAndLineitemBroadcastsCustomersAndAggregatesWithoutExchange() {
    StageGraph graph = Planning.sf100(TpchQueries.query(3)).stageGraph();
    assertThat(graph.getStagesCount()).isEqualTo(5);
    assertThat(edgeKinds(graph)).isEqualTo(Map.of(HASH, 2, BROADCAST, 1, SINGLE, 1));
    assertThat(operators(graph, Operator.OpCase.AGGREGATE)).singleElement()
        .extracting(o -> o.getAggregate().getMode()).isEqualTo(Aggregate.Mode.SINGLE);
    List<Operator> topNs = operators(graph, Operator.OpCase.TOP_N);
    assertThat(topNs).hasSize(2).allMatch(o -> o.getTopN().getLimit() == 10);
    Edge customers = graph.getEdgesList().stream().filter(e -> e.getPartitioning().hasBroadcast()).findFirst().orElseThrow();
    assertThat(StageGraphs.stage(graph, customers.getProducerStageId()).getFragment().toString())
        .contains("tpch.customer");
  }

  /**
   * Q5: region (1 row) and nation (25 rows), a few KiB of data files each, are scanned in every
   * task of the supplier scan (replicated scans, no stage of their own; supplier's files each hold
   * every nation key, so a runtime filter on s_nationkey could skip none of them), and suppliers of
   * the region (~200K rows, 11 MB) are broadcast into the lineitem join: 1 broadcast edge. customer
   * (15M) joins the year's orders (~37M) by hash on both sides (2 hash edges); that result joins
   * lineitem (600M) by hash on both sides (2 hash edges). Grouping by n_name needs a hash edge
   * between partial and final aggregation (1), and ORDER BY a single edge (1). Eight stages;
   * edges: 5 hash, 1 broadcast, 1 single.
   */
  @Test
  void q5BroadcastsTheRegionChainAndHashJoinsTheLargeTables() {
    StageGraph graph = Planning.sf100(TpchQueries.query(5)).stageGraph();
    assertThat(graph.getStagesCount()).isEqualTo(8);
    assertThat(edgeKinds(graph)).isEqualTo(Map.of(HASH, 5, BROADCAST, 1, SINGLE, 1));
    Stage supplier = stagesScanning(graph, "tpch.supplier").get(0);
    assertThat(stagesScanning(graph, "tpch.nation")).containsExactly(supplier);
    assertThat(stagesScanning(graph, "tpch.region")).containsExactly(supplier);
    assertThat(operators(supplier.getFragment(), Operator.OpCase.SCAN))
        .extracting(o -> o.getScan().getTable() + (o.getScan().getReplicated() ? " replicated" : ""))
        .containsExactlyInAnyOrder("tpch.supplier", "tpch.nation replicated", "tpch.region replicated");
    assertThat(operators(graph, Operator.OpCase.HASH_JOIN)).hasSize(5);
    assertThat(operators(graph, Operator.OpCase.AGGREGATE))
        .extracting(o -> o.getAggregate().getMode())
        .containsExactlyInAnyOrder(Aggregate.Mode.PARTIAL, Aggregate.Mode.FINAL);
    assertThat(root(graph).getTaskCount()).isEqualTo(1);
  }

  /**
   * Q9: every join input but nation is above the threshold. lineitem joins green parts (hash both:
   * 2), then orders (hash both: 2), then supplier⋈nation (nation scanned in every supplier task;
   * hash both: 2), then partsupp on (suppkey, partkey): the left side is already hashed on
   * l_suppkey, one of the join keys, so only partsupp is shuffled, by ps_suppkey, into the same
   * partitions (1). Partial/final aggregation by (nation, o_year) (1 hash) and a single edge for
   * ORDER BY (1). Ten stages; edges: 8 hash, 1 single.
   */
  @Test
  void q9ShufflesOnlyPartsuppIntoTheSupplierPartitioning() {
    StageGraph graph = Planning.sf100(TpchQueries.query(9)).stageGraph();
    assertThat(graph.getStagesCount()).isEqualTo(10);
    assertThat(edgeKinds(graph)).isEqualTo(Map.of(HASH, 8, SINGLE, 1));
    Stage partsupp = stagesScanning(graph, "tpch.partsupp").get(0);
    Edge out = graph.getEdgesList().stream()
        .filter(e -> e.getProducerStageId() == partsupp.getStageId()).findFirst().orElseThrow();
    // partsupp output columns are (ps_partkey, ps_suppkey, ps_supplycost): hashed on ps_suppkey only.
    assertThat(out.getPartitioning().getHash().getKeysList()).containsExactly(1);
    Stage consumer = StageGraphs.stage(graph, out.getConsumerStageId());
    assertThat(edgesInto(graph, consumer.getStageId())).hasSize(3);
  }

  /**
   * Q18: the IN sub-query aggregates lineitem by l_orderkey (partial, hash edge, final with the
   * HAVING filter); orders joins it co-located (only orders is shuffled by o_orderkey: 1 hash);
   * customer joins that on custkey (hash both: 2); lineitem joins on orderkey (hash both: 2); the
   * outer GROUP BY contains o_orderkey, so it runs without an exchange; TopN(100) local and final
   * around a single edge. Eight stages; edges: 6 hash, 1 single, no broadcast.
   */
  @Test
  void q18AggregatesLineitemOnceAndJoinsOrdersColocated() {
    StageGraph graph = Planning.sf100(TpchQueries.query(18)).stageGraph();
    assertThat(graph.getStagesCount()).isEqualTo(8);
    assertThat(edgeKinds(graph)).isEqualTo(Map.of(HASH, 6, SINGLE, 1));
    assertThat(operators(graph, Operator.OpCase.AGGREGATE))
        .extracting(o -> o.getAggregate().getMode())
        .containsExactlyInAnyOrder(Aggregate.Mode.PARTIAL, Aggregate.Mode.FINAL, Aggregate.Mode.SINGLE);
    Stage finalAggregate = graph.getStagesList().stream()
        .filter(s -> operators(s.getFragment(), Operator.OpCase.AGGREGATE).stream()
            .anyMatch(o -> o.getAggregate().getMode() == Aggregate.Mode.FINAL))
        .findFirst().orElseThrow();
    // The orders join happens in the stage of the final aggregate: one extra input, from orders.
    assertThat(operators(finalAggregate.getFragment(), Operator.OpCase.HASH_JOIN)).hasSize(1);
    assertThat(edgesInto(graph, finalAggregate.getStageId())).hasSize(2);
    assertThat(operators(graph, Operator.OpCase.TOP_N)).hasSize(2)
        .allMatch(o -> o.getTopN().getLimit() == 100);
  }

  /** At SF1 every dimension side of Q3 fits under the threshold: no hash join, only broadcasts. */
  @Test
  void q3AtScaleFactorOneBroadcastsBothJoinSides() {
    StageGraph graph = Planning.sf1(TpchQueries.query(3)).stageGraph();
    assertThat(edgeKinds(graph)).containsEntry(BROADCAST, 2);
    assertThat(graph.getEdgesList()).filteredOn(e -> e.getPartitioning().hasHash())
        .allMatch(e -> operators(StageGraphs.stage(graph, e.getProducerStageId()).getFragment(), Operator.OpCase.AGGREGATE)
            .stream().anyMatch(o -> o.getAggregate().getMode() == Aggregate.Mode.PARTIAL));
  }

  /**
   * Q15 reads its view revenue0 twice: joined to supplier, and under max(total_revenue). The
   * view's scan of lineitem and partial aggregation run once, in one stage whose output feeds both
   * final aggregations through two hash edges of the same partitioning.
   */
  @Test
  void q15ScansLineitemOnceForBothReadsOfItsView() {
    StageGraph graph = Planning.sf1(TpchQueries.query(15)).stageGraph();
    List<Stage> lineitem = stagesScanning(graph, "tpch.lineitem");
    assertThat(lineitem).hasSize(1);
    int view = lineitem.get(0).getStageId();
    List<Edge> out = graph.getEdgesList().stream().filter(e -> e.getProducerStageId() == view).toList();
    assertThat(out).hasSize(2).allMatch(e -> e.getPartitioning().equals(out.get(0).getPartitioning()));
    assertThat(out.get(0).getConsumerStageId()).isNotEqualTo(out.get(1).getConsumerStageId());
    // No runtime filter narrows the shared stage: each consumer needs all of its rows.
    assertThat(graph.getRuntimeFiltersList()).noneMatch(f -> f.getProbeStageId() == view);
  }

  /** A lower broadcast threshold turns Q3's customer broadcast into a hash join. */
  @Test
  void zeroBroadcastThresholdHashPartitionsEveryEquiJoin() {
    PlannedQuery planned = new DistributedPlanner(Planning.SF1)
        .plan(TpchQueries.query(3), Planning.SETTINGS.withBroadcastThresholdBytes(0));
    assertThat(edgeKinds(planned.stageGraph())).doesNotContainKey(BROADCAST);
    StageGraphs.assertWellFormed(planned.stageGraph());
  }
}

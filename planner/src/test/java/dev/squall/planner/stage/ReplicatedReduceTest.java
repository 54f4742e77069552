package dev.squall.planner.stage;

import static dev.squall.planner.testing.StageGraphs.operators;
import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.planner.DistributedPlanner;
import dev.squall.planner.testing.Planning;
import dev.squall.planner.testing.StageGraphs;
import dev.squall.planner.testing.TpchQueries;
import dev.squall.proto.v1.Aggregate;
import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import org.junit.jupiter.api.Test;

/**
 * A scalar sub-query's global aggregate broadcast to a join is reduced in every task of the join's
 * stage: the partial aggregates' stage feeds the join's stage through a broadcast edge, and no
 * one-task stage of the FINAL step alone is left between them.
 */
class ReplicatedReduceTest {
  /**
   * The stages broadcast to another whose fragment is a FINAL aggregate reading an edge, and
   * nothing else but projections and filters.
   */
  private static long finalOnlyStages(StageGraph graph) {
    return graph.getEdgesList().stream()
        .filter(e -> e.getPartitioning().getKindCase() == Partitioning.KindCase.BROADCAST)
        .filter(e -> finalOnly(graph.getStages(e.getProducerStageId()).getFragment()))
        .count();
  }

  private static boolean finalOnly(Operator op) {
    return switch (op.getOpCase()) {
      case PROJECT -> finalOnly(op.getProject().getInput());
      case FILTER -> finalOnly(op.getFilter().getInput());
      case AGGREGATE -> op.getAggregate().getMode() == Aggregate.Mode.FINAL
          && op.getAggregate().getInput().getOpCase() == Operator.OpCase.SHUFFLE_READ;
      default -> false;
    };
  }

  /** Whether a broadcast edge carries a global PARTIAL aggregate's rows into a stage that reduces them itself. */
  private static boolean partialsBroadcastIntoTheJoinStage(StageGraph graph) {
    for (Edge e : graph.getEdgesList()) {
      if (e.getPartitioning().getKindCase() != Partitioning.KindCase.BROADCAST) {
        continue;
      }
      Stage producer = graph.getStages(e.getProducerStageId());
      Stage consumer = graph.getStages(e.getConsumerStageId());
      boolean partial = operators(producer.getFragment(), Operator.OpCase.AGGREGATE).stream()
          .anyMatch(o -> o.getAggregate().getMode() == Aggregate.Mode.PARTIAL && o.getAggregate().getGroupKeysCount() == 0);
      boolean reducedThere = operators(consumer.getFragment(), Operator.OpCase.AGGREGATE).stream()
          .anyMatch(o -> o.getAggregate().getMode() == Aggregate.Mode.FINAL && o.getAggregate().getGroupKeysCount() == 0
              && o.getAggregate().getInput().getShuffleRead().getInputIndex() == e.getConsumerInputIndex());
      if (partial && reducedThere) {
        return true;
      }
    }
    return false;
  }

  @Test
  void tpchScalarSubQueriesAreReducedInTheJoinsStage() {
    for (int q : new int[] {11, 22}) {
      StageGraph graph = Planning.sf1Graph(TpchQueries.query(q));
      StageGraphs.assertWellFormed(graph);
      assertThat(finalOnlyStages(graph)).as("Q%d: stages of a FINAL step alone", q).isZero();
      assertThat(partialsBroadcastIntoTheJoinStage(graph)).as("Q%d: partials broadcast into the join's stage", q).isTrue();
      StageGraph unreplicated = new DistributedPlanner(Planning.SF1).plan(TpchQueries.query(q),
          Planning.SETTINGS.withReplicatedScanMaxBytes(0)).stageGraph();
      assertThat(finalOnlyStages(unreplicated)).as("Q%d: the FINAL step's stage when replication is off", q).isEqualTo(1);
    }
  }

  /** Q2's per-part minimum cost (a hash edge into one partition at SF 1) is reduced in the stage that joins it back. */
  @Test
  void aGroupedReductionOverOnePartitionIsReducedInTheJoinsStage() {
    StageGraph graph = Planning.sf1Graph(TpchQueries.query(2));
    StageGraphs.assertWellFormed(graph);
    assertThat(finalOnlyStages(graph)).isZero();
    assertThat(operators(graph, Operator.OpCase.AGGREGATE)).filteredOn(o -> o.getAggregate().getMode() == Aggregate.Mode.FINAL)
        .singleElement().satisfies(o -> assertThat(o.getAggregate().getGroupKeysCount()).isEqualTo(1));
    StageGraph unreplicated = new DistributedPlanner(Planning.SF1).plan(TpchQueries.query(2),
        Planning.SETTINGS.withReplicatedScanMaxBytes(0)).stageGraph();
    assertThat(finalOnlyStages(unreplicated)).isEqualTo(1);
  }

  @Test
  void aFloatingPointTotalKeepsItsStage() {
    // A sum of doubles could differ in its last bits with the order the partial sums arrive in.
    String sql = "select count(*) from lineitem where cast(l_quantity as double) > "
        + "(select avg(cast(l_quantity as double)) from lineitem where l_shipdate < date '1993-01-01')";
    StageGraph graph = Planning.sf1Graph(sql);
    StageGraphs.assertWellFormed(graph);
    assertThat(finalOnlyStages(graph)).isEqualTo(1);
    assertThat(partialsBroadcastIntoTheJoinStage(graph)).isFalse();
  }
}

package dev.squall.coordinator.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StageTopologyTest {
  private static Stage stage(int id, int tasks) {
    return Stage.newBuilder().setStageId(id).setTaskCount(tasks).build();
  }

  private static Edge edge(int from, int to, int input, Partitioning p) {
    return Edge.newBuilder().setProducerStageId(from).setConsumerStageId(to).setConsumerInputIndex(input).setPartitioning(p).build();
  }

  private static Partitioning hash(int n) {
    return Partitioning.newBuilder().setHash(Partitioning.Hash.newBuilder().addKeys(0).setPartitions(n)).build();
  }

  private static final Partitioning SINGLE = Partitioning.newBuilder().setSingle(Partitioning.Single.getDefaultInstance()).build();

  @Test
  void acceptsAggregationShape() {
    StageGraph g = StageGraph.newBuilder().addStages(stage(0, 3)).addStages(stage(1, 4)).addStages(stage(2, 1))
        .addEdges(edge(0, 1, 0, hash(4))).addEdges(edge(1, 2, 0, SINGLE)).setRootStageId(2).build();
    StageTopology t = new StageTopology(g, Map.of(0, 3, 1, 4, 2, 1));
    assertThat(t.inputsOf(1)).hasSize(1);
    assertThat(t.outputOf(2)).isNull();
    assertThat(t.outputOf(0).getConsumerStageId()).isEqualTo(1);
  }

  @Test
  void stagesWithMoreTasksOnTheirPathToTheRootComeFirst() {
    // Scan A (0, 2 tasks) joins the aggregate (4, 5 tasks) of scan B (1, 3 tasks) in stage 2 (4
    // tasks), gathered by the root (5). Tasks from each stage to the root: 0: 2+4+1 = 7,
    // 1: 3+5+4+1 = 13, 4: 10, 2: 5, 5: 1; so scan B starts before scan A when both are ready.
    StageGraph g = StageGraph.newBuilder().addStages(stage(0, 2)).addStages(stage(1, 3)).addStages(stage(4, 5))
        .addStages(stage(2, 4)).addStages(stage(5, 1))
        .addEdges(edge(0, 2, 0, hash(4))).addEdges(edge(1, 4, 0, hash(5))).addEdges(edge(4, 2, 1, hash(4)))
        .addEdges(edge(2, 5, 0, SINGLE)).setRootStageId(5).build();
    StageTopology t = new StageTopology(g, Map.of(0, 2, 1, 3, 4, 5, 2, 4, 5, 1));
    assertThat(t.criticalPathFirst()).extracting(Stage::getStageId).containsExactly(1, 4, 0, 2, 5);
  }

  @Test
  void aStageMayFeedSeveralConsumersThroughOnePartitioning() {
    // A view read twice: stage 0 feeds stages 1 (3 tasks on its path) and 2, both hash(2).
    StageGraph g = StageGraph.newBuilder().addStages(stage(0, 4)).addStages(stage(1, 2)).addStages(stage(2, 2))
        .addStages(stage(3, 1)).addStages(stage(4, 1))
        .addEdges(edge(0, 1, 0, hash(2))).addEdges(edge(0, 2, 0, hash(2))).addEdges(edge(1, 3, 0, SINGLE))
        .addEdges(edge(2, 4, 1, SINGLE)).addEdges(edge(3, 4, 0, SINGLE)).setRootStageId(4).build();
    StageTopology t = new StageTopology(g, Map.of(0, 4, 1, 2, 2, 2, 3, 1, 4, 1));
    assertThat(t.outputsOf(0)).extracting(Edge::getConsumerStageId).containsExactly(1, 2);
    assertThat(t.outputOf(0).getPartitioning()).isEqualTo(hash(2));
    // Its path to the root is its longest one: 4 + 2 + 1 + 1 through stage 1.
    assertThat(t.criticalPathFirst()).extracting(Stage::getStageId).containsExactly(0, 1, 2, 3, 4);
  }

  @Test
  void aStageMayFeedASingleAndABroadcastEdgeBothOfOnePartition() {
    Partitioning broadcast = Partitioning.newBuilder().setBroadcast(Partitioning.Broadcast.getDefaultInstance()).build();
    StageGraph g = StageGraph.newBuilder().addStages(stage(0, 4)).addStages(stage(1, 1)).addStages(stage(2, 3))
        .addEdges(edge(0, 1, 0, hash(1))).addEdges(edge(0, 2, 0, broadcast)).addEdges(edge(1, 2, 1, broadcast))
        .setRootStageId(2).build();
    assertThat(new StageTopology(g, Map.of(0, 4, 1, 1, 2, 3)).outputsOf(0)).hasSize(2);
  }

  @Test
  void refusesAStageFeedingConsumersThroughDifferentPartitionings() {
    StageGraph g = StageGraph.newBuilder().addStages(stage(0, 4)).addStages(stage(1, 2)).addStages(stage(2, 1))
        .addEdges(edge(0, 1, 0, hash(2))).addEdges(edge(0, 2, 0, SINGLE)).addEdges(edge(1, 2, 1, SINGLE))
        .setRootStageId(2).build();
    assertThatThrownBy(() -> new StageTopology(g, Map.of(0, 4, 1, 2, 2, 1)))
        .hasMessageContaining("stage 0 feeds more than one consumer through different partitionings");
  }

  @Test
  void refusesHashEdgeWhosePartitionsDifferFromConsumerTasks() {
    StageGraph g = StageGraph.newBuilder().addStages(stage(0, 3)).addStages(stage(1, 4))
        .addEdges(edge(0, 1, 0, hash(8))).setRootStageId(1).build();
    assertThatThrownBy(() -> new StageTopology(g, Map.of(0, 3, 1, 4)))
        .hasMessageContaining("hash edge 0 -> 1 has 8 partitions but stage 1 has 4 tasks");
  }

  private static Stage combiner(int id, int tasks) {
    return stage(id, tasks).toBuilder().setFragment(dev.squall.proto.v1.Operator.newBuilder()
        .setShuffleCombine(dev.squall.proto.v1.ShuffleCombine.getDefaultInstance())).build();
  }

  @Test
  void acceptsACombinerThatGroupsItsProducersTasks() {
    // 10 map tasks in groups of 4: 3 combiner tasks, then 5 partitions.
    StageGraph g = StageGraph.newBuilder().addStages(stage(0, 10)).addStages(combiner(2, 3)).addStages(stage(1, 5))
        .addEdges(edge(0, 2, 0, hash(5)).toBuilder().setCombineGroup(4)).addEdges(edge(2, 1, 0, hash(5)))
        .setRootStageId(1).build();
    StageTopology t = new StageTopology(g, Map.of(0, 10, 2, 3, 1, 5));
    assertThat(t.outputOf(0).getConsumerStageId()).isEqualTo(2);
  }

  @Test
  void refusesACombinerWhoseTasksDoNotMatchItsGroups() {
    StageGraph g = StageGraph.newBuilder().addStages(stage(0, 10)).addStages(combiner(2, 2)).addStages(stage(1, 5))
        .addEdges(edge(0, 2, 0, hash(5)).toBuilder().setCombineGroup(4)).addEdges(edge(2, 1, 0, hash(5)))
        .setRootStageId(1).build();
    assertThatThrownBy(() -> new StageTopology(g, Map.of(0, 10, 2, 2, 1, 5)))
        .hasMessageContaining("combining edge 0 -> 2 groups 10 tasks by 4 into 2 combiner tasks");
  }

  @Test
  void acceptsCoalescedGroupsCoveringTheHashPartitionsInOrderAndRefusesOthers() {
    StageGraph.Builder g = StageGraph.newBuilder().addStages(stage(0, 3)).addEdges(edge(0, 1, 0, hash(8)))
        .setRootStageId(1);
    StageGraph ok = g.clone().addStages(stage(1, 8).toBuilder().addAllPartitionGroupStarts(java.util.List.of(0, 5)))
        .build();
    assertThat(new StageTopology(ok, Map.of(0, 3, 1, 2)).inputsOf(1)).hasSize(1);
    StageGraph beyond = g.clone().addStages(stage(1, 8).toBuilder().addAllPartitionGroupStarts(java.util.List.of(0,
        8))).build();
    assertThatThrownBy(() -> new StageTopology(beyond, Map.of(0, 3, 1, 2))).hasMessageContaining(
        "partition groups are not ascending from 0");
    StageGraph notFromZero = g.clone().addStages(stage(1, 8).toBuilder().addAllPartitionGroupStarts(
        java.util.List.of(1, 5))).build();
    assertThatThrownBy(() -> new StageTopology(notFromZero, Map.of(0, 3, 1, 2))).hasMessageContaining(
        "partition groups are not ascending from 0");
    assertThatThrownBy(() -> new StageTopology(ok, Map.of(0, 3, 1, 3))).hasMessageContaining(
        "stage 1 has 2 partition groups but 3 tasks");
  }

  @Test
  void refusesSingleEdgeIntoManyTasks() {
    StageGraph g = StageGraph.newBuilder().addStages(stage(0, 3)).addStages(stage(1, 2))
        .addEdges(edge(0, 1, 0, SINGLE)).setRootStageId(1).build();
    assertThatThrownBy(() -> new StageTopology(g, Map.of(0, 3, 1, 2))).hasMessageContaining("single edge 0 -> 1");
  }

  @Test
  void refusesConsumerListedBeforeProducer() {
    StageGraph g = StageGraph.newBuilder().addStages(stage(1, 1)).addStages(stage(0, 1))
        .addEdges(edge(0, 1, 0, SINGLE)).setRootStageId(1).build();
    assertThatThrownBy(() -> new StageTopology(g, Map.of(0, 1, 1, 1))).hasMessageContaining("listed after its consumer");
  }

  @Test
  void refusesDanglingStage() {
    StageGraph g = StageGraph.newBuilder().addStages(stage(0, 1)).addStages(stage(1, 1)).setRootStageId(1).build();
    assertThatThrownBy(() -> new StageTopology(g, Map.of(0, 1, 1, 1))).hasMessageContaining("stage 0 feeds no consumer");
  }

  @Test
  void refusesMissingRoot() {
    StageGraph g = StageGraph.newBuilder().addStages(stage(0, 1)).setRootStageId(5).build();
    assertThatThrownBy(() -> new StageTopology(g, Map.of(0, 1))).hasMessageContaining("root stage 5");
  }
}

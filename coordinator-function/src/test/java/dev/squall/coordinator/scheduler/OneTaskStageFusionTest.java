package dev.squall.coordinator.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.Estimates;
import dev.squall.proto.v1.Filter;
import dev.squall.proto.v1.HashJoin;
import dev.squall.proto.v1.Limit;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.RuntimeFilter;
import dev.squall.proto.v1.Scan;
import dev.squall.proto.v1.ShuffleRead;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OneTaskStageFusionTest {
  private static final Partitioning SINGLE =
      Partitioning.newBuilder().setSingle(Partitioning.Single.getDefaultInstance()).build();
  private static final Partitioning BROADCAST =
      Partitioning.newBuilder().setBroadcast(Partitioning.Broadcast.getDefaultInstance()).build();

  private static Operator scan(int input) {
    return Operator.newBuilder().setScan(Scan.newBuilder().setInputIndex(input)).build();
  }

  private static Operator read(int input) {
    return Operator.newBuilder().setShuffleRead(ShuffleRead.newBuilder().setInputIndex(input)).build();
  }

  private static Operator limit(Operator input, long n) {
    return Operator.newBuilder().setLimit(Limit.newBuilder().setInput(input).setLimit(n)).build();
  }

  private static Operator filter(Operator input) {
    return Operator.newBuilder().setFilter(Filter.newBuilder().setInput(input)).build();
  }

  private static Operator join(Operator left, Operator right) {
    return Operator.newBuilder().setHashJoin(HashJoin.newBuilder().setLeft(left).setRight(right)).build();
  }

  private static Stage stage(int id, int tasks, Operator fragment) {
    return Stage.newBuilder().setStageId(id).setTaskCount(tasks).setFragment(fragment)
        .setEstimates(Estimates.newBuilder().setRows(100L * (id + 1))).build();
  }

  private static Edge edge(int from, int to, int input, Partitioning p) {
    return Edge.newBuilder().setProducerStageId(from).setConsumerStageId(to).setConsumerInputIndex(input)
        .setPartitioning(p).build();
  }

  @Test
  void aChainOfOneTaskStagesBecomesOneStageUnderTheFirstStagesId() {
    // Scan (0) -> filter (1) -> limit at the root (2), one task each.
    StageGraph g = StageGraph.newBuilder()
        .addStages(stage(0, 1, filter(scan(0))))
        .addStages(stage(1, 1, filter(read(0))))
        .addStages(stage(2, 1, limit(read(0), 5)))
        .addEdges(edge(0, 1, 0, SINGLE)).addEdges(edge(1, 2, 0, SINGLE)).setRootStageId(2).build();

    StageGraph fused = OneTaskStageFusion.apply(g);

    assertThat(fused.getStagesList()).extracting(Stage::getStageId).containsExactly(0);
    assertThat(fused.getEdgesList()).isEmpty();
    assertThat(fused.getRootStageId()).isZero();
    Stage only = fused.getStages(0);
    assertThat(only.getFragment()).isEqualTo(limit(filter(filter(scan(0))), 5));
    assertThat(only.getEstimates().getRows()).as("the root's estimates").isEqualTo(300);
    assertThat(only.getScanEstimates().getRows()).as("what the scan hands on: stage 0's output").isEqualTo(100);
    new StageTopology(fused, Map.of(0, 1)); // a graph the scheduler accepts
  }

  @Test
  void theFusedStageFeedsWhatTheConsumerFedAndBuildsItsRuntimeFilters() {
    // Stage 0 (1 task) -> stage 1 (1 task) -broadcast-> stage 2 (4 tasks, scans a table), which a
    // runtime filter built from stage 1's output probes.
    StageGraph g = StageGraph.newBuilder()
        .addStages(stage(0, 1, scan(0)))
        .addStages(stage(1, 1, filter(read(0))))
        .addStages(stage(2, 4, join(scan(0), read(1))))
        .addEdges(edge(0, 1, 0, SINGLE)).addEdges(edge(1, 2, 1, BROADCAST))
        .addRuntimeFilters(RuntimeFilter.newBuilder().setFilterId(0).setBuildStageId(1).setProbeStageId(2))
        .setRootStageId(2).build();

    StageGraph fused = OneTaskStageFusion.apply(g);

    assertThat(fused.getStagesList()).extracting(Stage::getStageId).containsExactly(0, 2);
    assertThat(fused.getEdgesList()).containsExactly(edge(0, 2, 1, BROADCAST));
    assertThat(fused.getRuntimeFilters(0).getBuildStageId()).isZero();
    assertThat(fused.getStages(0).getFragment()).isEqualTo(filter(scan(0)));
    new StageTopology(fused, Map.of(0, 1, 2, 4));
  }

  @Test
  void stagesStayApartWhereFusingWouldLoseParallelismOrAnInput() {
    // Two one-task producers of one consumer: fused, they would run one after the other.
    StageGraph twoInputs = StageGraph.newBuilder()
        .addStages(stage(0, 1, scan(0))).addStages(stage(1, 1, scan(0)))
        .addStages(stage(2, 1, join(read(0), read(1))))
        .addEdges(edge(0, 2, 0, SINGLE)).addEdges(edge(1, 2, 1, BROADCAST)).setRootStageId(2).build();
    assertThat(OneTaskStageFusion.apply(twoInputs)).isEqualTo(twoInputs);

    // A producer with more than one task.
    StageGraph manyTasks = StageGraph.newBuilder()
        .addStages(stage(0, 3, scan(0))).addStages(stage(1, 1, filter(read(0))))
        .addEdges(edge(0, 1, 0, SINGLE)).setRootStageId(1).build();
    assertThat(OneTaskStageFusion.apply(manyTasks)).isEqualTo(manyTasks);

    // A consumer that scans a table of its own beside the producer's output.
    StageGraph consumerScans = StageGraph.newBuilder()
        .addStages(stage(0, 1, scan(0))).addStages(stage(1, 1, join(scan(0), read(1))))
        .addEdges(edge(0, 1, 1, BROADCAST)).setRootStageId(1).build();
    assertThat(OneTaskStageFusion.apply(consumerScans)).isEqualTo(consumerScans);

    // A producer whose output a runtime filter summarises: its columns must stay a stage output.
    StageGraph summarised = StageGraph.newBuilder()
        .addStages(stage(0, 1, scan(0))).addStages(stage(1, 1, filter(read(0))))
        .addStages(stage(2, 4, join(scan(0), read(1))))
        .addEdges(edge(0, 1, 0, SINGLE)).addEdges(edge(1, 2, 1, BROADCAST))
        .addRuntimeFilters(RuntimeFilter.newBuilder().setFilterId(0).setBuildStageId(0).setProbeStageId(2))
        .setRootStageId(2).build();
    assertThat(OneTaskStageFusion.apply(summarised)).isEqualTo(summarised);
  }
}

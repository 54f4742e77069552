package dev.squall.planner.stage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.planner.explain.ExplainRenderer;
import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.Estimates;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.ShuffleRead;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import org.junit.jupiter.api.Test;

class CombiningExchangesTest {
  private static final CombiningExchanges.Settings AUTO = CombiningExchanges.Settings.auto(1L << 30);

  /** Stage 0 (maps tasks) hash-partitions into stage 1 (partitions tasks), the root. */
  private static StageGraph graph(int maps, int partitions, long bytes) {
    Operator read = Operator.newBuilder().setShuffleRead(ShuffleRead.newBuilder().setInputIndex(0)).build();
    return StageGraph.newBuilder()
        .addStages(Stage.newBuilder().setStageId(0).setTaskCount(maps).setFragment(Operator.getDefaultInstance())
            .setEstimates(Estimates.newBuilder().setBytes(bytes)))
        .addStages(Stage.newBuilder().setStageId(1).setTaskCount(partitions).setFragment(read))
        .addEdges(Edge.newBuilder().setProducerStageId(0).setConsumerStageId(1).setPartitioning(Partitioning.newBuilder()
            .setHash(Partitioning.Hash.newBuilder().addKeys(0).setPartitions(partitions))))
        .setRootStageId(1)
        .build();
  }

  @Test
  void twoHundredMapsIntoTwoHundredPartitionsAreCombinedInGroupsOfTwiceTheRootOfR() {
    StageGraph combined = CombiningExchanges.apply(graph(200, 200, 0), AUTO);
    assertThat(combined.getStagesList()).extracting(Stage::getStageId).containsExactly(0, 2, 1);
    Stage combiner = combined.getStages(1);
    int group = (int) Math.ceil(2 * Math.sqrt(200)); // 29
    assertThat(combiner.getTaskCount()).isEqualTo((200 + group - 1) / group);
    assertThat(combiner.getFragment().hasShuffleCombine()).isTrue();
    assertThat(combined.getEdgesList()).satisfiesExactly(
        e -> {
          assertThat(e.getProducerStageId()).isEqualTo(0);
          assertThat(e.getConsumerStageId()).isEqualTo(2);
          assertThat(e.getCombineGroup()).isEqualTo(group);
          assertThat(e.getPartitioning().getHash().getPartitions()).isEqualTo(200);
        },
        e -> {
          assertThat(e.getProducerStageId()).isEqualTo(2);
          assertThat(e.getConsumerStageId()).isEqualTo(1);
          assertThat(e.getCombineGroup()).isZero();
        });
    long m = 200;
    long r = 200;
    assertThat(CombiningExchanges.combinedRequests(m, r, group)).isLessThanOrEqualTo((long) (m * Math.sqrt(r)));
    assertThat(ExplainRenderer.text(combined)).contains("ShuffleCombine input=0 <- stage 0 hash([0], partitions=200), "
        + group + " map outputs per task").contains("stage 0 -> stage 2 input 0: hash([0], partitions=200) combined in groups of " + group);
    assertThat(CombiningExchanges.apply(combined, AUTO)).as("applied once").isSameAs(combined);
  }

  @Test
  void smallExchangesStayDirectUnlessForcedAndOffTurnsItOff() {
    StageGraph small = graph(10, 20, 0);
    assertThat(CombiningExchanges.apply(small, AUTO)).isSameAs(small);
    assertThat(CombiningExchanges.apply(small, AUTO.withMode(CombiningExchanges.Mode.ON)).getStagesCount()).isEqualTo(3);
    StageGraph large = graph(200, 200, 0);
    assertThat(CombiningExchanges.apply(large, AUTO.withMode(CombiningExchanges.Mode.OFF))).isSameAs(large);
  }

  @Test
  void groupsShrinkToWhatFitsTheMemoryOfACombiner() {
    // 1 MiB per map output, 8 MiB per combiner: groups of 8, not 29.
    CombiningExchanges.Settings settings = CombiningExchanges.Settings.auto(8L << 20);
    assertThat(CombiningExchanges.groupFor(200, 200, 200L << 20, settings)).isEqualTo(8);
    // Map outputs larger than a combiner may hold: no combining.
    assertThat(CombiningExchanges.groupFor(200, 200, 2000L << 20, settings)).isZero();
  }

  @Test
  void modesParseInAnyCase() {
    assertThat(CombiningExchanges.Mode.parse(" On ")).isEqualTo(CombiningExchanges.Mode.ON);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> CombiningExchanges.Mode.parse("sometimes"))
        .hasMessageContaining("auto, on, off");
  }
}

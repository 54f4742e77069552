package dev.squall.planner.stage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.proto.v1.Field;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Scan;
import dev.squall.proto.v1.Schema;
import dev.squall.proto.v1.StageGraph;
import dev.squall.proto.v1.UnionAll;
import java.util.List;
import org.junit.jupiter.api.Test;

class StageGraphBuilderTest {
  private static Operator scan(String table) {
    return Operator.newBuilder()
        .setOutputSchema(Schema.newBuilder().addFields(Field.newBuilder().setName("x")))
        .setScan(Scan.newBuilder().setInputIndex(0).setTable(table))
        .build();
  }

  @Test
  void exchangeClosesTheProducerAndAddsAnIndexedInputToTheConsumer() {
    StageGraphBuilder graph = new StageGraphBuilder();
    StageDraft consumer = StageDraft.intermediate(4, Distribution.ANY);
    StageDraft a = StageDraft.leaf(2);
    a.addScan("t.a");
    a.setRoot(scan("t.a"));
    StageDraft b = StageDraft.leaf(3);
    b.addScan("t.b");
    b.setRoot(scan("t.b"));
    Operator readA = graph.exchange(a, Partitionings.hash(List.of(0), 4), consumer);
    Operator readB = graph.exchange(b, Partitionings.broadcast(), consumer);
    assertThat(readA.getShuffleRead().getInputIndex()).isZero();
    assertThat(readB.getShuffleRead().getInputIndex()).isEqualTo(1);
    assertThat(readA.getOutputSchema()).isEqualTo(a.root().getOutputSchema());
    consumer.setRoot(Operator.newBuilder().setUnionAll(UnionAll.newBuilder().addInputs(readA).addInputs(readB)).build());
    graph.recordSnapshot("t.a", 42);
    StageGraph built = graph.build(consumer);

    assertThat(built.getStagesList()).extracting(s -> s.getStageId()).containsExactly(0, 1, 2);
    assertThat(built.getRootStageId()).isEqualTo(2);
    assertThat(built.getStages(0).getTaskCount()).isEqualTo(2);
    assertThat(built.getStages(2).getTaskCount()).isEqualTo(4);
    assertThat(built.getEdgesList()).extracting(e -> e.getProducerStageId() + "->" + e.getConsumerStageId() + "#" + e.getConsumerInputIndex())
        .containsExactly("0->2#0", "1->2#1");
    assertThat(built.getTableSnapshotIdsMap()).containsEntry("t.a", 42L).doesNotContainKey("t.b");
  }

  private static StageDraft scanOf(String table, int tasks) {
    StageDraft d = StageDraft.leaf(tasks);
    d.addScan(table);
    d.setRoot(scan(table));
    return d;
  }

  @Test
  void aProducerEqualToAClosedStageIsReadFromItWhenItsOutputIsLaidOutAlike() {
    StageGraphBuilder graph = new StageGraphBuilder();
    StageDraft first = StageDraft.intermediate(1, Distribution.SINGLE);
    StageDraft second = StageDraft.intermediate(1, Distribution.SINGLE);
    StageDraft third = StageDraft.intermediate(4, Distribution.ANY);
    graph.exchange(scanOf("t.a", 2), Partitionings.hash(List.of(0), 1), first);
    // One partition either way: the stage's one output serves the broadcast read too.
    graph.exchange(scanOf("t.a", 2), Partitionings.broadcast(), second);
    assertThat(graph.lastProducerId()).isZero();
    assertThat(graph.isShared(0)).isTrue();
    // Four hash partitions are another output: a stage of its own.
    graph.exchange(scanOf("t.a", 2), Partitionings.hash(List.of(0), 4), third);
    assertThat(graph.lastProducerId()).isEqualTo(1);
    // Another table: another stage.
    graph.exchange(scanOf("t.b", 2), Partitionings.broadcast(), second);
    assertThat(graph.lastProducerId()).isEqualTo(2);
    assertThat(graph.isShared(1)).isFalse();
  }
}

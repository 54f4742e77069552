package dev.squall.planner.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Reading and checking stage graphs in tests. */
public final class StageGraphs {
  private StageGraphs() {}

  /** Number of edges of each partitioning kind, e.g. {HASH=2, SINGLE=1}. */
  public static Map<Partitioning.KindCase, Integer> edgeKinds(StageGraph graph) {
    Map<Partitioning.KindCase, Integer> counts = new HashMap<>();
    for (Edge edge : graph.getEdgesList()) {
      counts.merge(edge.getPartitioning().getKindCase(), 1, Integer::sum);
    }
    return counts;
  }

  public static Stage stage(StageGraph graph, int id) {
    return graph.getStagesList().stream().filter(s -> s.getStageId() == id).findFirst().orElseThrow();
  }

  public static Stage root(StageGraph graph) {
    return stage(graph, graph.getRootStageId());
  }

  /** Every operator of a fragment, pre-order. */
  public static List<Operator> operators(Operator root) {
    List<Operator> out = new ArrayList<>();
    walk(root, out);
    return out;
  }

  /** Operators of one kind in a fragment, pre-order. */
  public static List<Operator> operators(Operator root, Operator.OpCase kind) {
    return operators(root).stream().filter(o -> o.getOpCase() == kind).toList();
  }

  /** Operators of one kind in the whole graph. */
  public static List<Operator> operators(StageGraph graph, Operator.OpCase kind) {
    List<Operator> out = new ArrayList<>();
    for (Stage s : graph.getStagesList()) {
      out.addAll(operators(s.getFragment(), kind));
    }
    return out;
  }

  /** Stages whose fragment scans the table. */
  public static List<Stage> stagesScanning(StageGraph graph, String table) {
    return graph.getStagesList().stream()
        .filter(s -> operators(s.getFragment(), Operator.OpCase.SCAN).stream()
            .anyMatch(o -> o.getScan().getTable().equals(table)))
        .toList();
  }

  /** Edges into a stage. */
  public static List<Edge> edgesInto(StageGraph graph, int stageId) {
    return graph.getEdgesList().stream().filter(e -> e.getConsumerStageId() == stageId).toList();
  }

  /**
   * Asserts the conventions of stages.proto: producers listed before consumers; every non-root
   * stage feeds exactly one edge and the root none; every ShuffleRead input has exactly one edge
   * and every Scan input none; hash partitions equal the consumer's task count; single edges feed
   * one-task consumers; output schemas match fragment roots.
   */
  public static void assertWellFormed(StageGraph graph) {
    Set<Integer> seen = new HashSet<>();
    Map<Integer, Integer> produced = new HashMap<>();
    for (Edge e : graph.getEdgesList()) {
      produced.merge(e.getProducerStageId(), 1, Integer::sum);
    }
    for (Stage stage : graph.getStagesList()) {
      for (Edge e : edgesInto(graph, stage.getStageId())) {
        assertThat(seen).as("producer %s listed before consumer %s", e.getProducerStageId(), stage.getStageId())
            .contains(e.getProducerStageId());
        switch (e.getPartitioning().getKindCase()) {
          case HASH -> assertThat(e.getPartitioning().getHash().getPartitions()).isEqualTo(stage.getTaskCount());
          case SINGLE -> assertThat(stage.getTaskCount()).isEqualTo(1);
          default -> { }
        }
      }
      seen.add(stage.getStageId());
      assertThat(stage.getTaskCount()).isPositive();
      assertThat(stage.getOutputSchema()).isEqualTo(stage.getFragment().getOutputSchema());
      if (stage.getStageId() == graph.getRootStageId()) {
        assertThat(produced).doesNotContainKey(stage.getStageId());
      } else {
        assertThat(produced.get(stage.getStageId())).as("edges out of stage %s", stage.getStageId()).isPositive();
        // A stage read by several consumers (a subquery held twice) serves them one output.
        List<Edge> out = graph.getEdgesList().stream().filter(e -> e.getProducerStageId() == stage.getStageId()).toList();
        assertThat(out).as("edges out of stage %s lay its output out alike", stage.getStageId())
            .allMatch(e -> dev.squall.proto.PartitionLayouts.sameOutput(e.getPartitioning(), out.get(0).getPartitioning()));
      }
      Map<Integer, Integer> shuffleInputs = new HashMap<>();
      Set<Integer> scanInputs = new HashSet<>();
      for (Operator op : operators(stage.getFragment())) {
        if (op.hasShuffleRead()) {
          shuffleInputs.merge(op.getShuffleRead().getInputIndex(), 1, Integer::sum);
        }
        if (op.hasScan()) {
          scanInputs.add(op.getScan().getInputIndex());
        }
      }
      Set<Integer> edgeInputs = new HashSet<>();
      for (Edge e : edgesInto(graph, stage.getStageId())) {
        assertThat(edgeInputs.add(e.getConsumerInputIndex())).as("one edge per input").isTrue();
      }
      assertThat(edgeInputs).isEqualTo(shuffleInputs.keySet());
      assertThat(shuffleInputs.values()).allMatch(n -> n == 1);
      assertThat(scanInputs.stream().filter(edgeInputs::contains)).isEmpty();
    }
    assertThat(seen).contains(graph.getRootStageId());
  }

  private static void walk(Operator op, List<Operator> out) {
    out.add(op);
    switch (op.getOpCase()) {
      case FILTER -> walk(op.getFilter().getInput(), out);
      case PROJECT -> walk(op.getProject().getInput(), out);
      case AGGREGATE -> walk(op.getAggregate().getInput(), out);
      case HASH_JOIN -> {
        walk(op.getHashJoin().getLeft(), out);
        walk(op.getHashJoin().getRight(), out);
      }
      case NESTED_LOOP_JOIN -> {
        walk(op.getNestedLoopJoin().getLeft(), out);
        walk(op.getNestedLoopJoin().getRight(), out);
      }
      case SORT -> walk(op.getSort().getInput(), out);
      case TOP_N -> walk(op.getTopN().getInput(), out);
      case LIMIT -> walk(op.getLimit().getInput(), out);
      case WINDOW -> walk(op.getWindow().getInput(), out);
      case UNION_ALL -> op.getUnionAll().getInputsList().forEach(i -> walk(i, out));
      default -> { }
    }
  }
}

package dev.squall.coordinator.scheduler;

import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.RuntimeFilter;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a one-task stage inside the one-task stage it reads, once split planning has fixed how many
 * tasks each leaf stage has. A consumer C whose only input is the whole output of a producer P,
 * where both have one task, waits for P and then reads P's one map output back from S3: a task
 * invocation, a shuffle object's PUT and GET, and the scheduling gap between the two stages, for
 * no parallelism. TPC-H's final stages (a sort or an aggregate over one task's rows: Q2, Q10,
 * Q13, Q15, Q16, Q19, Q20 and Q22 at SF 1) are such consumers.
 *
 * <p>The fused stage keeps P's id (so P's scan splits and the runtime filters that probe P stay
 * valid), and has C's fragment with C's ShuffleRead of P replaced by P's fragment, C's output
 * schema and estimates (P's output stays as what its scans hand on, {@code scan_estimates}), and
 * C's place in the graph: C's output edge (or the root) starts from it.
 * Runtime filters built from C's output are built from the fused stage.
 *
 * <p>Left apart: a producer whose output a runtime filter summarises (its columns are no longer a
 * stage output) or another stage reads too; a consumer with another input (fused, two producers
 * would run one after the other) or a scan, or that reads the producer twice; a combining edge or
 * combiner stage; and consumers whose partitions were coalesced or split.
 */
public final class OneTaskStageFusion {
  private OneTaskStageFusion() {}

  /**
   * The graph with every fusable producer-consumer pair fused, repeatedly (a chain of one-task
   * stages becomes one stage); {@code graph} itself when nothing fuses. Task counts must be final:
   * leaf stages' from split planning.
   */
  public static StageGraph apply(StageGraph graph) {
    StageGraph fused = graph;
    for (Edge e = fusable(fused); e != null; e = fusable(fused)) {
      fused = fuse(fused, e);
    }
    return fused;
  }

  /** The first edge whose producer and consumer can run as one task, or null. */
  private static Edge fusable(StageGraph graph) {
    for (Edge e : graph.getEdgesList()) {
      Stage producer = stage(graph, e.getProducerStageId());
      Stage consumer = stage(graph, e.getConsumerStageId());
      boolean single = producer.getTaskCount() == 1 && consumer.getTaskCount() == 1 && e.getCombineGroup() == 0;
      if (!single || inputCount(graph, consumer.getStageId()) != 1 || outputCount(graph, producer.getStageId()) != 1
          || producer.getFragment().hasShuffleCombine()
          || consumer.getPartitionGroupStartsCount() > 0 || consumer.getSkewSplitsCount() > 0
          || consumer.hasBroadcastSwitch() || producer.hasBroadcastSwitch()) {
        continue;
      }
      boolean summarised = graph.getRuntimeFiltersList().stream()
          .anyMatch(f -> f.getBuildStageId() == producer.getStageId());
      if (!summarised && readsOnlyOnce(consumer.getFragment(), e.getConsumerInputIndex())) {
        return e;
      }
    }
    return null;
  }

  /** Whether the fragment has no scan and exactly one ShuffleRead, of {@code input}. */
  private static boolean readsOnlyOnce(Operator fragment, int input) {
    int[] reads = {0};
    boolean[] other = {false};
    Fragments.replace(fragment, o -> {
      if (o.hasShuffleRead() && o.getShuffleRead().getInputIndex() == input) {
        reads[0]++;
      } else if (o.hasScan() || o.hasShuffleRead() || o.hasShuffleCombine()) {
        other[0] = true;
      }
      return o;
    });
    return reads[0] == 1 && !other[0];
  }

  private static StageGraph fuse(StageGraph graph, Edge edge) {
    int p = edge.getProducerStageId();
    int c = edge.getConsumerStageId();
    Stage producer = stage(graph, p);
    Stage consumer = stage(graph, c);
    Operator fragment = Fragments.replace(consumer.getFragment(),
        o -> o.hasShuffleRead() && o.getShuffleRead().getInputIndex() == edge.getConsumerInputIndex()
            ? producer.getFragment() : o);
    Stage.Builder merged = producer.toBuilder().setFragment(fragment).setOutputSchema(consumer.getOutputSchema())
        .setEstimates(consumer.getEstimates());
    if (!producer.hasScanEstimates()) {
      // What the scans hand on stays the producer's output (for StageMemoryEstimate).
      merged.setScanEstimates(producer.getEstimates());
    }
    StageGraph.Builder b = graph.toBuilder().clearStages().clearEdges().clearRuntimeFilters();
    for (Stage s : graph.getStagesList()) {
      // In the consumer's place: it reads what the producer read and feeds what the consumer fed,
      // so the producers-first order still holds.
      if (s.getStageId() == c) {
        b.addStages(merged.build());
      } else if (s.getStageId() != p) {
        b.addStages(s);
      }
    }
    for (Edge e : graph.getEdgesList()) {
      if (e.equals(edge)) {
        continue;
      }
      b.addEdges(e.getProducerStageId() == c ? e.toBuilder().setProducerStageId(p).build() : e);
    }
    List<RuntimeFilter> filters = new ArrayList<>();
    for (RuntimeFilter f : graph.getRuntimeFiltersList()) {
      filters.add(f.getBuildStageId() == c ? f.toBuilder().setBuildStageId(p).build() : f);
    }
    b.addAllRuntimeFilters(filters);
    if (graph.getRootStageId() == c) {
      b.setRootStageId(p);
    }
    return b.build();
  }

  private static int inputCount(StageGraph graph, int stageId) {
    return (int) graph.getEdgesList().stream().filter(e -> e.getConsumerStageId() == stageId).count();
  }

  private static int outputCount(StageGraph graph, int stageId) {
    return (int) graph.getEdgesList().stream().filter(e -> e.getProducerStageId() == stageId).count();
  }

  private static Stage stage(StageGraph graph, int id) {
    for (Stage s : graph.getStagesList()) {
      if (s.getStageId() == id) {
        return s;
      }
    }
    throw new IllegalArgumentException("stage graph has no stage " + id);
  }
}

package dev.squall.planner.stage;

import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.ShuffleCombine;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Turns large hash and range exchanges into combining exchanges: a combiner stage between the
 * producer (M tasks) and the consumer (R partitions) whose task c reads the whole outputs of map
 * tasks {@code [c·g, (c+1)·g)} (one GET each) and writes one object with the group's ranges of each
 * partition back to back, so that each reduce task reads ⌈M/g⌉ ranges instead of M.
 *
 * <p>Request model (S3 bills PUTs and GETs per request; every request also costs a round trip):
 * a direct exchange costs at most {@code M + M·R} requests (one PUT per map task, one ranged GET per
 * map task and partition); a combining one {@code 2M + ⌈M/g⌉·(R + 1)} (map PUTs, combiner GETs and
 * PUTs, reducer GETs). The group is {@code g = ⌈2√R⌉}, so that reducers send about {@code M·√R / 2}
 * GETs and the whole edge about {@code 2M + M·√R / 2}; at most M, and at most as many map outputs as
 * fit {@code maxGroupBytes} by the producer's estimated bytes (a combiner holds its group in memory).
 * In {@link Mode#AUTO} an edge is combined when its direct cost reaches {@code minRequests} and
 * combining at least halves it (the combiner stage adds a stage's latency, worth it only for many
 * requests); {@link Mode#ON} combines every hash and range edge with a group of at least 2;
 * {@link Mode#OFF} none.
 */
public final class CombiningExchanges {
  /** When edges are combined. */
  public enum Mode {
    AUTO, ON, OFF;

    /**
     * Parses {@code auto}, {@code on} or {@code off} (any case).
     *
     * @throws IllegalArgumentException for anything else
     */
    public static Mode parse(String value) {
      try {
        return valueOf(value.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("'" + value + "' is not one of auto, on, off");
      }
    }
  }

  /**
   * @param mode when edges are combined
   * @param minRequests in AUTO, the direct exchange's request count ({@code M + M·R}) from which an
   *     edge is combined
   * @param maxGroupBytes most estimated bytes of map output one combiner task holds
   */
  public record Settings(Mode mode, long minRequests, long maxGroupBytes) {
    /**
     * The default of {@code minRequests}: 20,000 requests, e.g. 100 maps into 200 partitions. Below it
     * the reduce tasks' GETs (8 in flight each) take about as long as the combiner stage would add.
     */
    public static final long DEFAULT_MIN_REQUESTS = 20_000;

    public Settings {
      Objects.requireNonNull(mode, "mode");
      if (minRequests < 0 || maxGroupBytes < 1) {
        throw new IllegalArgumentException("Invalid shuffle combining settings: min requests " + minRequests
            + ", max group bytes " + maxGroupBytes);
      }
    }

    /** AUTO from {@value #DEFAULT_MIN_REQUESTS} requests, groups of at most {@code maxGroupBytes}. */
    public static Settings auto(long maxGroupBytes) {
      return new Settings(Mode.AUTO, DEFAULT_MIN_REQUESTS, maxGroupBytes);
    }

    public Settings withMode(Mode m) {
      return new Settings(m, minRequests, maxGroupBytes);
    }
  }

  private CombiningExchanges() {}

  /** S3 requests of a direct exchange: {@code M} PUTs and at most {@code M·R} GETs. */
  public static long directRequests(long maps, long partitions) {
    return maps + maps * partitions;
  }

  /** S3 requests of a combining exchange with groups of {@code group}: {@code 2M + ⌈M/g⌉·(R + 1)}. */
  public static long combinedRequests(long maps, long partitions, long group) {
    long combiners = (maps + group - 1) / group;
    return 2 * maps + combiners * (partitions + 1);
  }

  /**
   * The group size for an edge, or 0 when it is not combined.
   *
   * @param maps the producer's task count M
   * @param partitions the edge's partition count R
   * @param producerBytes the producer's estimated output bytes (0 when unknown)
   */
  public static int groupFor(int maps, int partitions, long producerBytes, Settings settings) {
    if (settings.mode() == Mode.OFF || maps < 2 || partitions < 1) {
      return 0;
    }
    long group = Math.min(maps, (long) Math.ceil(2 * Math.sqrt(partitions)));
    if (producerBytes > 0) {
      double perMap = (double) producerBytes / maps;
      group = Math.min(group, (long) Math.floor(settings.maxGroupBytes() / Math.max(1.0, perMap)));
    }
    if (group < 2) {
      return 0;
    }
    if (settings.mode() == Mode.ON) {
      return (int) group;
    }
    long direct = directRequests(maps, partitions);
    boolean worth = direct >= settings.minRequests() && 2 * combinedRequests(maps, partitions, group) <= direct;
    return worth ? (int) group : 0;
  }

  /**
   * The graph with a combiner stage inserted into each edge that {@link #groupFor} combines. Task
   * counts are the stages' {@code task_count} (for leaf stages, the split count once splits are
   * applied). New stages take ids above every existing one and are listed right after their
   * producer; a graph that already has combiners is returned unchanged, and so are the edges of a
   * stage that feeds more than one consumer.
   */
  public static StageGraph apply(StageGraph graph, Settings settings) {
    Map<Integer, Stage> stages = new HashMap<>();
    int nextId = 0;
    for (Stage s : graph.getStagesList()) {
      stages.put(s.getStageId(), s);
      nextId = Math.max(nextId, s.getStageId() + 1);
      if (s.getFragment().hasShuffleCombine()) {
        return graph;
      }
    }
    Map<Integer, Integer> consumers = new HashMap<>();
    for (Edge e : graph.getEdgesList()) {
      consumers.merge(e.getProducerStageId(), 1, Integer::sum);
    }
    Map<Integer, Stage> combinerAfter = new HashMap<>();
    List<Edge> edges = new ArrayList<>();
    for (Edge e : graph.getEdgesList()) {
      int partitions = partitions(e.getPartitioning());
      Stage producer = stages.get(e.getProducerStageId());
      // A stage that feeds several consumers keeps its direct edges: one combiner is one output.
      int group = partitions < 1 || producer == null || consumers.get(e.getProducerStageId()) > 1 ? 0
          : groupFor(producer.getTaskCount(), partitions, producer.getEstimates().getBytes(), settings);
      if (group == 0) {
        edges.add(e);
        continue;
      }
      int id = nextId++;
      Stage combiner = Stage.newBuilder()
          .setStageId(id)
          .setTaskCount((producer.getTaskCount() + group - 1) / group)
          .setOutputSchema(producer.getOutputSchema())
          .setEstimates(producer.getEstimates())
          .setFragment(Operator.newBuilder().setOutputSchema(producer.getOutputSchema())
              .setShuffleCombine(ShuffleCombine.newBuilder().setInputIndex(0)))
          .build();
      combinerAfter.put(producer.getStageId(), combiner);
      edges.add(e.toBuilder().setConsumerStageId(id).setConsumerInputIndex(0).setCombineGroup(group).build());
      edges.add(e.toBuilder().setProducerStageId(id).build());
    }
    if (combinerAfter.isEmpty()) {
      return graph;
    }
    StageGraph.Builder out = graph.toBuilder().clearStages().clearEdges().addAllEdges(edges);
    for (Stage s : graph.getStagesList()) {
      out.addStages(s);
      Stage combiner = combinerAfter.get(s.getStageId());
      if (combiner != null) {
        out.addStages(combiner);
      }
    }
    return out.build();
  }

  /** Partitions of a hash or range edge; 0 for the kinds that are never combined. */
  private static int partitions(Partitioning p) {
    return switch (p.getKindCase()) {
      case HASH -> p.getHash().getPartitions();
      case RANGE -> p.getRange().getPartitions();
      default -> 0;
    };
  }
}

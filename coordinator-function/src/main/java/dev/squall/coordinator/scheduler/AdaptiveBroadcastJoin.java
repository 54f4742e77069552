package dev.squall.coordinator.scheduler;

import dev.squall.proto.v1.BroadcastSwitch;
import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.HashJoin;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.PartitionRange;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.RuntimeFilter;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import dev.squall.proto.v1.TaskResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Adaptive broadcast join: a join the planner placed in a stage of its own, reading both sides
 * through hash edges (its estimate of the build side was too large to broadcast), runs as a
 * broadcast join once the build side has finished and measures small. After Spark's adaptive
 * execution, which turns a sort-merge join into a broadcast hash join from a side's measured
 * shuffle; here the switch is made between Lambda waves and before the other (probe) side has run,
 * so the probe side is never shuffled at all.
 *
 * <p>The probe stage then runs the join stage's fragment with its own fragment in place of the
 * join's read of it, and reads the build stage's output whole in every task (the build stage's
 * hash-partitioned output, all of its partitions, through an edge that is now a broadcast edge);
 * the probe stage's output edge becomes the join stage's, and the join stage leaves the graph.
 *
 * <p>A join may be taken over only when reading the probe side in parts and the build side whole
 * gives every task's rows as the join would: the probe side must be one whose rows are each emitted
 * (or dropped) by looking at the other side alone, and above the join the stage may hold only
 * filters, projections and partial aggregations, which is exactly the rule of skew splitting
 * ({@link SkewJoinSplitter#splittableInputs}): INNER either side is the build side, LEFT, SEMI and
 * ANTI only the right, RIGHT only the left, FULL never. The join stage must read exactly those two
 * hash edges (no combiner) and must not feed a forward edge or a combiner, whose task counts are
 * tied to its own.
 *
 * <p>The probe stage must not have started when the build stage finishes, so in staged runs it
 * waits for the build stage ({@link #waiting}) when a runtime filter already makes it wait, or when
 * the join would switch were the build side to measure a {@link #WAIT_FACTOR}th of its estimate
 * (filter selectivities are often off by that much): the wait costs at most the build stage's run
 * when the switch does not happen, and saves the probe side's shuffle and the join stage's whole
 * wave when it does.
 */
final class AdaptiveBroadcastJoin {
  /** A probe stage waits for a build stage estimated at most this many times the threshold. */
  static final int WAIT_FACTOR = 4;

  private AdaptiveBroadcastJoin() {}

  /**
   * A join stage that its probe stage may take over once the build stage has finished.
   *
   * @param joinStageId the stage running the partitioned join
   * @param buildStageId the producer read whole after the switch
   * @param probeStageId the producer that takes the join over
   * @param buildInputIndex the join stage's input index of the build side's read
   * @param probeInputIndex the join stage's input index of the probe side's read
   * @param buildLeft whether the build side is the join's left input
   */
  record Candidate(int joinStageId, int buildStageId, int probeStageId, int buildInputIndex, int probeInputIndex,
      boolean buildLeft) {}

  /**
   * The candidates of a graph whose probe stage should wait for its build stage, by probe stage id:
   * none when {@code thresholdBytes} is 0; else those whose build and probe stages a runtime filter
   * already orders (the wait costs nothing more), and those that would switch ({@link #worthIt})
   * were the build side to measure 1/{@link #WAIT_FACTOR} of its estimate.
   *
   * @param taskCounts tasks of each stage as run ({@link JobPlan#taskCounts()})
   */
  static Map<Integer, Candidate> waiting(StageTopology topology, List<RuntimeFilter> filters, long thresholdBytes,
      Map<Integer, Integer> taskCounts) {
    Map<Integer, Candidate> out = new HashMap<>();
    if (thresholdBytes <= 0) {
      return out;
    }
    for (Stage s : topology.stages()) {
      candidate(topology, filters, s.getStageId()).ifPresent(c -> {
        long optimistic = topology.stage(c.buildStageId()).getEstimates().getBytes() / WAIT_FACTOR;
        if (ordered(filters, c.probeStageId(), c.buildStageId())) {
          return; // the build stage waits for the probe stage's keys: the probe stage cannot wait too
        }
        if (ordered(filters, c.buildStageId(), c.probeStageId()) || worthIt(optimistic, thresholdBytes,
            taskCounts.getOrDefault(c.probeStageId(), 1), topology.stage(c.probeStageId()).getEstimates().getBytes())) {
          out.put(c.probeStageId(), c);
        }
      });
    }
    return out;
  }

  /**
   * The switch a join stage allows, or empty when its shape or join type does not allow one. When
   * both sides may be the build side (INNER), the build side is the one a runtime filter already
   * makes the other wait for, else the one estimated smaller.
   */
  static Optional<Candidate> candidate(StageTopology topology, List<RuntimeFilter> filters, int joinStageId) {
    Stage join = topology.stage(joinStageId);
    List<Edge> inputs = topology.inputsOf(joinStageId);
    Edge out = topology.outputOf(joinStageId);
    // A producer that feeds another consumer too must keep its output as it is.
    boolean sharedInput = inputs.stream().anyMatch(e -> topology.outputsOf(e.getProducerStageId()).size() > 1);
    if (inputs.size() != 2 || sharedInput || topology.outputsOf(joinStageId).size() > 1
        || join.getPartitionGroupStartsCount() > 0
        || (out != null && (out.getCombineGroup() > 0 || out.getPartitioning().hasForward()))) {
      return Optional.empty();
    }
    Map<Integer, Edge> byIndex = new HashMap<>();
    for (Edge e : inputs) {
      if (!e.getPartitioning().hasHash() || e.getCombineGroup() > 0
          || topology.stage(e.getProducerStageId()).getFragment().hasShuffleCombine()) {
        return Optional.empty();
      }
      byIndex.put(e.getConsumerInputIndex(), e);
    }
    Optional<HashJoin> found = SkewJoinSplitter.rowwiseJoin(join.getFragment());
    if (found.isEmpty()) {
      return Optional.empty();
    }
    int left = SkewJoinSplitter.readUnder(found.get().getLeft());
    int right = SkewJoinSplitter.readUnder(found.get().getRight());
    if (!byIndex.containsKey(left) || !byIndex.containsKey(right) || left == right) {
      return Optional.empty();
    }
    Set<Integer> probeSides = SkewJoinSplitter.splittableInputs(join.getFragment());
    List<Candidate> legal = new ArrayList<>();
    if (probeSides.contains(left)) {
      legal.add(new Candidate(joinStageId, byIndex.get(right).getProducerStageId(),
          byIndex.get(left).getProducerStageId(), right, left, false));
    }
    if (probeSides.contains(right)) {
      legal.add(new Candidate(joinStageId, byIndex.get(left).getProducerStageId(),
          byIndex.get(right).getProducerStageId(), left, right, true));
    }
    Candidate best = null;
    for (Candidate c : legal) {
      if (ordered(filters, c.buildStageId(), c.probeStageId())) {
        return Optional.of(c);
      }
      if (best == null || topology.stage(c.buildStageId()).getEstimates().getBytes()
          < topology.stage(best.buildStageId()).getEstimates().getBytes()) {
        best = c;
      }
    }
    return Optional.ofNullable(best);
  }

  /** Whether a runtime filter makes {@code probe} wait for {@code build}. */
  private static boolean ordered(List<RuntimeFilter> filters, int build, int probe) {
    return filters.stream().anyMatch(f -> f.getBuildStageId() == build && f.getProbeStageId() == probe);
  }

  /** Bytes of a finished stage's output: every partition of every winning map output. */
  static long outputBytes(TaskResult[] winners) {
    long bytes = 0;
    for (TaskResult w : winners) {
      for (PartitionRange r : w.getPartitionsList()) {
        bytes += r.getLength();
      }
    }
    return bytes;
  }

  /**
   * Whether to switch: the build side measured at most {@code thresholdBytes}, and its copies to
   * every probe task move no more bytes than shuffling the probe side would (the planner's rule for
   * a broadcast, {@code JoinStrategy}, with the measured size in place of the estimate).
   *
   * @param probeTasks the probe stage's tasks (each reads the build side whole)
   * @param probeEstimatedBytes the probe stage's estimated output bytes
   */
  static boolean worthIt(long buildBytes, long thresholdBytes, int probeTasks, long probeEstimatedBytes) {
    return thresholdBytes > 0 && buildBytes <= thresholdBytes
        && (double) buildBytes * Math.max(1, probeTasks) <= (double) buildBytes + probeEstimatedBytes;
  }

  /**
   * The graph with the candidate's join taken over by its probe stage: the probe stage, moved to
   * the join stage's place in the list (after every producer of both), runs the join stage's
   * fragment with the probe fragment in place of its read and the build side as the hash join's
   * build side, read through a broadcast edge at an input index after the probe fragment's own; it
   * has the join stage's output schema, estimates and output edge (and root role), and records the
   * switch ({@code Stage.broadcast_switch}). Runtime filters built by the join stage are built by
   * the probe stage; those built by the probe stage (whose output columns change) are dropped.
   */
  static StageGraph rewrite(StageGraph graph, Candidate c, long buildBytes) {
    Map<Integer, Stage> byId = new HashMap<>();
    graph.getStagesList().forEach(s -> byId.put(s.getStageId(), s));
    Stage join = byId.get(c.joinStageId());
    Stage probe = byId.get(c.probeStageId());
    int buildIndex = Fragments.maxInputIndex(probe.getFragment()) + 1;
    HashJoin.BuildSide side = c.buildLeft() ? HashJoin.BuildSide.BUILD_LEFT : HashJoin.BuildSide.BUILD_RIGHT;
    Operator withBuildSide = Fragments.replace(join.getFragment(), o -> !o.hasHashJoin() ? o
        : o.toBuilder().setHashJoin(o.getHashJoin().toBuilder().setBuildSide(side)).build());
    Operator fragment = Fragments.replace(withBuildSide, o -> {
      if (!o.hasShuffleRead()) {
        return o;
      }
      int index = o.getShuffleRead().getInputIndex();
      if (index == c.probeInputIndex()) {
        return probe.getFragment();
      }
      return index != c.buildInputIndex() ? o
          : o.toBuilder().setShuffleRead(o.getShuffleRead().toBuilder().setInputIndex(buildIndex)).build();
    });
    Stage merged = probe.toBuilder().setFragment(fragment).setOutputSchema(join.getOutputSchema())
        .setEstimates(join.getEstimates()).setBroadcastSwitch(BroadcastSwitch.newBuilder()
            .setJoinStageId(c.joinStageId()).setBuildStageId(c.buildStageId()).setBuildBytes(buildBytes))
        .build();
    StageGraph.Builder out = graph.toBuilder().clearStages().clearEdges().clearRuntimeFilters();
    for (Stage s : graph.getStagesList()) {
      if (s.getStageId() == c.joinStageId()) {
        out.addStages(merged);
      } else if (s.getStageId() != c.probeStageId()) {
        out.addStages(s);
      }
    }
    for (Edge e : graph.getEdgesList()) {
      if (e.getConsumerStageId() == c.joinStageId() && e.getProducerStageId() == c.probeStageId()) {
        continue;
      }
      if (e.getConsumerStageId() == c.joinStageId()) {
        out.addEdges(e.toBuilder().setConsumerStageId(c.probeStageId()).setConsumerInputIndex(buildIndex)
            .setPartitioning(Partitioning.newBuilder().setBroadcast(Partitioning.Broadcast.getDefaultInstance())));
      } else if (e.getProducerStageId() == c.joinStageId()) {
        out.addEdges(e.toBuilder().setProducerStageId(c.probeStageId()));
      } else {
        out.addEdges(e);
      }
    }
    for (RuntimeFilter f : graph.getRuntimeFiltersList()) {
      if (f.getBuildStageId() == c.probeStageId() || f.getProbeStageId() == c.joinStageId()) {
        continue;
      }
      out.addRuntimeFilters(f.getBuildStageId() == c.joinStageId() ? f.toBuilder().setBuildStageId(c.probeStageId()).build() : f);
    }
    if (graph.getRootStageId() == c.joinStageId()) {
      out.setRootStageId(c.probeStageId());
    }
    return out.build();
  }
}

package dev.squall.coordinator.scheduler;

import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import java.util.HashMap;
import java.util.Map;

/**
 * A stage's estimated peak task memory, from the planner's estimates, for choosing its task-size
 * tier ({@link TaskTiers}). Deliberately simple:
 *
 * <pre>
 *   estimate = {@value #BASELINE_BYTES} bytes + {@value #HELD_FACTOR} × held bytes per task
 * </pre>
 *
 * where the held bytes are, summed over the fragment's operators that hold state (they run at once
 * in one pipeline): a hash join's build side, a nested-loop join's right side, a sort's or window's
 * input, and an aggregation's state, taken as its output (the stage's estimated output when the
 * aggregation is the stage's last operator but filters, projections and limits; its input
 * otherwise). The bytes flowing out of an operator per task: a shuffle read — its producer stage's
 * estimated bytes divided among the consuming tasks (hash and range edges: by this stage's tasks,
 * as run, so a coalesced stage holds more a task; forward: by the producer's tasks; broadcast and
 * single: whole, a build side switched to a broadcast at run time by its measured bytes); a scan — the stage's estimated output divided by its tasks (a fused stage: its first stage's output); a join — its
 * probe side; a union — the sum of its inputs; other operators pass their input on. The factor
 * covers hash tables and vectors allocated at powers of two; the baseline the batches in flight and
 * the readers' buffers. An estimate that is too low costs one failed attempt: the attempt fails for
 * memory and runs again on the next larger tier.
 */
public final class StageMemoryEstimate {
  /** Bytes every task holds whatever its operators: batches in flight, shuffle and Parquet buffers. */
  public static final long BASELINE_BYTES = 2L << 20;
  /** Arrow bytes held per estimated byte of operator state. */
  public static final int HELD_FACTOR = 2;

  private final StageGraph graph;
  private final Map<Integer, Integer> taskCounts;
  private final Map<Integer, Stage> stages = new HashMap<>();

  /**
   * @param taskCounts tasks of each stage as run ({@link JobPlan#taskCounts()})
   */
  public StageMemoryEstimate(StageGraph graph, Map<Integer, Integer> taskCounts) {
    this.graph = graph;
    this.taskCounts = taskCounts;
    graph.getStagesList().forEach(s -> stages.put(s.getStageId(), s));
  }

  /** The estimated peak memory of one task of stage {@code stageId}, in bytes. */
  public long of(int stageId) {
    Stage stage = stages.get(stageId);
    if (stage == null) {
      return BASELINE_BYTES;
    }
    Walk walk = new Walk(stage);
    walk.bytes(stage.getFragment(), true);
    return BASELINE_BYTES + saturated(HELD_FACTOR * walk.held);
  }

  private static long saturated(double bytes) {
    return bytes >= Long.MAX_VALUE / 2.0 ? Long.MAX_VALUE / 2 : (long) Math.max(0, bytes);
  }

  private int tasks(int stageId) {
    return Math.max(1, taskCounts.getOrDefault(stageId, stages.containsKey(stageId)
        ? stages.get(stageId).getTaskCount() : 1));
  }

  /** One walk over a stage's fragment, adding up what its operators hold. */
  private final class Walk {
    final Stage stage;
    double held;

    Walk(Stage stage) {
      this.stage = stage;
    }

    double stageOutputPerTask() {
      return (double) stage.getEstimates().getBytes() / tasks(stage.getStageId());
    }

    /** What a scan hands on per task: the stage's output, or for a fused stage its first stage's. */
    double scanOutputPerTask() {
      return stage.hasScanEstimates() ? (double) stage.getScanEstimates().getBytes() / tasks(stage.getStageId())
          : stageOutputPerTask();
    }

    /**
     * The bytes {@code op} hands on per task, adding what it holds to {@link #held}.
     *
     * @param atRoot whether only filters, projections and limits lie between it and the stage's output
     */
    double bytes(Operator op, boolean atRoot) {
      return switch (op.getOpCase()) {
        case SCAN -> op.getScan().getReplicated() ? op.getScan().getReplicatedEstimatedBytes() : scanOutputPerTask();
        case SHUFFLE_READ -> shuffleRead(op.getShuffleRead().getInputIndex());
        case SHUFFLE_COMBINE, VALUES -> 0;
        case FILTER -> bytes(op.getFilter().getInput(), atRoot);
        case PROJECT -> bytes(op.getProject().getInput(), atRoot);
        case LIMIT -> bytes(op.getLimit().getInput(), atRoot);
        case TOP_N -> bytes(op.getTopN().getInput(), false);
        case EXPAND -> bytes(op.getExpand().getInput(), false) * Math.max(1, op.getExpand().getProjectionsCount());
        case SORT -> hold(bytes(op.getSort().getInput(), false));
        case WINDOW -> hold(bytes(op.getWindow().getInput(), false));
        case AGGREGATE -> {
          double input = bytes(op.getAggregate().getInput(), false);
          yield hold(atRoot ? Math.min(input, stageOutputPerTask()) : input);
        }
        case HASH_JOIN -> {
          double left = bytes(op.getHashJoin().getLeft(), false);
          double right = bytes(op.getHashJoin().getRight(), false);
          boolean buildLeft = op.getHashJoin().getBuildSide() == dev.squall.proto.v1.HashJoin.BuildSide.BUILD_LEFT;
          hold(buildLeft ? left : right);
          yield buildLeft ? right : left;
        }
        case NESTED_LOOP_JOIN -> {
          double left = bytes(op.getNestedLoopJoin().getLeft(), false);
          hold(bytes(op.getNestedLoopJoin().getRight(), false));
          yield left;
        }
        case UNION_ALL -> {
          double sum = 0;
          for (Operator input : op.getUnionAll().getInputsList()) {
            sum += bytes(input, false);
          }
          yield sum;
        }
        case OP_NOT_SET -> 0;
      };
    }

    double hold(double bytes) {
      held += bytes;
      return bytes;
    }

    double shuffleRead(int inputIndex) {
      for (Edge e : graph.getEdgesList()) {
        if (e.getConsumerStageId() != stage.getStageId() || e.getConsumerInputIndex() != inputIndex) {
          continue;
        }
        Stage producer = stages.get(e.getProducerStageId());
        double bytes = producer == null ? 0 : producer.getEstimates().getBytes();
        if (stage.hasBroadcastSwitch() && stage.getBroadcastSwitch().getBuildStageId() == e.getProducerStageId()) {
          bytes = stage.getBroadcastSwitch().getBuildBytes(); // measured: the estimate was too large to broadcast
        }
        return switch (e.getPartitioning().getKindCase()) {
          case HASH, RANGE -> bytes / tasks(stage.getStageId());
          case FORWARD -> bytes / tasks(e.getProducerStageId());
          default -> bytes;
        };
      }
      return 0;
    }
  }
}

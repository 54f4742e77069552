package dev.squall.coordinator.scheduler;

import dev.squall.proto.WireContract;
import dev.squall.proto.v1.CancelMarker;
import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.ResultOutput;
import dev.squall.proto.v1.ScanInput;
import dev.squall.proto.v1.ShuffleInput;
import dev.squall.proto.v1.ShuffleOutput;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.TaskInput;
import dev.squall.proto.v1.TaskOutput;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import dev.squall.shuffle.PublishedWinners;
import dev.squall.shuffle.ShuffleKeys;
import dev.squall.shuffle.ShuffleSegments;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Builds the {@link TaskSpec} of one task attempt from the job plan and the winning attempts of
 * the stages it reads.
 *
 * <p>Input {@code i} of a task is {@code edge.consumer_input_index == i} for a shuffle input, or a
 * Scan's {@code input_index} for splits. What a consumer task {@code p} reads of each producer
 * task's output, by edge kind: hash and range — partition {@code p} (hash: partitions
 * {@code [starts[p], starts[p+1])} of a coalesced stage, {@link PartitionCoalescer}; a piece of a split
 * skewed partition reads only its map tasks' share of the split side, {@link SkewJoinSplitter}); broadcast — every partition (one,
 * unless the producer wrote hash partitions before its consumer's join became a broadcast join,
 * {@link AdaptiveBroadcastJoin}); single — partition 0; forward — partition 0 of producer task {@code p} only; into a combiner stage (an edge
 * with a combine group g) — every range of producer tasks {@code [p·g, (p+1)·g)} ({@link ShuffleSegments}).
 */
public final class TaskSpecFactory {
  /**
   * Largest result (Arrow IPC bytes of a root task's output, footer included) a root task returns in
   * its answer instead of writing it to S3: a PUT by the task and a GET by the coordinator saved.
   * Well under what a task winner may hold in the job store (128 KiB, {@code WinnerRecords}) and a
   * Lambda response (6 MB).
   */
  public static final long RESULT_INLINE_MAX_BYTES = 64 * 1024;
  private final JobPlan plan;
  private final StageTopology topology;
  private final RuntimeFilters runtimeFilters;

  TaskSpecFactory(JobPlan plan, StageTopology topology) {
    this.plan = plan;
    this.topology = topology;
    this.runtimeFilters = new RuntimeFilters(plan.graph());
  }

  /**
   * @param winners for each finished producer stage id, its winning task results by partition
   */
  TaskSpec build(Stage stage, int partition, int attempt, Map<Integer, TaskResult[]> winners) {
    TaskSpec.Builder spec = TaskSpec.newBuilder()
        .setSchemaFingerprint(WireContract.fingerprint())
        .setJobId(plan.jobId())
        .setStageId(stage.getStageId())
        .setPartition(partition)
        .setAttempt(attempt)
        .addAllKeySummaries(runtimeFilters.requests(stage.getStageId()))
        .setMemoryBudgetBytes(plan.memoryBudgetBytes())
        .setCancelMarker(CancelMarker.newBuilder().setBucket(plan.shuffleBucket())
            .setObjectKey(cancelMarkerKey(plan.jobPrefix())));

    List<TaskInput> inputs = new ArrayList<>();
    List<Map<Integer, ScanInput>> scans = plan.scanInputs().get(stage.getStageId());
    RuntimeFilters.Applied filtered = runtimeFilters.apply(stage.getStageId(), stage.getFragment(),
        scans == null ? Map.of() : scans.get(partition), winners);
    spec.setFragment(filtered.fragment());
    filtered.scans().forEach((index, scan) -> put(inputs, index, TaskInput.newBuilder().setScan(scan).build()));
    for (Edge edge : topology.inputsOf(stage.getStageId())) {
      TaskResult[] producers = winners.get(edge.getProducerStageId());
      if (edge.getCombineGroup() > 0) {
        int from = partition * edge.getCombineGroup();
        List<TaskResult> group = Arrays.asList(producers).subList(from, Math.min(producers.length, from + edge.getCombineGroup()));
        put(inputs, edge.getConsumerInputIndex(), TaskInput.newBuilder().setShuffle(ShuffleSegments.wholeOutputs(
            topology.stage(edge.getProducerStageId()).getOutputSchema(), plan.shuffleBucket(), group)).build());
        continue;
      }
      Partitioning.KindCase kind = edge.getPartitioning().getKindCase();
      if (Arrays.asList(producers).contains(null)) {
        // Started before the producer stage finished (pipelined): the reader learns the winners.
        if (!pipelinable(edge)) {
          throw new IllegalStateException("stage " + stage.getStageId() + " cannot read stage "
              + edge.getProducerStageId() + " before it has finished (" + kind + " edge)");
        }
        int[] wanted = kind == Partitioning.KindCase.HASH ? new int[] {partition, partition + 1} : new int[] {0, 1};
        put(inputs, edge.getConsumerInputIndex(), TaskInput.newBuilder().setShuffle(ShuffleInput.newBuilder()
            .setSchema(topology.stage(edge.getProducerStageId()).getOutputSchema())
            .setPipelined(PublishedWinners.input(plan.shuffleBucket(), plan.jobPrefix(), edge.getProducerStageId(),
                producers.length, wanted[0], wanted[1]))).build());
        continue;
      }
      List<TaskResult> read = kind == Partitioning.KindCase.FORWARD ? List.of(producers[partition]) : Arrays.asList(producers);
      if (kind == Partitioning.KindCase.HASH && stage.getSkewSplitsCount() > 0) {
        SkewJoinSplitter.Slice slice = SkewJoinSplitter.slice(stage, partition,
            edge.getPartitioning().getHash().getPartitions());
        if (slice.splitInput() == edge.getConsumerInputIndex()) { // a piece of a split skewed partition
          read = read.subList(slice.mapFrom(), Math.min(slice.mapTo(), read.size()));
        }
      }
      int[] wanted = switch (kind) {
        case HASH -> PartitionCoalescer.partitionsOf(stage, partition, edge.getPartitioning().getHash().getPartitions());
        case RANGE -> new int[] {partition, partition + 1};
        // Every partition: one, unless a hash output became a broadcast (AdaptiveBroadcastJoin).
        case BROADCAST -> new int[] {0, Integer.MAX_VALUE};
        default -> new int[] {0, 1};
      };
      ShuffleInput shuffle = ShuffleSegments.input(topology.stage(edge.getProducerStageId()).getOutputSchema(),
          plan.shuffleBucket(), read, wanted[0], wanted[1]);
      put(inputs, edge.getConsumerInputIndex(), TaskInput.newBuilder().setShuffle(shuffle).build());
    }
    spec.addAllInputs(inputs);

    Edge out = topology.outputOf(stage.getStageId());
    if (out == null && plan.write() != null && plan.write().hasRowDelete()) {
      spec.setOutput(TaskOutput.newBuilder().setDeleteFiles(plan.write().getRowDelete().getDeleteFiles()));
    } else if (out == null && plan.write() != null) {
      spec.setOutput(TaskOutput.newBuilder().setDataFiles(plan.write().getDataFiles()));
    } else if (out == null) {
      spec.setOutput(TaskOutput.newBuilder().setResult(ResultOutput.newBuilder()
          .setBucket(plan.shuffleBucket()).setJobPrefix(plan.jobPrefix()).setCompression(plan.compression())
          .setInlineMaxBytes(RESULT_INLINE_MAX_BYTES)));
    } else {
      spec.setOutput(TaskOutput.newBuilder().setShuffle(ShuffleOutput.newBuilder()
          .setBucket(plan.shuffleBucket()).setJobPrefix(plan.jobPrefix())
          .setPartitioning(out.getPartitioning()).setCompression(plan.compression())));
    }
    return spec.build();
  }

  /**
   * Whether a consumer may read this edge while its producer stage runs (pipelined scheduling): a
   * hash, broadcast or single edge not going through a combiner. Range and forward edges and
   * combining exchanges wait for the whole producer stage.
   */
  static boolean pipelinable(Edge edge) {
    if (edge.getCombineGroup() > 0) {
      return false;
    }
    return switch (edge.getPartitioning().getKindCase()) {
      case HASH, BROADCAST, SINGLE -> true;
      default -> false;
    };
  }

  /** Whether a spec reads a shuffle input whose winners it learns while it runs. */
  static boolean readsPipelined(TaskSpec spec) {
    return spec.getInputsList().stream().anyMatch(i -> i.hasShuffle() && i.getShuffle().hasPipelined());
  }

  /**
   * The key of a job's cancel marker: an empty object under the job's prefix whose existence tells
   * running tasks to stop; deleted with the job's shuffle data.
   */
  public static String cancelMarkerKey(String jobPrefix) {
    return ShuffleKeys.jobRoot(jobPrefix) + "cancelled";
  }

  private static void put(List<TaskInput> inputs, int index, TaskInput input) {
    while (inputs.size() <= index) {
      inputs.add(TaskInput.getDefaultInstance());
    }
    inputs.set(index, input);
  }
}

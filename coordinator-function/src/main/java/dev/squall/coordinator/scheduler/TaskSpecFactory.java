package dev.squall.coordinator.scheduler;

import dev.squall.proto.WireContract;
import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.PartitionRange;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.ResultOutput;
import dev.squall.proto.v1.ScanInput;
import dev.squall.proto.v1.ShuffleInput;
import dev.squall.proto.v1.ShuffleOutput;
import dev.squall.proto.v1.ShuffleSegment;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.TaskInput;
import dev.squall.proto.v1.TaskOutput;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Builds the {@link TaskSpec} of one task attempt from the job plan and the winning attempts of
 * the stages it reads.
 *
 * <p>Input {@code i} of a task is {@code edge.consumer_input_index == i} for a shuffle input, or a
 * Scan's {@code input_index} for splits. What a consumer task {@code p} reads of each producer
 * task's output, by edge kind: hash and range — partition {@code p}; broadcast and single —
 * partition 0; forward — partition 0 of producer task {@code p} only. Zero-row ranges are left out.
 */
final class TaskSpecFactory {
  private final JobPlan plan;
  private final StageTopology topology;

  TaskSpecFactory(JobPlan plan, StageTopology topology) {
    this.plan = plan;
    this.topology = topology;
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
        .setFragment(stage.getFragment())
        .setMemoryBudgetBytes(plan.memoryBudgetBytes());

    List<TaskInput> inputs = new ArrayList<>();
    List<Map<Integer, ScanInput>> scans = plan.scanInputs().get(stage.getStageId());
    if (scans != null) {
      scans.get(partition).forEach((index, scan) -> put(inputs, index, TaskInput.newBuilder().setScan(scan).build()));
    }
    for (Edge edge : topology.inputsOf(stage.getStageId())) {
      ShuffleInput.Builder shuffle = ShuffleInput.newBuilder()
          .setSchema(topology.stage(edge.getProducerStageId()).getOutputSchema());
      TaskResult[] producers = winners.get(edge.getProducerStageId());
      Partitioning.KindCase kind = edge.getPartitioning().getKindCase();
      for (int t = 0; t < producers.length; t++) {
        if (kind == Partitioning.KindCase.FORWARD && t != partition) {
          continue;
        }
        int wanted = (kind == Partitioning.KindCase.HASH || kind == Partitioning.KindCase.RANGE) ? partition : 0;
        TaskResult producer = producers[t];
        for (PartitionRange range : producer.getPartitionsList()) {
          if (range.getPartition() == wanted && range.getRows() > 0) {
            shuffle.addSegments(ShuffleSegment.newBuilder()
                .setBucket(plan.shuffleBucket())
                .setObjectKey(producer.getOutputObjectKey())
                .setOffset(range.getOffset())
                .setLength(range.getLength())
                .setRows(range.getRows())
                .setProducerStageId(producer.getStageId())
                .setProducerPartition(producer.getPartition())
                .setProducerAttempt(producer.getAttempt()));
          }
        }
      }
      put(inputs, edge.getConsumerInputIndex(), TaskInput.newBuilder().setShuffle(shuffle).build());
    }
    spec.addAllInputs(inputs);

    Edge out = topology.outputOf(stage.getStageId());
    if (out == null) {
      spec.setOutput(TaskOutput.newBuilder().setResult(ResultOutput.newBuilder()
          .setBucket(plan.shuffleBucket()).setJobPrefix(plan.jobPrefix()).setCompression(plan.compression())));
    } else {
      spec.setOutput(TaskOutput.newBuilder().setShuffle(ShuffleOutput.newBuilder()
          .setBucket(plan.shuffleBucket()).setJobPrefix(plan.jobPrefix())
          .setPartitioning(out.getPartitioning()).setCompression(plan.compression())));
    }
    return spec.build();
  }

  private static void put(List<TaskInput> inputs, int index, TaskInput input) {
    while (inputs.size() <= index) {
      inputs.add(TaskInput.getDefaultInstance());
    }
    inputs.set(index, input);
  }
}

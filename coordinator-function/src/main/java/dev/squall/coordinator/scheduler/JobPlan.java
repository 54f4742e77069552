package dev.squall.coordinator.scheduler;

import dev.squall.proto.v1.Compression;
import dev.squall.proto.v1.ScanInput;
import dev.squall.proto.v1.StageGraph;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything the scheduler needs to run one job.
 *
 * @param jobId the job (query) id
 * @param graph the stage graph, producers listed before consumers
 * @param scanInputs for each leaf stage id: one entry per task, mapping a Scan input index to the
 *     splits that task reads; a leaf stage's task count is the length of its list
 * @param shuffleBucket the bucket for shuffle and result objects
 * @param jobPrefix the key prefix under which all of this job's objects live
 * @param compression body compression of shuffle streams
 * @param memoryBudgetBytes Arrow bytes each task may hold at once
 */
public record JobPlan(
    String jobId,
    StageGraph graph,
    Map<Integer, List<Map<Integer, ScanInput>>> scanInputs,
    String shuffleBucket,
    String jobPrefix,
    Compression compression,
    long memoryBudgetBytes) {
  public JobPlan {
    Objects.requireNonNull(jobId, "jobId");
    Objects.requireNonNull(graph, "graph");
    scanInputs = Map.copyOf(scanInputs);
  }
}

package dev.squall.coordinator.scheduler;

import dev.squall.proto.v1.TaskMetrics;
import dev.squall.proto.v1.TaskResult;
import java.util.List;
import java.util.Map;

/**
 * What the scheduler ran for one job.
 *
 * @param winners for each stage id, the winning (first successful) attempt's result per partition
 * @param tasks number of tasks (partitions over all stages)
 * @param attempts number of attempts started, retries included
 * @param attemptsByStage attempts started per stage id
 * @param metrics metrics of every finished attempt, winners and losers
 */
public record JobRun(Map<Integer, TaskResult[]> winners, int tasks, int attempts, Map<Integer, Integer> attemptsByStage,
    List<TaskMetrics> metrics) {}

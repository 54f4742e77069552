package dev.squall.coordinator.job;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.squall.coordinator.scheduler.JobPlan;
import dev.squall.jobstore.JobStoreLimits;
import dev.squall.jobstore.TaskAttempt;
import dev.squall.proto.v1.QuerySummary;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import dev.squall.proto.v1.StageSummary;
import dev.squall.proto.v1.TaskMetrics;
import dev.squall.proto.v1.TaskResult;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Builds a job's {@link QuerySummary} from its plan and every attempt the job store recorded, over
 * all the invocations that ran it: a stage an earlier invocation finished shows its own attempts
 * only once, which is how a resumed job shows that finished stages did not run again.
 */
final class JobSummaries {
  private JobSummaries() {}

  static QuerySummary of(JobPlan plan, List<TaskAttempt> attempts, long rows, long wallMillis) {
    Map<Integer, Integer> attemptsByStage = new HashMap<>();
    Map<Integer, Long> peakByStage = new HashMap<>();
    Map<Integer, Long> spilledByStage = new HashMap<>();
    long spilled = 0;
    long scanned = 0;
    long shuffled = 0;
    long requests = 0;
    for (TaskAttempt a : attempts) {
      attemptsByStage.merge(a.stageId(), 1, Integer::sum);
      TaskMetrics m = metricsOf(a);
      peakByStage.merge(a.stageId(), m.getPeakMemoryBytes(), Math::max);
      spilledByStage.merge(a.stageId(), m.getBytesSpilled(), Long::sum);
      spilled += m.getBytesSpilled();
      scanned += m.getBytesScanned();
      shuffled += m.getBytesShuffleWritten();
      requests += m.getS3PutRequests() + m.getS3GetRequests();
    }
    Map<Integer, Integer> tasks = plan.taskCounts();
    StageGraph graph = plan.graph();
    QuerySummary.Builder summary = QuerySummary.newBuilder().setStages(graph.getStagesCount())
        .setTasks(tasks.values().stream().mapToInt(Integer::intValue).sum())
        .setAttempts(attempts.size()).setRows(rows).setBytesScanned(scanned).setBytesShuffled(shuffled)
        .setS3Requests(requests).setWallMillis(wallMillis).setTaskMemoryBudgetBytes(plan.memoryBudgetBytes())
        .setBytesSpilled(spilled);
    for (Stage stage : graph.getStagesList()) {
      int id = stage.getStageId();
      String edge = graph.getEdgesList().stream().filter(e -> e.getProducerStageId() == id).findFirst()
          .map(e -> e.getPartitioning().getKindCase().name().toLowerCase(Locale.ROOT)).orElse("");
      summary.addStageSummaries(StageSummary.newBuilder().setStageId(id)
          .setTasks(tasks.getOrDefault(id, 0))
          .setAttempts(attemptsByStage.getOrDefault(id, 0))
          .setOutputEdge(edge)
          .setScans(plan.scanInputs().containsKey(id))
          .setMaxPeakMemoryBytes(peakByStage.getOrDefault(id, 0L))
          .setBytesSpilled(spilledByStage.getOrDefault(id, 0L)));
    }
    return summary.build();
  }

  /**
   * The summary, without its per-stage lines when it would not fit the job store's summary limit
   * ({@link JobStoreLimits#MAX_SUMMARY_BYTES}): a job with thousands of stages still records its end.
   */
  static QuerySummary fitting(QuerySummary summary) {
    return summary.getSerializedSize() <= JobStoreLimits.MAX_SUMMARY_BYTES ? summary
        : summary.toBuilder().clearStageSummaries().build();
  }

  private static TaskMetrics metricsOf(TaskAttempt a) {
    if (a.detail() == null) {
      return TaskMetrics.getDefaultInstance();
    }
    try {
      return TaskResult.parseFrom(a.detail()).getMetrics();
    } catch (InvalidProtocolBufferException e) {
      return TaskMetrics.getDefaultInstance();
    }
  }
}

package dev.squall.coordinator.job;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.squall.coordinator.cost.JobMeter;
import dev.squall.coordinator.cost.QueryCosts;
import dev.squall.coordinator.scheduler.JobPlan;
import dev.squall.coordinator.scheduler.StageMemoryEstimate;
import dev.squall.jobstore.JobStoreLimits;
import dev.squall.jobstore.TaskAttempt;
import dev.squall.proto.v1.OperatorMetrics;
import dev.squall.proto.v1.QueryCost;
import dev.squall.proto.v1.QuerySummary;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import dev.squall.proto.v1.StageSummary;
import dev.squall.proto.v1.TaskMetrics;
import dev.squall.proto.v1.TaskResult;
import dev.squall.shuffle.requests.S3RequestCounter;
import java.util.ArrayList;
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
  private final QueryCosts costs;

  JobSummaries(QueryCosts costs) {
    this.costs = costs;
  }

  /**
   * The summary of a job.
   *
   * @param attempts every attempt the store recorded (all count for time, requests and cost)
   * @param winners the winning attempt's result per stage and partition (their rows and operators are
   *     the stage's output; empty for a job that ran no task)
   * @param coordinatorInvocations coordinator invocations that took the job up (its lease epoch)
   * @param meter what this coordinator metered for the job (null: nothing)
   */
  QuerySummary of(JobPlan plan, List<TaskAttempt> attempts, Map<Integer, TaskResult[]> winners, long rows,
      long wallMillis, long coordinatorInvocations, JobMeter meter) {
    Map<Integer, StageSummary.Builder> stages = new HashMap<>();
    StageGraph graph = plan.graph();
    Map<Integer, Integer> tasks = plan.taskCounts();
    for (Stage stage : graph.getStagesList()) {
      int id = stage.getStageId();
      String edge = graph.getEdgesList().stream().filter(e -> e.getProducerStageId() == id).findFirst()
          .map(e -> e.getPartitioning().getKindCase().name().toLowerCase(Locale.ROOT)).orElse("");
      stages.put(id, StageSummary.newBuilder().setStageId(id).setTasks(tasks.getOrDefault(id, 0)).setOutputEdge(edge)
          .setScans(plan.scanInputs().containsKey(id)).setSkewedPartitionsSplit(stage.getSkewSplitsCount())
          .setBroadcastSwitched(stage.hasBroadcastSwitch()));
    }
    long spilled = 0;
    long scanned = 0;
    long shuffled = 0;
    List<TaskMetrics> all = new ArrayList<>();
    for (TaskAttempt a : attempts) {
      TaskMetrics m = metricsOf(a);
      all.add(m);
      spilled += m.getBytesSpilled();
      scanned += m.getBytesScanned();
      shuffled += m.getBytesShuffleWritten();
      StageSummary.Builder st = stages.computeIfAbsent(a.stageId(), id -> StageSummary.newBuilder().setStageId(id));
      st.setAttempts(st.getAttempts() + 1)
          .setMaxPeakMemoryBytes(Math.max(st.getMaxPeakMemoryBytes(), m.getPeakMemoryBytes()))
          .setBytesSpilled(st.getBytesSpilled() + m.getBytesSpilled())
          .setWallMillis(st.getWallMillis() + m.getWallMillis()).setCpuMillis(st.getCpuMillis() + m.getCpuMillis())
          .setBytesScanned(st.getBytesScanned() + m.getBytesScanned())
          .setBytesShuffled(st.getBytesShuffled() + m.getBytesShuffleWritten())
          .setTaskGbSeconds(st.getTaskGbSeconds() + costs.taskGbSeconds(m))
          .setS3(S3RequestCounter.plus(st.getS3(), m.getS3()));
      if (m.getTierMemoryMb() > 0) {
        // Task-size tiers: the attempts by the tier each ran on, beside the estimate the stage's tier came from.
        st.putAttemptsByTierMb(m.getTierMemoryMb(), st.getAttemptsByTierMbOrDefault(m.getTierMemoryMb(), 0) + 1);
        if (st.getEstimatedTaskMemoryBytes() == 0) {
          st.setEstimatedTaskMemoryBytes(new StageMemoryEstimate(graph, tasks).of(a.stageId()));
        }
      }
    }
    winners.forEach((stageId, results) -> {
      StageSummary.Builder st = stages.get(stageId);
      if (st == null) {
        return;
      }
      for (TaskResult r : results) {
        if (r != null) {
          addWinner(st, r.getMetrics());
        }
      }
    });
    QueryCost cost = costs.of(all, wallMillis, coordinatorInvocations, meter, scanned);
    QuerySummary.Builder summary = QuerySummary.newBuilder().setStages(graph.getStagesCount())
        .setTasks(tasks.values().stream().mapToInt(Integer::intValue).sum())
        .setAttempts(attempts.size()).setRows(rows).setBytesScanned(scanned).setBytesShuffled(shuffled)
        .setS3Requests(S3RequestCounter.total(cost.getS3()) + S3RequestCounter.total(cost.getCoordinatorS3()))
        .setWallMillis(wallMillis).setTaskMemoryBudgetBytes(plan.memoryBudgetBytes())
        .setBytesSpilled(spilled).setCost(cost).setScheduling(plan.pipelined() ? "pipelined" : "staged");
    for (Stage stage : graph.getStagesList()) {
      summary.addStageSummaries(stages.get(stage.getStageId()));
    }
    return summary.build();
  }

  /** The summary of a job that ran no task (DDL, EXPLAIN): the coordinator's time and requests only. */
  QuerySummary withoutTasks(long rows, long wallMillis, long coordinatorInvocations, JobMeter meter) {
    return QuerySummary.newBuilder().setRows(rows).setWallMillis(wallMillis)
        .setCost(costs.of(List.of(), wallMillis, coordinatorInvocations, meter, 0)).build();
  }

  /** Adds a winning attempt's rows and operator figures to its stage's. */
  private static void addWinner(StageSummary.Builder st, TaskMetrics m) {
    st.setRowsOut(st.getRowsOut() + m.getRowsWritten());
    for (int i = 0; i < m.getOperatorsCount(); i++) {
      OperatorMetrics op = m.getOperators(i);
      if (op.getKind().equals("scan") || op.getKind().equals("shuffle_read")) {
        st.setRowsIn(st.getRowsIn() + op.getRowsOut());
      }
      if (i < st.getOperatorsCount()) {
        OperatorMetrics sum = st.getOperators(i);
        st.setOperators(i, sum.toBuilder().setRowsIn(sum.getRowsIn() + op.getRowsIn())
            .setRowsOut(sum.getRowsOut() + op.getRowsOut()).setWallNanos(sum.getWallNanos() + op.getWallNanos())
            .setRowGroups(sum.getRowGroups() + op.getRowGroups())
            .setRowGroupsRead(sum.getRowGroupsRead() + op.getRowGroupsRead())
            .setRuntimeFilterRowGroupsSkipped(sum.getRuntimeFilterRowGroupsSkipped() + op.getRuntimeFilterRowGroupsSkipped())
            .setRuntimeFilterBytesSkipped(sum.getRuntimeFilterBytesSkipped() + op.getRuntimeFilterBytesSkipped())
            .setRuntimeFilterRowsDropped(sum.getRuntimeFilterRowsDropped() + op.getRuntimeFilterRowsDropped())
            .setRuntimeFilterFilesSkipped(sum.getRuntimeFilterFilesSkipped() + op.getRuntimeFilterFilesSkipped())
            .setRuntimeFilterFileBytesSkipped(sum.getRuntimeFilterFileBytesSkipped() + op.getRuntimeFilterFileBytesSkipped()));
      } else {
        st.addOperators(op);
      }
    }
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

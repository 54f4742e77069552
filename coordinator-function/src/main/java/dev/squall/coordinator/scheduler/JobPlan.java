package dev.squall.coordinator.scheduler;

import dev.squall.proto.v1.AnalyzeRecord;
import dev.squall.proto.v1.Compression;
import dev.squall.proto.v1.DdlRecord;
import dev.squall.proto.v1.JobPlanRecord;
import dev.squall.proto.v1.ScanInput;
import dev.squall.proto.v1.StageGraph;
import dev.squall.proto.v1.StageScanInputs;
import dev.squall.proto.v1.TaskScanInputs;
import dev.squall.proto.v1.WriteTargetRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Everything the scheduler and the final step need to run one job; stored between coordinator
 * invocations as a {@link JobPlanRecord}.
 *
 * @param jobId the job (query) id
 * @param graph the stage graph, producers listed before consumers
 * @param scanInputs for each leaf stage id: one entry per task, mapping a Scan input index to the
 *     splits that task reads; a leaf stage's task count is the length of its list
 * @param shuffleBucket the bucket for shuffle and result objects
 * @param jobPrefix the key prefix under which all of this job's objects live
 * @param compression body compression of shuffle streams
 * @param memoryBudgetBytes Arrow bytes each task may hold at once
 * @param outputSchema the answer's column names and types
 * @param write for INSERT and CREATE TABLE AS, the table the root stage writes to; else null
 * @param ddl for DDL, the catalog change the final step makes (the graph has no stages); else null
 * @param explainAnalyze for EXPLAIN ANALYZE: the answer is the stage graph annotated with what each
 *     stage and operator did, not the query's rows
 * @param adaptiveTargetPartitionBytes shuffle bytes a task coalesced by adaptive execution reads
 *     at about ({@link PartitionCoalescer}); 0 turns coalescing off
 * @param pipelined the stages ran pipelined: consumers started while their producers ran
 *     ({@link Pipelining}); set by the scheduler when it chooses so, for the summary
 * @param analyze for ANALYZE, the statistics the final step commits from the root's one row; else null
 * @param skewFactor a join's hash partition larger than this many times its side's median partition
 *     (and than {@code skewMinPartitionBytes}) is split across tasks ({@link SkewJoinSplitter}); 0 never
 * @param skewMinPartitionBytes bytes under which a partition is never split as skewed
 * @param adaptiveBroadcastJoinBytes measured build-side bytes at or under which a planned partitioned
 *     join runs as a broadcast join ({@link AdaptiveBroadcastJoin}); 0 never
 */
public record JobPlan(
    String jobId,
    StageGraph graph,
    Map<Integer, List<Map<Integer, ScanInput>>> scanInputs,
    String shuffleBucket,
    String jobPrefix,
    Compression compression,
    long memoryBudgetBytes,
    Schema outputSchema,
    WriteTargetRecord write,
    DdlRecord ddl,
    boolean explainAnalyze,
    long adaptiveTargetPartitionBytes,
    boolean pipelined,
    AnalyzeRecord analyze,
    int skewFactor,
    long skewMinPartitionBytes,
    long adaptiveBroadcastJoinBytes) {
  public JobPlan {
    Objects.requireNonNull(jobId, "jobId");
    Objects.requireNonNull(graph, "graph");
    Objects.requireNonNull(outputSchema, "outputSchema");
    scanInputs = Map.copyOf(scanInputs);
  }

  /** A plan without adaptive coalescing. */
  public JobPlan(String jobId, StageGraph graph, Map<Integer, List<Map<Integer, ScanInput>>> scanInputs,
      String shuffleBucket, String jobPrefix, Compression compression, long memoryBudgetBytes, Schema outputSchema,
      WriteTargetRecord write, DdlRecord ddl, boolean explainAnalyze) {
    this(jobId, graph, scanInputs, shuffleBucket, jobPrefix, compression, memoryBudgetBytes, outputSchema, write, ddl,
        explainAnalyze, 0, false, null, 0, 0, 0);
  }

  /** A plan that is not an EXPLAIN ANALYZE. */
  public JobPlan(String jobId, StageGraph graph, Map<Integer, List<Map<Integer, ScanInput>>> scanInputs,
      String shuffleBucket, String jobPrefix, Compression compression, long memoryBudgetBytes, Schema outputSchema,
      WriteTargetRecord write, DdlRecord ddl) {
    this(jobId, graph, scanInputs, shuffleBucket, jobPrefix, compression, memoryBudgetBytes, outputSchema, write, ddl,
        false);
  }

  /** This plan, answering as EXPLAIN ANALYZE. */
  public JobPlan withExplainAnalyze() {
    return new JobPlan(jobId, graph, scanInputs, shuffleBucket, jobPrefix, compression, memoryBudgetBytes, outputSchema,
        write, ddl, true, adaptiveTargetPartitionBytes, pipelined, analyze, skewFactor,
        skewMinPartitionBytes, adaptiveBroadcastJoinBytes);
  }

  /** This plan, coalescing hash partitions to about {@code bytes} a task (0: not at all). */
  public JobPlan withAdaptiveTargetPartitionBytes(long bytes) {
    return new JobPlan(jobId, graph, scanInputs, shuffleBucket, jobPrefix, compression, memoryBudgetBytes, outputSchema,
        write, ddl, explainAnalyze, bytes, pipelined, analyze, skewFactor, skewMinPartitionBytes, adaptiveBroadcastJoinBytes);
  }

  /** This plan with another stage graph (a stage's tasks decided at run time). */
  public JobPlan withGraph(StageGraph newGraph) {
    return new JobPlan(jobId, newGraph, scanInputs, shuffleBucket, jobPrefix, compression, memoryBudgetBytes,
        outputSchema, write, ddl, explainAnalyze, adaptiveTargetPartitionBytes, pipelined, analyze, skewFactor,
        skewMinPartitionBytes, adaptiveBroadcastJoinBytes);
  }

  /**
   * This plan, splitting a join's hash partition across tasks when it is over {@code factor} times
   * its side's median and over {@code minBytes} (factor 0: never).
   */
  public JobPlan withSkewSplitting(int factor, long minBytes) {
    return new JobPlan(jobId, graph, scanInputs, shuffleBucket, jobPrefix, compression, memoryBudgetBytes,
        outputSchema, write, ddl, explainAnalyze, adaptiveTargetPartitionBytes, pipelined, analyze, factor, minBytes,
        adaptiveBroadcastJoinBytes);
  }

  /**
   * This plan, running a planned partitioned join as a broadcast join when its build side measures
   * at most {@code bytes} once finished (0: never).
   */
  public JobPlan withAdaptiveBroadcastJoinBytes(long bytes) {
    return new JobPlan(jobId, graph, scanInputs, shuffleBucket, jobPrefix, compression, memoryBudgetBytes,
        outputSchema, write, ddl, explainAnalyze, adaptiveTargetPartitionBytes, pipelined, analyze, skewFactor,
        skewMinPartitionBytes, bytes);
  }

  /** This plan with a leaf stage's tasks replaced (a stage that stopped early runs fewer). */
  public JobPlan withScanInputs(int stageId, List<Map<Integer, ScanInput>> tasks) {
    Map<Integer, List<Map<Integer, ScanInput>>> scans = new TreeMap<>(scanInputs);
    scans.put(stageId, List.copyOf(tasks));
    return new JobPlan(jobId, graph, scans, shuffleBucket, jobPrefix, compression, memoryBudgetBytes, outputSchema,
        write, ddl, explainAnalyze, adaptiveTargetPartitionBytes, pipelined, analyze, skewFactor, skewMinPartitionBytes, adaptiveBroadcastJoinBytes);
  }

  /** This plan, marked as run pipelined. */
  public JobPlan withPipelined() {
    return new JobPlan(jobId, graph, scanInputs, shuffleBucket, jobPrefix, compression, memoryBudgetBytes,
        outputSchema, write, ddl, explainAnalyze, adaptiveTargetPartitionBytes, true, analyze, skewFactor,
        skewMinPartitionBytes, adaptiveBroadcastJoinBytes);
  }

  /** This plan, committing the statistics of an ANALYZE. */
  public JobPlan withAnalyze(AnalyzeRecord record) {
    return new JobPlan(jobId, graph, scanInputs, shuffleBucket, jobPrefix, compression, memoryBudgetBytes,
        outputSchema, write, ddl, explainAnalyze, adaptiveTargetPartitionBytes, pipelined, record, skewFactor,
        skewMinPartitionBytes, adaptiveBroadcastJoinBytes);
  }

  /** A plan without DDL. */
  public JobPlan(String jobId, StageGraph graph, Map<Integer, List<Map<Integer, ScanInput>>> scanInputs,
      String shuffleBucket, String jobPrefix, Compression compression, long memoryBudgetBytes, Schema outputSchema,
      WriteTargetRecord write) {
    this(jobId, graph, scanInputs, shuffleBucket, jobPrefix, compression, memoryBudgetBytes, outputSchema, write, null);
  }

  /** The plan as stored between invocations. */
  public JobPlanRecord toRecord() {
    JobPlanRecord.Builder b = JobPlanRecord.newBuilder().setJobId(jobId).setGraph(graph)
        .setShuffleBucket(shuffleBucket).setJobPrefix(jobPrefix).setCompression(compression)
        .setMemoryBudgetBytes(memoryBudgetBytes).setOutputArrowSchemaJson(outputSchema.toJson());
    new TreeMap<>(scanInputs).forEach((stage, tasks) -> {
      StageScanInputs.Builder s = StageScanInputs.newBuilder();
      for (Map<Integer, ScanInput> task : tasks) {
        s.addTasks(TaskScanInputs.newBuilder().putAllInputs(task));
      }
      b.putScanInputs(stage, s.build());
    });
    if (write != null) {
      b.setWrite(write);
    }
    if (ddl != null) {
      b.setDdl(ddl);
    }
    if (analyze != null) {
      b.setAnalyze(analyze);
    }
    return b.setExplainAnalyze(explainAnalyze).setAdaptiveTargetPartitionBytes(adaptiveTargetPartitionBytes)
        .setPipelined(pipelined).setSkewFactor(skewFactor).setSkewMinPartitionBytes(skewMinPartitionBytes)
        .setAdaptiveBroadcastJoinBytes(adaptiveBroadcastJoinBytes).build();
  }

  /** Reads a stored plan. */
  public static JobPlan fromRecord(JobPlanRecord r) {
    Map<Integer, List<Map<Integer, ScanInput>>> scans = new TreeMap<>();
    r.getScanInputsMap().forEach((stage, s) -> {
      List<Map<Integer, ScanInput>> tasks = new ArrayList<>();
      for (TaskScanInputs t : s.getTasksList()) {
        tasks.add(Map.copyOf(t.getInputsMap()));
      }
      scans.put(stage, tasks);
    });
    Schema schema;
    try {
      schema = Schema.fromJSON(r.getOutputArrowSchemaJson());
    } catch (IOException e) {
      throw new UncheckedIOException("stored plan of job " + r.getJobId() + " has an unreadable output schema", e);
    }
    return new JobPlan(r.getJobId(), r.getGraph(), scans, r.getShuffleBucket(), r.getJobPrefix(), r.getCompression(),
        r.getMemoryBudgetBytes(), schema, r.hasWrite() ? r.getWrite() : null, r.hasDdl() ? r.getDdl() : null,
        r.getExplainAnalyze(), r.getAdaptiveTargetPartitionBytes(), r.getPipelined(),
        r.hasAnalyze() ? r.getAnalyze() : null, r.getSkewFactor(), r.getSkewMinPartitionBytes(),
        r.getAdaptiveBroadcastJoinBytes());
  }

  /**
   * Tasks of each stage: a leaf stage's split count, a coalesced stage's partition groups (a split
   * skewed partition's group counting its pieces), else the stage's task count.
   */
  public Map<Integer, Integer> taskCounts() {
    Map<Integer, Integer> counts = new TreeMap<>();
    for (var s : graph.getStagesList()) {
      var scans = scanInputs.get(s.getStageId());
      int groups = s.getPartitionGroupStartsCount();
      counts.put(s.getStageId(), scans != null ? scans.size() : groups > 0 ? SkewJoinSplitter.taskCount(s)
          : s.getTaskCount());
    }
    return counts;
  }
}

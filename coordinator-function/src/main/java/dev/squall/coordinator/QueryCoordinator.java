package dev.squall.coordinator;

import dev.squall.coordinator.api.QueryAnswer;
import dev.squall.coordinator.api.QueryService;
import dev.squall.coordinator.api.SquallException;
import dev.squall.coordinator.finalize.ResultCollector;
import dev.squall.coordinator.scheduler.JobPlan;
import dev.squall.coordinator.scheduler.JobRun;
import dev.squall.coordinator.scheduler.StageScheduler;
import dev.squall.engine.types.SqlType;
import dev.squall.planner.DistributedPlanner;
import dev.squall.planner.PlannedQuery;
import dev.squall.planner.PlannerSettings;
import dev.squall.planner.PlanningException;
import dev.squall.planner.split.ScanAssignment;
import dev.squall.planner.split.SplitPlanner;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.QuerySummary;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import dev.squall.proto.v1.StageSummary;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskMetrics;
import dev.squall.shuffle.ShuffleCleaner;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * Runs a SELECT (or EXPLAIN) end to end on the coordinator: plan with the distributed planner,
 * plan splits from Iceberg metadata, run the stage graph through the scheduler, collect the root
 * stage's output as Arrow IPC, and delete the job's shuffle data whatever the outcome.
 *
 * <p>Answers over the inline cap are written to {@code s3://<bucket>/results/<queryId>.arrows}
 * and returned as a presigned URL.
 */
public final class QueryCoordinator implements QueryService {
  private static final Logger LOG = LoggerFactory.getLogger(QueryCoordinator.class);

  private final Catalog catalog;
  private final StageScheduler scheduler;
  private final S3Client s3;
  private final S3Presigner presigner;
  private final BufferAllocator allocator;
  private final CoordinatorSettings settings;
  private final PlannerSettings plannerDefaults;

  public QueryCoordinator(Catalog catalog, StageScheduler scheduler, S3Client s3, S3Presigner presigner,
      BufferAllocator allocator, CoordinatorSettings settings, PlannerSettings plannerDefaults) {
    this.catalog = catalog;
    this.scheduler = scheduler;
    this.s3 = s3;
    this.presigner = presigner;
    this.allocator = allocator;
    this.settings = settings;
    this.plannerDefaults = plannerDefaults;
  }

  @Override
  public QueryAnswer execute(String queryId, String sql, Map<String, String> properties) {
    long start = System.nanoTime();
    PlannerSettings plannerSettings = QueryProperties.apply(plannerDefaults, properties);
    PlannedQuery planned;
    try {
      planned = new DistributedPlanner(catalog).plan(withoutTrailingSemicolons(sql), plannerSettings);
    } catch (PlanningException e) {
      throw new SquallException(e.code().errorCode(), e.reason(), e.line(), e.column(), e);
    }
    if (planned.isExplain()) {
      return new QueryAnswer(queryId, textAnswer("plan", planned.explain()), List.of(),
          QuerySummary.newBuilder().setWallMillis(millisSince(start)).build(), ipc -> List.of(storeResult(queryId, ipc)));
    }
    ScanAssignment splits;
    try {
      splits = new SplitPlanner(catalog, plannerSettings.targetSplitSizeBytes()).plan(planned.stageGraph());
    } catch (PlanningException e) {
      throw new SquallException(e.code().errorCode(), e.reason(), e.line(), e.column(), e);
    }
    StageGraph graph = splits.applyTo(planned.stageGraph());
    String jobPrefix = "jobs/" + queryId;
    JobPlan plan = new JobPlan(queryId, graph, splits.tasksByStage(), settings.shuffleBucket(), jobPrefix,
        settings.compression(), settings.taskMemoryBudgetBytes());
    ShuffleCleaner cleaner = new ShuffleCleaner(s3);
    try {
      JobRun run;
      try {
        run = scheduler.run(plan, () -> false, settings.jobTimeout());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SquallException(ErrorCode.CANCELLED, "query " + queryId + " was interrupted");
      }
      Schema schema = SqlType.arrowSchema(planned.outputSchema());
      ResultCollector.Collected result = new ResultCollector(s3, allocator)
          .collect(settings.shuffleBucket(), run.winners().get(graph.getRootStageId()), schema);
      QuerySummary summary = summary(graph, splits, run, result.rows(), millisSince(start));
      QueryAnswer.ResultSpill spill = ipc -> List.of(storeResult(queryId, ipc));
      if (result.arrowIpc().length > settings.inlineResultCapBytes()) {
        return new QueryAnswer(queryId, new byte[0], spill.toUrls(result.arrowIpc()), summary, spill);
      }
      return new QueryAnswer(queryId, result.arrowIpc(), List.of(), summary, spill);
    } finally {
      try {
        cleaner.deleteJob(settings.shuffleBucket(), jobPrefix);
      } catch (RuntimeException e) {
        LOG.warn("query {}: deleting shuffle data under {} failed: {}", queryId, jobPrefix, e.toString());
      }
    }
  }

  /** Writes a result to {@code results/<queryId>.arrows} and returns a presigned GET URL. */
  private String storeResult(String queryId, byte[] arrowIpc) {
    String key = "results/" + queryId + ".arrows";
    s3.putObject(b -> b.bucket(settings.shuffleBucket()).key(key).contentType("application/vnd.apache.arrow.stream"),
        RequestBody.fromBytes(arrowIpc));
    return presigner.presignGetObject(p -> p.signatureDuration(settings.resultUrlTtl())
        .getObjectRequest(g -> g.bucket(settings.shuffleBucket()).key(key))).url().toString();
  }

  /** One statement may end in semicolons, as pasted from a SQL console; positions are unchanged. */
  static String withoutTrailingSemicolons(String sql) {
    int end = sql.length();
    while (end > 0 && (sql.charAt(end - 1) == ';' || Character.isWhitespace(sql.charAt(end - 1)))) {
      end--;
    }
    return sql.substring(0, end);
  }

  static QuerySummary summary(StageGraph graph, ScanAssignment scans, JobRun run, long rows, long wallMillis) {
    long scanned = 0;
    long shuffled = 0;
    long requests = 0;
    for (TaskMetrics m : run.metrics()) {
      scanned += m.getBytesScanned();
      shuffled += m.getBytesShuffleWritten();
      requests += m.getS3PutRequests() + m.getS3GetRequests();
    }
    QuerySummary.Builder summary = QuerySummary.newBuilder().setStages(graph.getStagesCount()).setTasks(run.tasks())
        .setAttempts(run.attempts()).setRows(rows).setBytesScanned(scanned).setBytesShuffled(shuffled)
        .setS3Requests(requests).setWallMillis(wallMillis);
    for (Stage stage : graph.getStagesList()) {
      int id = stage.getStageId();
      String edge = graph.getEdgesList().stream().filter(e -> e.getProducerStageId() == id).findFirst()
          .map(e -> e.getPartitioning().getKindCase().name().toLowerCase(java.util.Locale.ROOT)).orElse("");
      TaskResult[] winners = run.winners().get(id);
      summary.addStageSummaries(StageSummary.newBuilder().setStageId(id)
          .setTasks(winners == null ? 0 : winners.length)
          .setAttempts(run.attemptsByStage().getOrDefault(id, 0))
          .setOutputEdge(edge)
          .setScans(scans.isLeaf(id)));
    }
    return summary.build();
  }

  private byte[] textAnswer(String column, String text) {
    Schema schema = new Schema(List.of(Field.nullable(column, ArrowType.Utf8.INSTANCE)));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, out)) {
      VarCharVector v = (VarCharVector) root.getVector(0);
      v.allocateNew();
      v.setSafe(0, text.getBytes(StandardCharsets.UTF_8));
      v.setValueCount(1);
      root.setRowCount(1);
      writer.start();
      writer.writeBatch();
      writer.end();
    } catch (IOException e) {
      throw new IllegalStateException("cannot encode EXPLAIN output", e);
    }
    return out.toByteArray();
  }

  private static long millisSince(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }
}

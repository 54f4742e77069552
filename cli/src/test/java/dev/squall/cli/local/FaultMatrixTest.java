package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.coordinator.commit.IcebergCommitter;
import dev.squall.coordinator.job.CoordinatorActions;
import dev.squall.coordinator.job.JobSettings;
import dev.squall.jobstore.JobRecord;
import dev.squall.jobstore.TaskAttempt;
import dev.squall.local.s3.EmbeddedS3;
import dev.squall.proto.v1.TaskResult;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The fault matrix through the whole local stack, each fault installed as a fault plan with
 * {@code PUT /_local/faults} (docs/faults.md). Every answer is checked against DuckDB over the same
 * data files; every write must leave exactly one snapshot of its job (or none) and no data file
 * outside it. One stack for the class; TPC-H SF 0.01 in small files, so that queries run as
 * several tasks per stage.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FaultMatrixTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ARROW = "application/vnd.apache.arrow.stream";
  private static final String JSON_TYPE = "application/json";
  /** Several tasks per stage, and a hash join (nothing is broadcast). */
  private static final Map<String, String> SMALL = Map.of("target_split_size_bytes", "65536",
      "target_bytes_per_task", "65536", "broadcast_threshold_bytes", "0");
  private static final String JOIN = "select o_orderstatus, count(*) as n, sum(l_quantity) as q "
      + "from tpch.lineitem join tpch.orders on l_orderkey = o_orderkey group by o_orderstatus";
  private static final String WRITE_QUERY = "select o_orderkey, o_custkey, o_orderstatus from tpch.orders "
      + "where o_custkey < 500";
  private static final Duration PLANNING_LIMIT = Duration.ofSeconds(30);

  private TestStack stack;
  private Connection duck;

  @BeforeAll
  void start() throws Exception {
    stack = TestStack.startWith(0.01, 5_000, o -> o.withSweepInterval(Duration.ZERO)
        .withTaskTimeout(Duration.ofSeconds(15))
        .withObjectRetention(Duration.ofSeconds(2))
        .withJobSettings(JobSettings.defaults().withSyncWait(Duration.ofMinutes(10)).withLease(Duration.ofSeconds(2))
            .withPlanningTimeout(PLANNING_LIMIT)));
    duck = stack.duckDb();
    // Warms the planner and the write path up, so that no case's first planning meets the
    // planning time limit of this stack.
    HttpResponse<byte[]> warm = stack.post("create table tpch.f_warm as " + WRITE_QUERY, SMALL, JSON_TYPE);
    assertThat(warm.statusCode()).as(new String(warm.body())).isEqualTo(200);
    assertThat(stack.post(JOIN, SMALL, JSON_TYPE).statusCode()).isEqualTo(200);
  }

  @AfterEach
  void noFaultsLeft() throws Exception {
    stack.installFaults("{\"rules\": []}");
  }

  @AfterAll
  void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
  }

  // ---- helpers

  private List<List<Object>> duckRows(String sql) throws Exception {
    try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(sql.replace("tpch.", ""))) {
      return ResultRows.fromJdbc(rs);
    }
  }

  /** Runs {@code sql} synchronously and checks its answer against DuckDB's. */
  private HttpResponse<byte[]> assertAnswerAsDuckDb(String sql) throws Exception {
    HttpResponse<byte[]> r = stack.post(sql, SMALL, ARROW);
    assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(200);
    assertThat(ResultRows.difference(ResultRows.fromArrow(r.body()), duckRows(sql), false)).isNull();
    return r;
  }

  /** Faults the installed plan injected so far. */
  private int fired() {
    return stack.deployment.faults().plan().fired();
  }

  private static String rule(String json) {
    return "{\"rules\": [" + json + "]}";
  }

  private List<Snapshot> snapshotsOf(String table) {
    Table t = stack.deployment.catalog().catalog().loadTable(TableIdentifier.parse(table));
    t.refresh();
    List<Snapshot> all = new ArrayList<>();
    t.snapshots().forEach(all::add);
    return all;
  }

  private long snapshotsOfJob(String table, String jobId) {
    return snapshotsOf(table).stream().filter(s -> jobId.equals(s.summary().get(IcebergCommitter.JOB_ID_PROPERTY)))
        .count();
  }

  /** Data files of the job not referenced by its snapshot (orphans), once its cleanup had time to run. */
  private List<String> orphansOf(String table, String jobId) throws InterruptedException {
    Table t = stack.deployment.catalog().catalog().loadTable(TableIdentifier.parse(table));
    List<String> committed = new ArrayList<>();
    for (Snapshot s : t.snapshots()) {
      if (jobId.equals(s.summary().get(IcebergCommitter.JOB_ID_PROPERTY))) {
        s.addedDataFiles(t.io()).forEach(f -> committed.add(f.location().substring(
            f.location().indexOf(LocalDeployment.WAREHOUSE_BUCKET) + LocalDeployment.WAREHOUSE_BUCKET.length() + 1)));
      }
    }
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (true) {
      List<String> orphans;
      try (S3Client s3 = stack.deployment.s3().newClient()) {
        orphans = s3.listObjectsV2Paginator(b -> b.bucket(LocalDeployment.WAREHOUSE_BUCKET)).contents().stream()
            .map(S3Object::key).filter(k -> k.contains("/squall-" + jobId + "-")).filter(k -> !committed.contains(k))
            .toList();
      }
      if (orphans.isEmpty() || System.nanoTime() > until) {
        return orphans;
      }
      Thread.sleep(100);
    }
  }

  /** Runs an INSERT into a new table under {@code plan} asynchronously; checks the outcome: one snapshot, no orphan, DuckDB's rows. */
  private void assertWriteSurvives(String table, String plan) throws Exception {
    createEmpty(table);
    stack.installFaults(plan);
    String jobId = stack.submitAsync("insert into " + table + " " + WRITE_QUERY, SMALL);
    JsonNode status = stack.awaitTerminal(jobId, Duration.ofMinutes(3));
    int injected = fired();
    stack.installFaults(rule(""));
    assertThat(injected).as("the fault acted").isEqualTo(1);
    assertThat(status.get("state").asText()).as(status.toString()).isEqualTo("SUCCEEDED");
    assertCommittedOnce(table, jobId, WRITE_QUERY, 2); // the empty CTAS, then the one insert
  }

  /** Creates {@code table} with the write query's columns and no rows (one snapshot). */
  private void createEmpty(String table) throws Exception {
    HttpResponse<byte[]> created = stack.post("create table " + table + " as " + WRITE_QUERY + " and 1 = 0", SMALL,
        JSON_TYPE);
    assertThat(created.statusCode()).as(new String(created.body())).isEqualTo(200);
  }

  /**
   * The write {@code jobId} left exactly one snapshot and no data file outside it; the table has
   * {@code snapshots} snapshots and DuckDB's rows of {@code expectedSql}.
   */
  private void assertCommittedOnce(String table, String jobId, String expectedSql, int snapshots) throws Exception {
    assertThat(snapshotsOfJob(table, jobId)).isEqualTo(1);
    assertThat(snapshotsOf(table)).hasSize(snapshots);
    HttpResponse<byte[]> rows = stack.post("select * from " + table, Map.of(), ARROW);
    assertThat(ResultRows.difference(ResultRows.fromArrow(rows.body()), duckRows(expectedSql), false)).isNull();
    assertThat(orphansOf(table, jobId)).isEmpty();
  }

  /** Waits until the query is in {@code state} (fails past a minute). */
  private void awaitState(String queryId, String state) throws Exception {
    long until = System.nanoTime() + Duration.ofMinutes(1).toNanos();
    String now;
    while (!(now = stack.status(queryId).get("state").asText()).equals(state)) {
      assertThat(System.nanoTime()).as("query %s still %s, not %s", queryId, now, state).isLessThan(until);
      Thread.sleep(50);
    }
  }

  // ---- task faults

  @Test
  void aCrashedTaskIsRetried() throws Exception {
    stack.installFaults(rule("{\"target\": \"task\", \"stage\": 0, \"partition\": 0, \"action\": \"crash\"}"));
    assertAnswerAsDuckDb(JOIN);
    assertThat(fired()).isEqualTo(1);
  }

  @Test
  void aTaskHangingPastItsTimeoutIsRunAgain() throws Exception {
    stack.installFaults(rule("{\"target\": \"task\", \"stage\": 0, \"partition\": 1, \"attempt\": 0,"
        + " \"action\": \"hang\", \"seconds\": 60}"));
    assertAnswerAsDuckDb(JOIN);
    assertThat(fired()).isEqualTo(1);
  }

  @Test
  void transientThrottlingIsRetried() throws Exception {
    stack.installFaults(rule("{\"target\": \"task\", \"stage\": 0, \"action\": \"throttle\", \"times\": 2}"));
    assertAnswerAsDuckDb(JOIN);
    assertThat(fired()).isEqualTo(2);
  }

  @Test
  void duplicateAttemptsBothFinishingCountOnce() throws Exception {
    // The first attempt runs to its end, its answer is lost, a second attempt runs: one must win.
    stack.installFaults(rule("{\"target\": \"task\", \"stage\": 0, \"partition\": 0, \"attempt\": 0,"
        + " \"action\": \"loseAnswer\"}"));
    assertAnswerAsDuckDb(JOIN);
    assertThat(fired()).isEqualTo(1);
  }

  @Test
  void permanentThrottlingFailsTheJobWithinItsRetryBudgetAndThePollShowsIt() throws Exception {
    stack.installFaults(rule("{\"target\": \"task\", \"stage\": 0, \"partition\": 0, \"action\": \"throttle\","
        + " \"times\": -1}"));
    String id = stack.submitAsync(JOIN, SMALL);
    JsonNode status = stack.awaitTerminal(id, Duration.ofMinutes(2));
    assertThat(status.get("state").asText()).as(status.toString()).isEqualTo("FAILED");
    assertThat(status.at("/error/code").asText()).isEqualTo("EXTERNAL");
    assertThat(status.at("/error/message").asText()).contains("throttled").contains("reference");
    assertThat(stack.objectsLeftBy(id, Duration.ofSeconds(10))).isEmpty();
  }

  @Test
  void everyTaskInvocationFailingEndsTheJobFailedAndThePollShowsIt() throws Exception {
    stack.installFaults(rule("{\"target\": \"task\", \"action\": \"crash\", \"times\": -1}"));
    String id = stack.submitAsync(JOIN, SMALL);
    JsonNode status = stack.awaitTerminal(id, Duration.ofMinutes(2));
    assertThat(status.get("state").asText()).as(status.toString()).isEqualTo("FAILED");
    assertThat(status.at("/error/code").asText()).isEqualTo("EXTERNAL");
    // The crash is named, without the Java class names of the function's exception.
    assertThat(status.at("/error/message").asText()).contains("task function failed")
        .doesNotContainPattern("(?:[a-z_]+\\.){2,}[A-Z]").doesNotContain("Exception");
    HttpResponse<byte[]> result = stack.send("GET", "/v1/queries/" + id + "/result", JSON_TYPE);
    assertThat(result.statusCode()).isEqualTo(502);
  }

  @Test
  void aStragglerIsOvertakenByItsSpeculativeCopy() throws Exception {
    // The first attempt of one map task takes 40 s more; a copy starts once most of the stage is
    // done and it has run 10 s (SpeculationPolicy.defaults()), and wins.
    stack.installFaults(rule("{\"target\": \"task\", \"stage\": 0, \"partition\": 1, \"attempt\": 0,"
        + " \"action\": \"delay\", \"seconds\": 40}"));
    String id = stack.submitAsync(JOIN, SMALL);
    JsonNode status = stack.awaitTerminal(id, Duration.ofMinutes(2));
    assertThat(status.get("state").asText()).as(status.toString()).isEqualTo("SUCCEEDED");
    assertThat(fired()).isEqualTo(1);
    assertThat(stack.deployment.jobStore().winners(id)).filteredOn(w -> w.stageId() == 0 && w.partition() == 1)
        .singleElement().satisfies(w -> assertThat(w.attempt()).as("the speculative copy won").isNotZero());
    HttpResponse<byte[]> result = stack.send("GET", "/v1/queries/" + id + "/result", ARROW);
    assertThat(ResultRows.difference(ResultRows.fromArrow(result.body()), duckRows(JOIN), false)).isNull();
  }

  // ---- S3 faults

  @Test
  void slowDownOnShuffleWritesAndReadsIsRetried() throws Exception {
    stack.installFaults(rule("{\"target\": \"s3\", \"operation\": \"PutObject\", \"key\": \"jobs/.+/s0/m0/.+\","
        + " \"action\": \"slowDown\", \"times\": 2},"
        + "{\"target\": \"s3\", \"operation\": \"GetObject\", \"key\": \"jobs/.+/s0/m1/.+\", \"action\": \"slowDown\","
        + " \"times\": 2}"));
    assertAnswerAsDuckDb(JOIN);
    assertThat(fired()).as("both 503 rules acted twice").isEqualTo(4);
  }

  @Test
  void aShuffleGetHeldUpForAMinuteIsOvertakenByItsHedgeWithinTheSameAttempt() throws Exception {
    // Past the task timeout of this stack (15 s): without a hedge the reading attempt would fail.
    stack.installFaults(rule("{\"target\": \"s3\", \"operation\": \"GetObject\", \"key\": \"jobs/.+/s0/m0/.+\","
        + " \"action\": \"delay\", \"seconds\": 60}"));
    HttpResponse<byte[]> r = assertAnswerAsDuckDb(JOIN);
    assertThat(fired()).isEqualTo(1);
    JsonNode summary = JSON.readTree(r.headers().firstValue("x-squall-summary").orElseThrow());
    assertThat(summary.get("attempts").asInt()).as("no attempt ran again").isEqualTo(summary.get("tasks").asInt());
  }

  @Test
  void aMapOutputLostWhileItsConsumerRunsIsRegeneratedByRunningItsProducerAgain() throws Exception {
    stack.installFaults(rule("{\"target\": \"s3\", \"operation\": \"GetObject\", \"key\": \"jobs/.+/s0/m0/a\\\\d+\\\\.arrows\","
        + " \"action\": \"deleteObject\", \"times\": 1}"));
    HttpResponse<byte[]> r = assertAnswerAsDuckDb(JOIN);
    assertThat(fired()).isEqualTo(1);
    JsonNode summary = JSON.readTree(r.headers().firstValue("x-squall-summary").orElseThrow());
    assertThat(summary.get("attempts").asInt()).as("the producer and its consumer ran again")
        .isGreaterThanOrEqualTo(summary.get("tasks").asInt() + 2);
  }

  // ---- coordinator faults

  @Test
  void aCoordinatorKilledWhilePlanningIsReplacedAndTheQueryAnswers() throws Exception {
    stack.installFaults(rule("{\"target\": \"coordinator\", \"operation\": \"QUEUED\", \"action\": \"kill\"}"));
    String id = stack.submitAsync(JOIN, SMALL);
    JsonNode status = stack.awaitTerminal(id, Duration.ofMinutes(2));
    assertThat(status.get("state").asText()).as(status.toString()).isEqualTo("SUCCEEDED");
    HttpResponse<byte[]> result = stack.send("GET", "/v1/queries/" + id + "/result", ARROW);
    assertThat(ResultRows.difference(ResultRows.fromArrow(result.body()), duckRows(JOIN), false)).isNull();
  }

  @Test
  void aWriteSurvivesItsCoordinatorKilledWhileRunning() throws Exception {
    assertWriteSurvives("tpch.f_running",
        rule("{\"target\": \"coordinator\", \"operation\": \"RUNNING\", \"action\": \"kill\"}"));
  }

  @Test
  void aWriteSurvivesItsCoordinatorKilledInFinalizingBeforeTheCommit() throws Exception {
    assertWriteSurvives("tpch.f_finalizing",
        rule("{\"target\": \"coordinator\", \"operation\": \"FINALIZING\", \"action\": \"kill\"}"));
  }

  @Test
  void aWriteSurvivesItsCoordinatorKilledAfterTheCommitBeforeSucceeded() throws Exception {
    assertWriteSurvives("tpch.f_committed",
        rule("{\"target\": \"coordinator\", \"operation\": \"COMMITTED\", \"action\": \"kill\"}"));
  }

  @Test
  void aCommitWhoseAnswerIsLostIsFoundAndNotRepeated() throws Exception {
    assertWriteSurvives("tpch.f_lost", rule("{\"target\": \"commit\", \"key\": \"tpch\\\\.f_lost\","
        + " \"action\": \"loseAnswer\"}"));
  }

  @Test
  void aCommitCutOffWithoutAnAnswerIsSettledByTheNextRun() throws Exception {
    assertWriteSurvives("tpch.f_cut", rule("{\"target\": \"commit\", \"key\": \"tpch\\\\.f_cut\", \"action\": \"crash\"}"));
  }

  @Test
  void aCancelArrivingWhileAWriteFinalizesIsTooLateAndTheWriteCommitsOnce() throws Exception {
    String table = "tpch.f_cancel_finalizing";
    createEmpty(table);
    // The coordinator waits in FINALIZING, before its commit, long enough for the cancel to land.
    stack.installFaults(rule("{\"target\": \"coordinator\", \"operation\": \"FINALIZING\", \"action\": \"delay\","
        + " \"seconds\": 3}"));
    String jobId = stack.submitAsync("insert into " + table + " " + WRITE_QUERY, SMALL);
    awaitState(jobId, "FINALIZING");
    HttpResponse<byte[]> cancel = stack.send("DELETE", "/v1/queries/" + jobId, JSON_TYPE);
    assertThat(cancel.statusCode()).as(new String(cancel.body())).isEqualTo(202);

    JsonNode status = stack.awaitTerminal(jobId, Duration.ofMinutes(2));
    assertThat(fired()).isEqualTo(1);
    assertThat(status.get("state").asText()).as("a commit under way is not undone: " + status).isEqualTo("SUCCEEDED");
    assertCommittedOnce(table, jobId, WRITE_QUERY, 2);
    assertThat(stack.objectsLeftBy(jobId, Duration.ofSeconds(10))).as("no cancel marker or shuffle object left")
        .isEmpty();
  }

  @Test
  void aWriteWhoseTableGainedAnotherCommitSincePlanningCommitsOnTopOfIt() throws Exception {
    String table = "tpch.f_concurrent";
    String other = "select o_orderkey, o_custkey, o_orderstatus from tpch.orders where o_custkey >= 1400";
    createEmpty(table);
    // The first insert is planned and run against the empty table, then waits before its commit
    // while a second insert commits.
    stack.installFaults(rule("{\"target\": \"coordinator\", \"operation\": \"FINALIZING\", \"action\": \"delay\","
        + " \"seconds\": 4}"));
    String first = stack.submitAsync("insert into " + table + " " + WRITE_QUERY, SMALL);
    awaitState(first, "FINALIZING");
    HttpResponse<byte[]> second = stack.post("insert into " + table + " " + other, SMALL, JSON_TYPE);
    assertThat(second.statusCode()).as(new String(second.body())).isEqualTo(200);
    String secondId = JSON.readTree(second.body()).get("queryId").asText();
    assertThat(stack.status(first).get("state").asText()).as("the concurrent commit landed in between")
        .isEqualTo("FINALIZING");

    JsonNode status = stack.awaitTerminal(first, Duration.ofMinutes(2));
    assertThat(fired()).isEqualTo(1);
    assertThat(status.get("state").asText()).as(status.toString()).isEqualTo("SUCCEEDED");
    String both = WRITE_QUERY + " union all " + other;
    assertCommittedOnce(table, first, both, 3);
    assertCommittedOnce(table, secondId, both, 3);
    assertThat(snapshotsOf(table).get(2).summary().get(IcebergCommitter.JOB_ID_PROPERTY)).as("committed last")
        .isEqualTo(first);
  }

  @Test
  void planningPastItsTimeLimitFailsTheQuery() throws Exception {
    stack.installFaults(rule("{\"target\": \"coordinator\", \"operation\": \"QUEUED\", \"action\": \"hang\","
        + " \"seconds\": 120}"));
    long start = System.nanoTime();
    HttpResponse<byte[]> r = stack.post(JOIN, SMALL, JSON_TYPE);
    assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(504);
    assertThat(JSON.readTree(r.body()).at("/error/message").asText()).contains("planning");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(100));
  }

  @Test
  void cancelWhilePlanningAndWhileRunningEndsTheQueryCancelled() throws Exception {
    stack.installFaults(rule("{\"target\": \"coordinator\", \"operation\": \"QUEUED\", \"action\": \"hang\","
        + " \"seconds\": 120}"));
    String planning = stack.submitAsync(JOIN, SMALL);
    Thread.sleep(1_000);
    stack.send("DELETE", "/v1/queries/" + planning, JSON_TYPE);
    assertThat(stack.awaitTerminal(planning, Duration.ofSeconds(60)).get("state").asText()).isEqualTo("CANCELLED");

    stack.installFaults(rule("{\"target\": \"task\", \"action\": \"delay\", \"seconds\": 3, \"times\": -1}"));
    String running = stack.submitAsync(JOIN, SMALL);
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!stack.status(running).get("state").asText().equals("RUNNING") && System.nanoTime() < until) {
      Thread.sleep(100);
    }
    stack.send("DELETE", "/v1/queries/" + running, JSON_TYPE);
    JsonNode status = stack.awaitTerminal(running, Duration.ofSeconds(90));
    assertThat(status.get("state").asText()).as(status.toString()).isEqualTo("CANCELLED");
    assertThat(stack.objectsLeftBy(running, Duration.ofSeconds(10))).isEmpty();
  }

  // ---- bounds and caps

  @Test
  void aStageNeedingMoreTasksThanAllowedIsRefusedNamingTheProperty() throws Exception {
    Map<String, String> props = new HashMap<>(SMALL);
    props.put("max_tasks_per_stage", "2");
    HttpResponse<byte[]> r = stack.post("select sum(l_quantity) from tpch.lineitem", props, JSON_TYPE);
    assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(400);
    assertThat(JSON.readTree(r.body()).at("/error/message").asText()).contains("max_tasks_per_stage = 2");
  }

  @Test
  void aCrossJoinFormingMoreRowsThanAllowedFailsNamingThePropertyAndAnOutOfRangeCapIsRefused() throws Exception {
    Map<String, String> props = new HashMap<>(SMALL);
    props.put("max_nested_loop_join_rows", "1000");
    HttpResponse<byte[]> r = stack.post("select count(*) from tpch.orders, tpch.nation", props, JSON_TYPE);
    assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(400);
    assertThat(JSON.readTree(r.body()).at("/error/code").asText()).isEqualTo("USER_ERROR");
    assertThat(JSON.readTree(r.body()).at("/error/message").asText()).contains("max_nested_loop_join_rows");
    props.put("max_nested_loop_join_rows", "10000000001");
    HttpResponse<byte[]> over = stack.post("select count(*) from tpch.orders, tpch.nation", props, JSON_TYPE);
    assertThat(over.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(over.body()).at("/error/message").asText())
        .contains("max_nested_loop_join_rows").contains("from 1 to 10000000000");
    // Under the default cap the same query answers as DuckDB does.
    assertAnswerAsDuckDb("select count(*) as n from tpch.orders, tpch.nation");
  }

  @Test
  void longSumsOrsAndNestedCasesAnswerAndAnExpressionDeeperThanTasksAcceptIsRefusedAsTheUsersError() throws Exception {
    assertAnswerAsDuckDb("select n_nationkey, n_nationkey + " + chain(49, " + ", k -> String.valueOf(k)) + " as s from tpch.nation");
    assertAnswerAsDuckDb("select n_nationkey, n_nationkey + " + chain(699, " + ", k -> "n_regionkey") + " as s from tpch.nation");
    assertAnswerAsDuckDb("select count(*) as n from tpch.lineitem where "
        + chain(1000, " or ", k -> (k % 2 == 0 ? "l_orderkey = " : "l_partkey = ") + k));
    assertAnswerAsDuckDb("select n_name, " + chain(500, " else ", k -> "case when n_nationkey = " + (k * 7 % 500)
        + " then " + k) + " else -1" + " end".repeat(500) + " as c from tpch.nation");
    // A chain of subtractions is not merged: 700 levels are more than a task spec may nest.
    HttpResponse<byte[]> r = stack.post("select n_nationkey - " + chain(699, " - ", k -> "n_regionkey")
        + " from tpch.nation", Map.of(), JSON_TYPE);
    assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(400);
    assertThat(JSON.readTree(r.body()).at("/error/message").asText()).contains("nests too deeply");
  }

  private static String chain(int n, String separator, java.util.function.IntFunction<String> term) {
    StringBuilder sb = new StringBuilder();
    for (int k = 0; k < n; k++) {
      sb.append(k == 0 ? "" : separator).append(term.apply(k));
    }
    return sb.toString();
  }

  // ---- what users may read

  @Test
  void noErrorBodyOrJobRecordNamesABucketEndpointCredentialOrPrincipal() throws Exception {
    // A query that succeeds, one whose shuffle output keeps disappearing (messages about S3
    // objects), and one whose tasks crash.
    HttpResponse<byte[]> ok = stack.post(JOIN, SMALL, JSON_TYPE);
    stack.installFaults(rule("{\"target\": \"s3\", \"operation\": \"GetObject\", \"key\": \"jobs/.+/s0/.+\","
        + " \"action\": \"deleteObject\", \"times\": -1}"));
    HttpResponse<byte[]> lost = stack.post(JOIN, SMALL, JSON_TYPE);
    stack.installFaults(rule("{\"target\": \"task\", \"action\": \"crash\", \"times\": -1}"));
    HttpResponse<byte[]> crashed = stack.post(JOIN, SMALL, JSON_TYPE);
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(lost.statusCode()).isGreaterThanOrEqualTo(400);
    assertThat(crashed.statusCode()).isGreaterThanOrEqualTo(400);

    List<String> forbidden = List.of(LocalDeployment.WAREHOUSE_BUCKET, LocalDeployment.SHUFFLE_BUCKET,
        EmbeddedS3.ACCESS_KEY, EmbeddedS3.SECRET_KEY, "127.0.0.1", "localhost", "arn:aws", "s3://",
        stack.deployment.s3().endpoint().getAuthority(), stack.deployment.lambda().endpoint().getAuthority());
    List<String> texts = new ArrayList<>();
    for (HttpResponse<byte[]> r : List.of(ok, lost, crashed)) {
      JsonNode body = JSON.readTree(r.body());
      texts.add(body.toString());
      String id = body.get("queryId").asText();
      texts.add(stack.status(id).toString());
      JobRecord job = stack.deployment.jobStore().get(id).orElseThrow();
      texts.add(String.valueOf(job.error()) + " " + job.resultLocation() + " " + job.properties() + " " + job.sql());
      for (TaskAttempt a : stack.deployment.jobStore().attempts(id)) {
        if (a.detail() != null) {
          texts.add(TaskResult.parseFrom(a.detail()).toString());
        }
      }
    }
    for (String text : texts) {
      for (String secret : forbidden) {
        assertThat(text).as("an error body or job record names " + secret).doesNotContain(secret);
      }
    }
    assertThat(JSON.readTree(lost.body()).at("/error/message").asText()).contains("reference");
  }

  @Test
  void theSweepDeletesAnswersPastTheirRetention() throws Exception {
    String id = stack.submitAsync("select count(*) from tpch.nation", Map.of());
    assertThat(stack.awaitTerminal(id, Duration.ofMinutes(1)).get("state").asText()).isEqualTo("SUCCEEDED");
    String key = "results/" + id + ".arrows";
    try (S3Client s3 = stack.deployment.s3().newClient()) {
      assertThat(s3.listObjectsV2(b -> b.bucket(LocalDeployment.SHUFFLE_BUCKET).prefix(key)).contents()).hasSize(1);
      Thread.sleep(2_500); // the retention of this stack is 2 s
      try (LambdaClient lambda = LambdaClient.builder().endpointOverride(stack.deployment.lambda().endpoint())
          .region(EmbeddedS3.REGION).credentialsProvider(software.amazon.awssdk.auth.credentials
              .StaticCredentialsProvider.create(software.amazon.awssdk.auth.credentials.AwsBasicCredentials
                  .create(EmbeddedS3.ACCESS_KEY, EmbeddedS3.SECRET_KEY))).build()) {
        lambda.invoke(b -> b.functionName(LocalDeployment.COORDINATOR_FUNCTION)
            .payload(SdkBytes.fromByteArray(CoordinatorActions.sweep())));
      }
      assertThat(s3.listObjectsV2(b -> b.bucket(LocalDeployment.SHUFFLE_BUCKET).prefix(key)).contents()).isEmpty();
    }
  }
}

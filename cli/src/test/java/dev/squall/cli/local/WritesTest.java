package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.coordinator.commit.IcebergCommitter;
import dev.squall.coordinator.job.DriverHooks;
import dev.squall.jobstore.sqlite.SqliteJobStore;
import dev.squall.local.lambda.LambdaHandler;
import dev.squall.local.s3.EmbeddedS3;
import dev.squall.proto.TaskPayloads;
import dev.squall.proto.v1.TaskSpec;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * INSERT and CREATE TABLE AS through the whole local stack: writer tasks write data files, the
 * coordinator commits them once. Answers are checked against DuckDB over the TPC-H data, and every
 * injected fault must leave exactly one new snapshot (or none) and no duplicate or lost rows.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WritesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ARROW = "application/vnd.apache.arrow.stream";
  private static final String JSON_TYPE = "application/json";
  /** Several writer tasks per job. */
  private static final Map<String, String> SMALL_TASKS = Map.of("target_split_size_bytes", "65536",
      "target_bytes_per_task", "65536");
  private static final String ORDERS_QUERY = "select o_orderkey, o_custkey, o_orderstatus, o_totalprice, o_orderdate, "
      + "o_orderpriority from tpch.orders where o_custkey < 700";

  /** Faults for the writer (root) stage of the next write job: "failOnce", "runTwice", "always". */
  private volatile String writerFault = "";
  private final Set<String> faultedJobs = ConcurrentHashMap.newKeySet();
  private final AtomicInteger faults = new AtomicInteger();
  /** Every TaskSpec payload sent, as text. */
  private final ConcurrentLinkedQueue<String> payloads = new ConcurrentLinkedQueue<>();
  private volatile String coordinatorFault = "";
  private final AtomicBoolean coordinatorFaultDone = new AtomicBoolean();
  private TestStack stack;
  private Connection duck;

  private static final class CoordinatorCrash extends Error {
    CoordinatorCrash(String message) {
      super(message);
    }
  }

  private LambdaHandler inject(LambdaHandler real) {
    return (payload, ctx) -> {
      payloads.add(new String(payload, StandardCharsets.UTF_8));
      TaskSpec spec = TaskPayloads.decodeSpec(payload);
      boolean writer = spec.getOutput().hasDataFiles();
      String fault = writerFault;
      if (writer && spec.getPartition() == 0) {
        if (fault.equals("failOnce") && faultedJobs.add(spec.getJobId())) {
          faults.incrementAndGet();
          throw new IllegalStateException("injected crash of writer task " + spec.getStageId() + ".0");
        }
        if (fault.equals("runTwice") && faultedJobs.add(spec.getJobId())) {
          // The attempt writes its files and finishes, but the coordinator hears of a failure
          // and runs the task again: two attempts with data files, one winner.
          real.handle(payload, ctx);
          faults.incrementAndGet();
          throw new IllegalStateException("injected lost answer of writer task " + spec.getStageId() + ".0");
        }
        if (fault.equals("always")) {
          faults.incrementAndGet();
          throw new IllegalStateException("injected permanent failure of writer task " + spec.getStageId() + ".0");
        }
      }
      return real.handle(payload, ctx);
    };
  }

  /** How many more times the step after a landed commit fails (fault "failAfterCommit"). */
  private final AtomicInteger afterCommitFailures = new AtomicInteger();
  private FencingJobStore jobStore;

  private final DriverHooks hooks = new DriverHooks() {
    @Override
    public void committed(String jobId) {
      if (coordinatorFault.equals("failAfterCommit") && afterCommitFailures.getAndDecrement() > 0) {
        coordinatorFaultDone.set(true);
        throw new IllegalStateException("injected failure to store the answer of job " + jobId);
      }
      if (coordinatorFault.equals("dieAfterCommit") && coordinatorFaultDone.compareAndSet(false, true)) {
        throw new CoordinatorCrash("injected coordinator crash after the commit of job " + jobId);
      }
    }

    @Override
    public void finalizing(String jobId) {
      if (coordinatorFault.equals("createTableMeanwhile") && coordinatorFaultDone.compareAndSet(false, true)) {
        catalog().createTable(TableIdentifier.parse("tpch.w_race"), new org.apache.iceberg.Schema(
            org.apache.iceberg.types.Types.NestedField.optional(1, "k", org.apache.iceberg.types.Types.LongType.get())));
      }
      if (coordinatorFault.equals("fenceBeforeCommit") && coordinatorFaultDone.compareAndSet(false, true)) {
        jobStore.fenceNextRenewal();
      }
      if (coordinatorFault.equals("concurrentInsert") && coordinatorFaultDone.compareAndSet(false, true)) {
        try {
          HttpResponse<byte[]> other = stack.post("insert into tpch.w_concurrent values (1000001, 'other writer')",
              Map.of(), JSON_TYPE);
          assertThat(other.statusCode()).as(new String(other.body())).isEqualTo(200);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
    }
  };

  @BeforeAll
  void start() throws Exception {
    jobStore = new FencingJobStore(SqliteJobStore.temporary(Duration.ofDays(1)));
    stack = TestStack.startWith(0.01, 5_000, o -> o.withTaskHandlerWrapper(this::inject).withJobStore(jobStore)
        .withCoordinatorHooks(hooks)
        .withSweepInterval(Duration.ZERO)
        .withJobSettings(dev.squall.coordinator.job.JobSettings.defaults().withSyncWait(Duration.ofMinutes(10))
            .withLease(Duration.ofSeconds(2))));
    duck = stack.duckDb();
  }

  @AfterAll
  void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
    if (jobStore != null) {
      jobStore.close();
    }
  }

  private Catalog catalog() {
    return stack.deployment.catalog().catalog();
  }

  private JsonNode run(String sql) throws Exception {
    HttpResponse<byte[]> r = stack.post(sql, SMALL_TASKS, JSON_TYPE);
    assertThat(r.statusCode()).as(sql + " → " + new String(r.body())).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  private static long rowsWritten(JsonNode answer) {
    assertThat(answer.at("/columns/0/name").asText()).isEqualTo("rows");
    return answer.at("/rows/0/0").asLong();
  }

  private List<List<Object>> squallRows(String sql) throws Exception {
    HttpResponse<byte[]> r = stack.post(sql, Map.of(), ARROW);
    assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(200);
    return ResultRows.fromArrow(r.body());
  }

  private List<List<Object>> duckRows(String sql) throws Exception {
    try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(sql.replace("tpch.", ""))) {
      return ResultRows.fromJdbc(rs);
    }
  }

  private long count(String table) throws Exception {
    return ((Number) squallRows("select count(*) from " + table).get(0).get(0)).longValue();
  }

  private List<Snapshot> snapshotsOf(String table) {
    Table t = catalog().loadTable(TableIdentifier.parse(table));
    t.refresh();
    List<Snapshot> all = new ArrayList<>();
    t.snapshots().forEach(all::add);
    return all;
  }

  private static long snapshotsOfJob(List<Snapshot> snapshots, String jobId) {
    return snapshots.stream().filter(s -> jobId.equals(s.summary().get(IcebergCommitter.JOB_ID_PROPERTY))).count();
  }

  /** Keys of data files the job named {@code jobId} wrote, anywhere in the warehouse. */
  private List<String> dataFilesOfJob(String jobId) {
    try (S3Client s3 = stack.deployment.s3().newClient()) {
      return s3.listObjectsV2Paginator(b -> b.bucket(LocalDeployment.WAREHOUSE_BUCKET)).contents().stream()
          .map(S3Object::key).filter(k -> k.contains("/squall-" + jobId + "-")).toList();
    }
  }

  /**
   * As {@link #dataFilesOfJob}, once none is left or {@code timeout} passed: a job deletes its
   * files right after recording its end, so a client that saw the state may look a moment early.
   */
  private List<String> dataFilesLeftBy(String jobId, Duration timeout) throws InterruptedException {
    long until = System.nanoTime() + timeout.toNanos();
    while (true) {
      List<String> left = dataFilesOfJob(jobId);
      if (left.isEmpty() || System.nanoTime() > until) {
        return left;
      }
      Thread.sleep(50);
    }
  }

  /** Files committed to the table by the job's snapshot. */
  private List<String> committedFilesOfJob(String table, String jobId) {
    Table t = catalog().loadTable(TableIdentifier.parse(table));
    List<String> files = new ArrayList<>();
    for (Snapshot s : t.snapshots()) {
      if (jobId.equals(s.summary().get(IcebergCommitter.JOB_ID_PROPERTY))) {
        s.addedDataFiles(t.io()).forEach(f -> files.add(f.location().substring(f.location().indexOf(
            LocalDeployment.WAREHOUSE_BUCKET) + LocalDeployment.WAREHOUSE_BUCKET.length() + 1)));
      }
    }
    return files;
  }

  @Test
  void createTableAsOfATpchQueryEqualsDuckDbAndASecondInsertDoublesIt() throws Exception {
    String q = "select l_returnflag, l_linestatus, sum(l_quantity) as sum_qty, count(*) as count_order "
        + "from tpch.lineitem group by l_returnflag, l_linestatus";
    JsonNode created = run("create table tpch.w_q1 as " + q);
    String jobId = created.get("queryId").asText();
    List<List<Object>> expected = duckRows(q);
    assertThat(rowsWritten(created)).isEqualTo(expected.size());
    assertThat(ResultRows.difference(squallRows("select * from tpch.w_q1"), expected, false)).isNull();
    assertThat(snapshotsOfJob(snapshotsOf("tpch.w_q1"), jobId)).isEqualTo(1);

    JsonNode inserted = run("insert into tpch.w_q1 " + q);
    assertThat(rowsWritten(inserted)).isEqualTo(expected.size());
    assertThat(count("tpch.w_q1")).isEqualTo(2L * expected.size());
    List<List<Object>> doubled = duckRows(q + " union all " + q);
    assertThat(ResultRows.difference(squallRows("select * from tpch.w_q1"), doubled, false)).isNull();
    assertThat(snapshotsOf("tpch.w_q1")).hasSize(2);
  }

  @Test
  void partitionedCreateTableAsByIdentityDayAndBucketHoldsTheQuerysRows() throws Exception {
    // Two months of orders around mid-1995, where all three statuses occur: day() over the whole table
    // would make thousands of one-row files, which tests nothing more and costs a minute.
    String query = ORDERS_QUERY + " and o_orderdate between date '1995-05-15' and date '1995-07-15'";
    JsonNode created = run("create table tpch.w_orders partitioned by (o_orderstatus, day(o_orderdate), "
        + "bucket(4, o_custkey)) as " + query);
    List<List<Object>> expected = duckRows(query);
    assertThat(rowsWritten(created)).isEqualTo(expected.size());
    assertThat(ResultRows.difference(squallRows("select * from tpch.w_orders"), expected, false)).isNull();
    Table t = catalog().loadTable(TableIdentifier.parse("tpch.w_orders"));
    assertThat(t.spec().fields()).hasSize(3);
    // A filter on the partition column reads only its partitions and stays right.
    String filtered = "select count(*), sum(o_totalprice) from tpch.w_orders where o_orderstatus = 'F'";
    assertThat(ResultRows.difference(squallRows(filtered), duckRows(
        "select count(*), sum(o_totalprice) from (" + query + ") t where o_orderstatus = 'F'"), false)).isNull();
  }

  @Test
  void insertValuesAddsItsRowsWithCasts() throws Exception {
    run("create table tpch.w_values as select n_nationkey, n_name from tpch.nation where n_nationkey < 3");
    JsonNode r = run("insert into tpch.w_values values (100, 'ATLANTIS'), (101, 'LEMURIA')");
    assertThat(rowsWritten(r)).isEqualTo(2);
    assertThat(squallRows("select n_name from tpch.w_values where n_nationkey >= 100 order by n_nationkey"))
        .isEqualTo(List.of(List.of("ATLANTIS"), List.of("LEMURIA")));
    assertThat(count("tpch.w_values")).isEqualTo(5);
  }

  @Test
  void writerTaskFailingOnceLeavesOneSnapshotAndNoDuplicateRows() throws Exception {
    run("create table tpch.w_once as " + ORDERS_QUERY + " and 1 = 0");
    writerFault = "failOnce";
    JsonNode r;
    try {
      r = run("insert into tpch.w_once " + ORDERS_QUERY);
    } finally {
      writerFault = "";
    }
    String jobId = r.get("queryId").asText();
    assertThat(faultedJobs).contains(jobId);
    List<List<Object>> expected = duckRows(ORDERS_QUERY);
    assertThat(rowsWritten(r)).isEqualTo(expected.size());
    assertThat(ResultRows.difference(squallRows("select * from tpch.w_once"), expected, false)).isNull();
    assertThat(snapshotsOfJob(snapshotsOf("tpch.w_once"), jobId)).isEqualTo(1);
    assertThat(dataFilesOfJob(jobId)).containsExactlyInAnyOrderElementsOf(committedFilesOfJob("tpch.w_once", jobId));
  }

  @Test
  void writerTaskRunTwiceWithBothAttemptsFinishingCommitsOnlyTheWinnersFiles() throws Exception {
    run("create table tpch.w_twice as " + ORDERS_QUERY + " and 1 = 0");
    writerFault = "runTwice";
    JsonNode r;
    try {
      r = run("insert into tpch.w_twice " + ORDERS_QUERY);
    } finally {
      writerFault = "";
    }
    String jobId = r.get("queryId").asText();
    assertThat(faultedJobs).contains(jobId);
    List<List<Object>> expected = duckRows(ORDERS_QUERY);
    assertThat(rowsWritten(r)).isEqualTo(expected.size());
    assertThat(count("tpch.w_twice")).isEqualTo(expected.size());
    assertThat(ResultRows.difference(squallRows("select * from tpch.w_twice"), expected, false)).isNull();
    assertThat(snapshotsOfJob(snapshotsOf("tpch.w_twice"), jobId)).isEqualTo(1);
    // The losing attempt's files are gone; only committed files of the job remain.
    assertThat(dataFilesOfJob(jobId)).containsExactlyInAnyOrderElementsOf(committedFilesOfJob("tpch.w_twice", jobId));
  }

  @Test
  void coordinatorDyingAfterTheCommitIsRerunAndDoesNotCommitAgain() throws Exception {
    run("create table tpch.w_rerun as " + ORDERS_QUERY + " and 1 = 0");
    coordinatorFault = "dieAfterCommit";
    coordinatorFaultDone.set(false);
    String jobId;
    JsonNode status;
    try {
      jobId = stack.submitAsync("insert into tpch.w_rerun " + ORDERS_QUERY, SMALL_TASKS);
      status = stack.awaitTerminal(jobId, Duration.ofMinutes(2));
    } finally {
      coordinatorFault = "";
    }
    assertThat(coordinatorFaultDone.get()).isTrue();
    assertThat(status.get("state").asText()).as(status.toString()).isEqualTo("SUCCEEDED");
    List<List<Object>> expected = duckRows(ORDERS_QUERY);
    assertThat(snapshotsOfJob(snapshotsOf("tpch.w_rerun"), jobId)).isEqualTo(1);
    assertThat(snapshotsOf("tpch.w_rerun")).hasSize(2); // the empty CTAS, then the one insert
    assertThat(count("tpch.w_rerun")).isEqualTo(expected.size());
    HttpResponse<byte[]> result = stack.send("GET", "/v1/queries/" + jobId + "/result", JSON_TYPE);
    assertThat(rowsWritten(JSON.readTree(result.body()))).isEqualTo(expected.size());
  }

  /**
   * DDL is applied once, idempotently: a coordinator that dies right after its CREATE TABLE and
   * ADD COLUMN landed leaves the job to the next one, which finds the change made and ends the
   * job SUCCEEDED (not "already exists").
   */
  @Test
  void ddlOfACoordinatorThatDiedAfterTheChangeIsFinishedByTheNextOne() throws Exception {
    for (String ddl : List.of("create table tpch.w_ddl (k bigint)", "alter table tpch.w_ddl add column v varchar")) {
      coordinatorFault = "dieAfterCommit";
      coordinatorFaultDone.set(false);
      JsonNode status;
      String jobId;
      try {
        jobId = stack.submitAsync(ddl);
        status = stack.awaitTerminal(jobId, Duration.ofMinutes(2));
      } finally {
        coordinatorFault = "";
      }
      assertThat(coordinatorFaultDone.get()).isTrue();
      assertThat(status.get("state").asText()).as(status.toString()).isEqualTo("SUCCEEDED");
    }
    Table t = catalog().loadTable(TableIdentifier.parse("tpch.w_ddl"));
    assertThat(t.schema().columns()).extracting(f -> f.name()).containsExactly("k", "v");
  }

  /** A coordinator whose lease was taken before it changed the catalog changes nothing; the next one does. */
  @Test
  void ddlOfAFencedCoordinatorChangesNothing() throws Exception {
    coordinatorFault = "fenceBeforeCommit";
    coordinatorFaultDone.set(false);
    try {
      HttpResponse<byte[]> first = stack.post("create table tpch.w_ddl_fenced (k bigint)", Map.of(), JSON_TYPE);
      assertThat(coordinatorFaultDone.get()).isTrue();
      assertThat(first.statusCode()).as(new String(first.body())).isEqualTo(202);
      assertThat(catalog().tableExists(TableIdentifier.parse("tpch.w_ddl_fenced")))
          .as("the fenced invocation created the table").isFalse();
      String jobId = JSON.readTree(first.body()).get("queryId").asText();
      JsonNode status = stack.awaitTerminal(jobId, Duration.ofMinutes(2));
      assertThat(status.get("state").asText()).as(status.toString()).isEqualTo("SUCCEEDED");
      assertThat(catalog().tableExists(TableIdentifier.parse("tpch.w_ddl_fenced"))).isTrue();
    } finally {
      coordinatorFault = "";
    }
  }

  @Test
  void aFailureAfterTheCommitLandedStillEndsTheWriteSucceeded() throws Exception {
    run("create table tpch.w_after as " + ORDERS_QUERY + " and 1 = 0");
    coordinatorFault = "failAfterCommit";
    coordinatorFaultDone.set(false);
    afterCommitFailures.set(1);
    JsonNode r;
    try {
      r = run("insert into tpch.w_after " + ORDERS_QUERY);
    } finally {
      coordinatorFault = "";
    }
    assertThat(coordinatorFaultDone.get()).isTrue();
    String jobId = r.get("queryId").asText();
    List<List<Object>> expected = duckRows(ORDERS_QUERY);
    assertThat(rowsWritten(r)).isEqualTo(expected.size());
    assertThat(snapshotsOfJob(snapshotsOf("tpch.w_after"), jobId)).isEqualTo(1);
    assertThat(ResultRows.difference(squallRows("select * from tpch.w_after"), expected, false)).isNull();
    assertThat(dataFilesOfJob(jobId)).containsExactlyInAnyOrderElementsOf(committedFilesOfJob("tpch.w_after", jobId));
  }

  @Test
  void aCommittedWriteWhoseEndCannotBeRecordedStaysFinalizingAndTheNextRunFinishesIt() throws Exception {
    run("create table tpch.w_settle as " + ORDERS_QUERY + " and 1 = 0");
    coordinatorFault = "failAfterCommit";
    coordinatorFaultDone.set(false);
    afterCommitFailures.set(3); // every try of the invocation that committed
    HttpResponse<byte[]> first;
    try {
      first = stack.post("insert into tpch.w_settle " + ORDERS_QUERY, SMALL_TASKS, JSON_TYPE);
      assertThat(first.statusCode()).as(new String(first.body())).isEqualTo(202);
      String jobId = JSON.readTree(first.body()).get("queryId").asText();
      assertThat(stack.status(jobId).get("state").asText()).isEqualTo("FINALIZING");
      // A status read finds nobody holding the job and starts an invocation that finishes it.
      JsonNode status = stack.awaitTerminal(jobId, Duration.ofMinutes(2));
      assertThat(status.get("state").asText()).as(status.toString()).isEqualTo("SUCCEEDED");
      List<List<Object>> expected = duckRows(ORDERS_QUERY);
      assertThat(snapshotsOfJob(snapshotsOf("tpch.w_settle"), jobId)).isEqualTo(1);
      assertThat(count("tpch.w_settle")).isEqualTo(expected.size());
      assertThat(dataFilesOfJob(jobId)).containsExactlyInAnyOrderElementsOf(committedFilesOfJob("tpch.w_settle", jobId));
    } finally {
      coordinatorFault = "";
    }
  }

  @Test
  void aCoordinatorThatLostItsLeaseBeforeTheCommitDoesNotCommit() throws Exception {
    run("create table tpch.w_fenced as " + ORDERS_QUERY + " and 1 = 0");
    coordinatorFault = "fenceBeforeCommit";
    coordinatorFaultDone.set(false);
    try {
      HttpResponse<byte[]> first = stack.post("insert into tpch.w_fenced " + ORDERS_QUERY, SMALL_TASKS, JSON_TYPE);
      assertThat(coordinatorFaultDone.get()).isTrue();
      assertThat(first.statusCode()).as(new String(first.body())).isEqualTo(202);
      String jobId = JSON.readTree(first.body()).get("queryId").asText();
      assertThat(snapshotsOfJob(snapshotsOf("tpch.w_fenced"), jobId)).as("the fenced invocation committed").isZero();
      JsonNode status = stack.awaitTerminal(jobId, Duration.ofMinutes(2));
      assertThat(status.get("state").asText()).as(status.toString()).isEqualTo("SUCCEEDED");
      assertThat(snapshotsOfJob(snapshotsOf("tpch.w_fenced"), jobId)).isEqualTo(1);
      assertThat(count("tpch.w_fenced")).isEqualTo(duckRows(ORDERS_QUERY).size());
    } finally {
      coordinatorFault = "";
    }
  }

  @Test
  void aCoordinatorThatLostItsLeaseWhileFailingAWriteDeletesNothing() throws Exception {
    run("create table tpch.w_fenced_fail as " + ORDERS_QUERY);
    long before = count("tpch.w_fenced_fail");
    writerFault = "always";
    jobStore.fenceNextTerminalTransition();
    try {
      HttpResponse<byte[]> first = stack.post("insert into tpch.w_fenced_fail " + ORDERS_QUERY, SMALL_TASKS, JSON_TYPE);
      assertThat(first.statusCode()).as(new String(first.body())).isEqualTo(202);
      String jobId = JSON.readTree(first.body()).get("queryId").asText();
      // The other writer tasks' files stay: only the job's owner may delete them, after recording the end.
      assertThat(dataFilesOfJob(jobId)).isNotEmpty();
      JsonNode status = stack.awaitTerminal(jobId, Duration.ofMinutes(2));
      assertThat(status.get("state").asText()).as(status.toString()).isEqualTo("FAILED");
      assertThat(dataFilesLeftBy(jobId, Duration.ofSeconds(10))).isEmpty();
      assertThat(count("tpch.w_fenced_fail")).isEqualTo(before);
    } finally {
      writerFault = "";
    }
  }

  @Test
  void createTableAsLosingTheRaceForItsNameAnswersTableAlreadyExists() throws Exception {
    coordinatorFault = "createTableMeanwhile";
    coordinatorFaultDone.set(false);
    HttpResponse<byte[]> r;
    try {
      r = stack.post("create table tpch.w_race as " + ORDERS_QUERY, SMALL_TASKS, JSON_TYPE);
    } finally {
      coordinatorFault = "";
    }
    assertThat(coordinatorFaultDone.get()).isTrue();
    assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(400);
    JsonNode body = JSON.readTree(r.body());
    assertThat(body.at("/error/code").asText()).isEqualTo("USER_ERROR");
    assertThat(body.at("/error/message").asText()).contains("already exists");
    assertThat(snapshotsOf("tpch.w_race")).isEmpty();
    assertThat(dataFilesLeftBy(body.get("queryId").asText(), Duration.ofSeconds(10))).isEmpty();
  }

  @Test
  void anotherWriterCommittingDuringFinalizingKeepsBothWrites() throws Exception {
    run("create table tpch.w_concurrent as select n_nationkey as k, n_name as v from tpch.nation");
    coordinatorFault = "concurrentInsert";
    coordinatorFaultDone.set(false);
    JsonNode r;
    try {
      r = run("insert into tpch.w_concurrent select n_nationkey + 100, n_name from tpch.nation");
    } finally {
      coordinatorFault = "";
    }
    assertThat(coordinatorFaultDone.get()).isTrue();
    String jobId = r.get("queryId").asText();
    assertThat(rowsWritten(r)).isEqualTo(25);
    assertThat(count("tpch.w_concurrent")).isEqualTo(25 + 25 + 1);
    assertThat(snapshotsOfJob(snapshotsOf("tpch.w_concurrent"), jobId)).isEqualTo(1);
    assertThat(squallRows("select v from tpch.w_concurrent where k = 1000001")).isEqualTo(List.of(List.of("other writer")));
  }

  @Test
  void failedWriteLeavesTheTableExactlyAsItWasAndNoDataFiles() throws Exception {
    run("create table tpch.w_failed as " + ORDERS_QUERY);
    long before = catalog().loadTable(TableIdentifier.parse("tpch.w_failed")).currentSnapshot().snapshotId();
    writerFault = "always";
    HttpResponse<byte[]> r;
    HttpResponse<byte[]> ctas;
    try {
      r = stack.post("insert into tpch.w_failed " + ORDERS_QUERY, SMALL_TASKS, JSON_TYPE);
      ctas = stack.post("create table tpch.w_never as " + ORDERS_QUERY, SMALL_TASKS, JSON_TYPE);
    } finally {
      writerFault = "";
    }
    assertThat(r.statusCode()).isEqualTo(502);
    String jobId = JSON.readTree(r.body()).get("queryId").asText();
    Table t = catalog().loadTable(TableIdentifier.parse("tpch.w_failed"));
    assertThat(t.currentSnapshot().snapshotId()).isEqualTo(before);
    assertThat(snapshotsOf("tpch.w_failed")).hasSize(1);
    assertThat(dataFilesOfJob(jobId)).isEmpty();
    assertThat(ctas.statusCode()).isEqualTo(502);
    assertThat(catalog().tableExists(TableIdentifier.parse("tpch.w_never"))).isFalse();
    assertThat(dataFilesOfJob(JSON.readTree(ctas.body()).get("queryId").asText())).isEmpty();
    assertThat(stack.objectsLeftBy(jobId, Duration.ofSeconds(5))).isEmpty();
  }

  @Test
  void noTaskSpecOfAWriteCarriesACatalogUriCredentialOrSecret() throws Exception {
    payloads.clear();
    run("create table tpch.w_secrets partitioned by (o_orderstatus) as " + ORDERS_QUERY);
    run("insert into tpch.w_secrets " + ORDERS_QUERY);
    List<String> writes = payloads.stream().filter(p -> TaskPayloads.decodeSpec(p.getBytes(StandardCharsets.UTF_8))
        .getOutput().hasDataFiles()).toList();
    assertThat(writes).isNotEmpty();
    List<String> forbidden = new ArrayList<>(List.of(EmbeddedS3.SECRET_KEY, EmbeddedS3.ACCESS_KEY, "jdbc:",
        stack.deployment.catalog().catalogFile().toString()));
    stack.deployment.catalog().catalogProperties().forEach((k, v) -> {
      if (k.contains("uri") || k.contains("secret") || k.contains("key") || k.contains("token")) {
        forbidden.add(v);
      }
    });
    for (String payload : payloads) {
      TaskSpec spec = TaskPayloads.decodeSpec(payload.getBytes(StandardCharsets.UTF_8));
      String text = payload + "\n" + spec;
      for (String secret : forbidden) {
        assertThat(text).as("a task spec names " + secret).doesNotContain(secret);
      }
      if (spec.getOutput().hasDataFiles()) {
        assertThat(spec.getOutput().getDataFiles().getPropertiesMap().keySet()).allMatch(k -> k.startsWith("write."));
      }
    }
  }
}

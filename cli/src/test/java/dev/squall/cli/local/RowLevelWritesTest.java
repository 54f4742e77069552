package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.coordinator.commit.IcebergCommitter;
import dev.squall.coordinator.job.DriverHooks;
import dev.squall.jobstore.sqlite.SqliteJobStore;
import dev.squall.local.lambda.LambdaHandler;
import dev.squall.proto.TaskPayloads;
import dev.squall.proto.v1.TaskSpec;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * DELETE and UPDATE through the whole local stack on TPC-H orders (SF 0.01) copied into Iceberg tables of
 * format v2 (position delete files) and v3 (deletion vectors), unpartitioned and partitioned.
 * After every statement the table equals a DuckDB table that went through the same statements,
 * both as Squall reads it and as Iceberg's own reader ({@link IcebergGenerics}) does; the answer's
 * row count equals DuckDB's. The write faults of INSERT are repeated for DELETE: each leaves one
 * new snapshot or none and no file of the job outside the table.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RowLevelWritesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String JSON_TYPE = "application/json";
  /** Several scan and writer tasks per job. */
  /** Small tasks, and the planned writer tasks kept (adaptive coalescing off): several tasks write. */
  private static final Map<String, String> SMALL_TASKS = Map.of("target_split_size_bytes", "65536",
      "target_bytes_per_task", "65536", "adaptive_target_partition_bytes", "0");
  private static final String COLUMNS = "o_orderkey, o_custkey, o_orderstatus, o_totalprice, o_orderdate";

  /**
   * "failOnce": the first writer task (partition 0) of each job crashes once; "runTwice": it
   * finishes, its answer is lost and it runs again. Set only around the statement under test.
   */
  private volatile String writerFault = "";
  private final Set<String> faultedJobs = ConcurrentHashMap.newKeySet();
  private volatile String coordinatorFault = "";
  /** The table the "concurrentInsert" fault inserts into. */
  private volatile String conflictTable = "d_conflict";
  /** The orders the "concurrentInsert" fault inserts (a condition on orders). */
  private volatile String conflictRows = CONFLICT_ROWS;
  private static final String CONFLICT_ROWS = "o_orderkey < 100";
  private final AtomicBoolean coordinatorFaultDone = new AtomicBoolean();
  private TestStack stack;
  private EndToEndQueries queries;

  private static final class CoordinatorCrash extends Error {
    CoordinatorCrash(String message) {
      super(message);
    }
  }

  private LambdaHandler inject(LambdaHandler real) {
    return (payload, ctx) -> {
      TaskSpec spec = TaskPayloads.decodeSpec(payload);
      boolean writer = spec.getOutput().hasDeleteFiles() || spec.getOutput().hasDataFiles();
      if (writer && spec.getPartition() == 0 && writerFault.equals("failOnce")
          && faultedJobs.add(spec.getJobId())) {
        throw new IllegalStateException("injected crash of delete writer task " + spec.getStageId() + ".0");
      }
      if (writer && spec.getPartition() == 0 && writerFault.equals("runTwice")
          && faultedJobs.add(spec.getJobId())) {
        // The attempt writes its files and finishes, but the coordinator hears of a failure and
        // runs the task again: two attempts with files, one winner.
        real.handle(payload, ctx);
        throw new IllegalStateException("injected lost answer of delete writer task " + spec.getStageId() + ".0");
      }
      return real.handle(payload, ctx);
    };
  }

  private final DriverHooks hooks = new DriverHooks() {
    @Override
    public void committed(String jobId) {
      if (coordinatorFault.equals("dieAfterCommit") && coordinatorFaultDone.compareAndSet(false, true)) {
        throw new CoordinatorCrash("injected coordinator crash after the commit of job " + jobId);
      }
    }

    @Override
    public void finalizing(String jobId) {
      if (coordinatorFault.equals("concurrentInsert") && coordinatorFaultDone.compareAndSet(false, true)) {
        try {
          HttpResponse<byte[]> other = stack.post("insert into tpch." + conflictTable + " select " + COLUMNS
              + " from tpch.orders where " + conflictRows, Map.of(), JSON_TYPE);
          assertThat(other.statusCode()).as(new String(other.body(), StandardCharsets.UTF_8)).isEqualTo(200);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
    }
  };

  @BeforeAll
  void start() throws Exception {
    stack = TestStack.startWith(0.01, 5_000, o -> o.withTaskHandlerWrapper(this::inject)
        .withJobStore(SqliteJobStore.temporary(Duration.ofDays(1)))
        .withCoordinatorHooks(hooks)
        .withSweepInterval(Duration.ZERO)
        .withJobSettings(dev.squall.coordinator.job.JobSettings.defaults().withSyncWait(Duration.ofMinutes(10))
            .withLease(Duration.ofSeconds(2))));
    queries = new EndToEndQueries(stack, stack.duckDb());
  }

  @AfterAll
  void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
  }

  private Catalog catalog() {
    return stack.deployment.catalog().catalog();
  }

  private JsonNode run(String sql) throws Exception {
    return queries.run(sql, SMALL_TASKS);
  }

  private static long rows(JsonNode answer) {
    return answer.at("/rows/0/0").asLong();
  }

  private List<List<Object>> squallRows(String sql) throws Exception {
    return queries.squallRows(sql);
  }

  private List<List<Object>> duckRows(String sql) throws Exception {
    return queries.duckRows(sql);
  }

  private long duckUpdate(String sql) throws Exception {
    return queries.duckUpdate(sql);
  }

  /** Creates the Iceberg table {@code tpch.<name>} and DuckDB's {@code <name>} with the same orders rows. */
  private void createOrders(String name, int formatVersion, String partitioning) throws Exception {
    run("create table tpch." + name + " (o_orderkey bigint, o_custkey bigint, o_orderstatus varchar, "
        + "o_totalprice decimal(15, 2), o_orderdate date) with (format_version = " + formatVersion
        + (partitioning.isEmpty() ? "" : ", partitioning = ARRAY[" + partitioning + "]") + ")");
    run("insert into tpch." + name + " select " + COLUMNS + " from tpch.orders");
    duckUpdate("create or replace table " + name + " as select " + COLUMNS + " from orders");
  }

  /** Runs a DELETE on both, checks the answer and the table's rows (Squall's and Iceberg's reader). */
  private String deleteOnBoth(String name, String where) throws Exception {
    String jobId = statementOnBoth(name, "delete from {t} " + where);
    assertSameRows(name);
    return jobId;
  }

  /**
   * Runs a row-level statement on both, {@code {t}} standing for the table, and checks the answer
   * (the rows it changed); returns the job id.
   */
  private String statementOnBoth(String name, String sql) throws Exception {
    JsonNode answer = run(sql.replace("{t}", "tpch." + name));
    long expected = duckUpdate(sql.replace("tpch.", "").replace("{t}", name));
    assertThat(rows(answer)).as(sql).isEqualTo(expected);
    return answer.get("queryId").asText();
  }

  private void assertSameRows(String name) throws Exception {
    List<List<Object>> expected = duckRows("select " + COLUMNS + " from " + name);
    assertThat(ResultRows.difference(squallRows("select " + COLUMNS + " from tpch." + name), expected, false)).isNull();
    List<Long> keys = new ArrayList<>();
    Table table = catalog().loadTable(TableIdentifier.of("tpch", name));
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).select("o_orderkey").build()) {
      for (Record r : records) {
        keys.add((Long) r.getField("o_orderkey"));
      }
    }
    List<Long> duckKeys = new ArrayList<>();
    duckRows("select o_orderkey from " + name).forEach(r -> duckKeys.add(((Number) r.get(0)).longValue()));
    assertThat(keys).as("rows Iceberg's reader sees").containsExactlyInAnyOrderElementsOf(duckKeys);
  }

  private void deleteSeries(String name) throws Exception {
    // First, while no file has deletes: a year-partitioned table drops its 1992 files by metadata.
    deleteOnBoth(name, "where o_orderdate < date '1993-01-01'");
    deleteOnBoth(name, "where o_orderkey % 7 = 0");
    // Again on the same data files: v3 merges the earlier vectors into the new ones.
    deleteOnBoth(name, "where o_orderstatus = 'F' and o_totalprice < 100000");
    deleteOnBoth(name, "as o where o.o_custkey in (select c_custkey from tpch.customer where c_nationkey = 3)");
    deleteOnBoth(name, "where o_orderkey = -1");
  }

  private List<Snapshot> snapshotsOf(String name) {
    Table t = catalog().loadTable(TableIdentifier.of("tpch", name));
    List<Snapshot> all = new ArrayList<>();
    t.snapshots().forEach(all::add);
    return all;
  }

  private static long snapshotsOfJob(List<Snapshot> snapshots, String jobId) {
    return snapshots.stream().filter(s -> jobId.equals(s.summary().get(IcebergCommitter.JOB_ID_PROPERTY))).count();
  }

  /** Keys of files the job wrote (data or delete files), anywhere in the warehouse. */
  private List<String> filesOfJob(String jobId) {
    try (S3Client s3 = stack.deployment.s3().newClient()) {
      return s3.listObjectsV2Paginator(b -> b.bucket(LocalDeployment.WAREHOUSE_BUCKET)).contents().stream()
          .map(S3Object::key).filter(k -> k.contains("/squall-" + jobId + "-")).toList();
    }
  }

  /** Keys of the delete and data files the job's snapshot added. */
  private List<String> committedFilesOfJob(String name, String jobId) {
    Table t = catalog().loadTable(TableIdentifier.of("tpch", name));
    Set<String> files = new TreeSet<>();
    java.util.function.Function<String, String> key = location -> location.substring(location.indexOf(
        LocalDeployment.WAREHOUSE_BUCKET) + LocalDeployment.WAREHOUSE_BUCKET.length() + 1);
    for (Snapshot s : t.snapshots()) {
      if (jobId.equals(s.summary().get(IcebergCommitter.JOB_ID_PROPERTY))) {
        s.addedDeleteFiles(t.io()).forEach(f -> files.add(key.apply(f.location())));
        s.addedDataFiles(t.io()).forEach(f -> files.add(key.apply(f.location())));
      }
    }
    return List.copyOf(files);
  }

  private List<String> filesLeftBy(String jobId, Duration timeout) throws InterruptedException {
    long until = System.nanoTime() + timeout.toNanos();
    while (true) {
      List<String> left = filesOfJob(jobId);
      if (left.isEmpty() || System.nanoTime() > until) {
        return left;
      }
      Thread.sleep(50);
    }
  }

  @Test
  void deletesOnAnUnpartitionedV2TableWritePositionDeleteFilesAndEqualDuckDb() throws Exception {
    createOrders("d_v2", 2, "");
    deleteSeries("d_v2");
    Table t = catalog().loadTable(TableIdentifier.of("tpch", "d_v2"));
    List<DeleteFile> deletes = deleteFiles(t);
    assertThat(deletes).isNotEmpty().allMatch(d -> d.format() == FileFormat.PARQUET);
  }

  @Test
  void deletesOnAPartitionedV3TableWriteOneDeletionVectorPerDataFileAndEqualDuckDb() throws Exception {
    createOrders("d_v3p", 3, "'year(o_orderdate)'");
    long filesBefore = dataFileCount("d_v3p");
    deleteSeries("d_v3p");
    Table t = catalog().loadTable(TableIdentifier.of("tpch", "d_v3p"));
    List<DeleteFile> deletes = deleteFiles(t);
    assertThat(deletes).isNotEmpty().allMatch(d -> d.format() == FileFormat.PUFFIN);
    // At most one vector per data file, although two statements deleted rows of the same files.
    assertThat(deletes.stream().map(DeleteFile::referencedDataFile).distinct().count()).isEqualTo(deletes.size());
    // The 1992 partition was removed whole by metadata, without a delete file.
    assertThat(dataFileCount("d_v3p")).isLessThan(filesBefore);
  }

  @Test
  void deletesOnAPartitionedV2TableEqualDuckDb() throws Exception {
    createOrders("d_v2p", 2, "'o_orderstatus'");
    deleteSeries("d_v2p");
  }

  /** Runs an UPDATE on both, checks the answer and the table's rows (Squall's and Iceberg's reader). */
  private void updateOnBoth(String name, String rest) throws Exception {
    statementOnBoth(name, "update {t} " + rest);
    assertSameRows(name);
  }

  @Test
  void updatesOnAPartitionedV2TableAndAnUnpartitionedV3TableEqualDuckDb() throws Exception {
    for (String[] table : new String[][] {{"u_v2p", "2", "'o_orderstatus'"}, {"u_v3", "3", ""}}) {
      String name = table[0];
      createOrders(name, Integer.parseInt(table[1]), table[2]);
      // Moves rows to another partition of the partitioned table.
      updateOnBoth(name, "set o_totalprice = o_totalprice + 1, o_orderstatus = 'X' where o_orderkey % 11 = 0");
      // The same rows again: their new data files get deletes of their own.
      updateOnBoth(name, "as o set o_custkey = o.o_custkey + 100000 where o.o_orderstatus = 'X' and o_orderkey % 2 = 0");
      updateOnBoth(name, "set o_orderdate = date '2000-01-01' where o_custkey in (select c_custkey from tpch.customer"
          + " where c_nationkey = 7)");
      deleteOnBoth(name, "where o_orderstatus = 'X' and o_orderkey % 3 = 0");
    }
  }

  @Test
  void deleteOfAWholeTableByMetadataRunsNoWriterTaskAndLeavesItEmpty() throws Exception {
    createOrders("d_all", 2, "");
    deleteOnBoth("d_all", "");
    assertThat(dataFileCount("d_all")).isZero();
  }

  @Test
  void deleteWithAWriterTaskFailingOnceLeavesOneSnapshotAndNoStrayFiles() throws Exception {
    createOrders("d_once", 3, "");
    writerFault = "failOnce";
    String jobId;
    try {
      jobId = deleteOnBoth("d_once", "where o_orderkey % 5 = 1");
    } finally {
      writerFault = "";
    }
    assertThat(faultedJobs).contains(jobId);
    assertThat(snapshotsOfJob(snapshotsOf("d_once"), jobId)).isEqualTo(1);
    assertThat(filesLeftBy(jobId, Duration.ofSeconds(0)).stream().sorted().toList())
        .isEqualTo(committedFilesOfJob("d_once", jobId));
  }

  @Test
  void deleteWhoseCoordinatorDiedAfterTheCommitIsFinishedWithoutASecondSnapshot() throws Exception {
    createOrders("d_rerun", 2, "");
    int before = snapshotsOf("d_rerun").size();
    coordinatorFault = "dieAfterCommit";
    coordinatorFaultDone.set(false);
    String jobId;
    JsonNode status;
    try {
      jobId = stack.submitAsync("delete from tpch.d_rerun where o_orderkey % 3 = 0", SMALL_TASKS);
      status = stack.awaitTerminal(jobId, Duration.ofMinutes(2));
    } finally {
      coordinatorFault = "";
    }
    assertThat(coordinatorFaultDone.get()).isTrue();
    assertThat(status.get("state").asText()).as(status.toString()).isEqualTo("SUCCEEDED");
    long expected = duckUpdate("delete from d_rerun where o_orderkey % 3 = 0");
    assertThat(snapshotsOf("d_rerun")).hasSize(before + 1);
    assertThat(snapshotsOfJob(snapshotsOf("d_rerun"), jobId)).isEqualTo(1);
    HttpResponse<byte[]> result = stack.send("GET", "/v1/queries/" + jobId + "/result", JSON_TYPE);
    assertThat(rows(JSON.readTree(result.body()))).isEqualTo(expected);
    assertSameRows("d_rerun");
  }

  @Test
  void deleteMeetingAConflictingCommitDuringFinalizingFailsCleanly() throws Exception {
    createOrders("d_conflict", 2, "");
    assertFailsOnAConcurrentInsert("d_conflict", "delete from {t} where o_orderkey % 2 = 0");
  }

  @Test
  void deleteFromAMissingTableOrByAnUnknownColumnIsRefusedWithItsPosition() throws Exception {
    HttpResponse<byte[]> r = stack.post("delete from tpch.no_such_table where x = 1", Map.of(), JSON_TYPE);
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(r.body()).at("/error/message").asText()).contains("no_such_table");
    createOrders("d_errors", 2, "");
    r = stack.post("delete from tpch.d_errors\nwhere o_nosuch = 1", Map.of(), JSON_TYPE);
    assertThat(r.statusCode()).isEqualTo(400);
    JsonNode error = JSON.readTree(r.body()).get("error");
    assertThat(error.get("message").asText()).contains("o_nosuch");
    assertThat(error.get("line").asInt()).isEqualTo(2);
    assertThat(error.get("column").asInt()).isEqualTo(7);
    run("create table tpch.d_v1 (k bigint) with (format_version = 1)");
    r = stack.post("delete from tpch.d_v1 where k = 1", Map.of(), JSON_TYPE);
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(r.body()).at("/error/message").asText()).contains("format version 2");
  }

  private long dataFileCount(String name) throws Exception {
    Table t = catalog().loadTable(TableIdentifier.of("tpch", name));
    if (t.currentSnapshot() == null) {
      return 0;
    }
    long n = 0;
    try (CloseableIterable<FileScanTask> tasks = t.newScan().planFiles()) {
      for (FileScanTask ignored : tasks) {
        n++;
      }
    }
    return n;
  }

  private static List<DeleteFile> deleteFiles(Table t) throws Exception {
    List<DeleteFile> all = new ArrayList<>();
    Set<String> seen = new TreeSet<>();
    try (CloseableIterable<FileScanTask> tasks = t.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        for (DeleteFile d : task.deletes()) {
          if (seen.add(d.location() + "#" + d.referencedDataFile() + "#" + d.contentOffset())) {
            all.add(d);
          }
        }
      }
    }
    return all;
  }
  /** Deletes matched rows, updates others, inserts source rows without a match. */
  private static final String MERGE_ALL_CLAUSES = "merge into {t} t using (select o_orderkey k, o_totalprice p"
      + " from tpch.orders where o_orderkey % 5 = 0 union all select o_orderkey + 1000000, o_totalprice"
      + " from tpch.orders where o_orderkey % 97 = 0) s on t.o_orderkey = s.k"
      + " when matched and s.p > 200000 then delete"
      + " when matched then update set o_totalprice = t.o_totalprice + 1, o_orderstatus = 'M'"
      + " when not matched and s.k % 2 = 0 then insert (o_orderkey, o_custkey, o_orderstatus, o_totalprice,"
      + " o_orderdate) values (s.k, 1, 'N', s.p, date '2001-01-01')";

  private static final String[] MERGES = {
    MERGE_ALL_CLAUSES,
    // Matched clauses only (an inner join); the rows merged above again.
    "merge into {t} as t using tpch.customer c on t.o_custkey = c.c_custkey and c.c_nationkey in (5, 6)"
        + " when matched and t.o_orderstatus = 'F' then delete"
        + " when matched then update set o_orderdate = date '1999-12-31', o_custkey = c.c_custkey + 7",
    // Inserts only, every column in the table's order.
    "merge into {t} t using (select c_custkey k from tpch.customer where c_custkey % 50 = 0) s"
        + " on t.o_orderkey = s.k + 10000000"
        + " when not matched then insert values (s.k + 10000000, s.k, 'I', 1.5, date '2002-02-02')",
  };

  @Test
  void mergesOnAnUnpartitionedV2AndAPartitionedV3TableEqualDuckDb() throws Exception {
    for (String[] table : new String[][] {{"m_v2", "2", ""}, {"m_v3p", "3", "'year(o_orderdate)'"}}) {
      String name = table[0];
      createOrders(name, Integer.parseInt(table[1]), table[2]);
      for (String merge : MERGES) {
        statementOnBoth(name, merge);
      }
      // Each answer was checked; the rows once after the series (every statement's effect persists).
      assertSameRows(name);
      List<DeleteFile> deletes = deleteFiles(catalog().loadTable(TableIdentifier.of("tpch", name)));
      assertThat(deletes).isNotEmpty()
          .allMatch(d -> d.format() == (table[1].equals("2") ? FileFormat.PARQUET : FileFormat.PUFFIN));
    }
  }

  @Test
  void mergeInsertingManyRowsWritesThemFromSeveralWriterTasksAndEqualsDuckDb() throws Exception {
    String name = "m_spread";
    createOrders(name, 2, "");
    // Every source row is new: the MERGE inserts all orders again under new keys and deletes one.
    String jobId = statementOnBoth(name, "merge into {t} t using (select o_orderkey + 10000000 k, o_custkey c,"
        + " o_totalprice p, o_orderdate d from tpch.orders union all select 1, 0, 0, date '2000-01-01') s"
        + " on t.o_orderkey = s.k when matched then delete"
        + " when not matched then insert values (s.k, s.c, 'I', s.p, s.d)");
    // The new data files came from more than one writer task (task partition in their names).
    Set<String> writerTasks = new TreeSet<>();
    Table t = catalog().loadTable(TableIdentifier.of("tpch", name));
    java.util.regex.Pattern task = java.util.regex.Pattern.compile("-s\\d+-p(\\d+)-a\\d+-\\d+\\.parquet$");
    for (Snapshot s : t.snapshots()) {
      if (jobId.equals(s.summary().get(IcebergCommitter.JOB_ID_PROPERTY))) {
        for (DataFile f : s.addedDataFiles(t.io())) {
          java.util.regex.Matcher m = task.matcher(f.location());
          assertThat(m.find()).as(f.location()).isTrue();
          writerTasks.add(m.group(1));
        }
      }
    }
    assertThat(writerTasks).as(committedFilesOfJob(name, jobId).toString()).hasSizeGreaterThan(1);
    assertSameRows(name);
  }

  @Test
  void mergeMatchingATargetRowWithTwoSourceRowsFailsAndCommitsNothing() throws Exception {
    createOrders("m_dup", 2, "");
    int before = snapshotsOf("m_dup").size();
    HttpResponse<byte[]> r = stack.post("merge into tpch.m_dup t using (select o_orderkey k from tpch.orders"
        + " where o_orderkey < 100 union all select 1) s on t.o_orderkey = s.k"
        + " when matched then update set o_custkey = 0", SMALL_TASKS, JSON_TYPE);
    assertThat(r.statusCode()).as(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(400);
    JsonNode body = JSON.readTree(r.body());
    assertThat(body.at("/error/code").asText()).isEqualTo("USER_ERROR");
    assertThat(body.at("/error/message").asText()).contains("matched a target row more than once");
    assertThat(snapshotsOf("m_dup")).hasSize(before);
    assertThat(filesLeftBy(body.get("queryId").asText(), Duration.ofSeconds(10))).isEmpty();
    assertSameRows("m_dup");
  }

  private static final String UPDATE_STATEMENT = "update {t} set o_totalprice = o_totalprice * 2, o_orderstatus = 'U'"
      + " where o_orderkey % 2 = 0";

  @Test
  void updateAndMergeWithAWriterTaskFailingOnceOrRunningTwiceLeaveOneSnapshotAndNoStrayFiles() throws Exception {
    // One statement after the other on two tables; each is checked on its own job.
    createOrders("f_v2", 2, "");
    createOrders("f_v3", 3, "");
    String[][] cases = {{"f_v2", UPDATE_STATEMENT, "failOnce"}, {"f_v2", UPDATE_STATEMENT, "runTwice"},
        {"f_v3", MERGE_ALL_CLAUSES, "failOnce"}, {"f_v3", MERGE_ALL_CLAUSES, "runTwice"},
        {"f_v2", "delete from {t} where o_orderkey % 5 = 1", "runTwice"}};
    for (String[] c : cases) {
      String name = c[0];
      writerFault = c[2];
      String jobId;
      try {
        jobId = statementOnBoth(name, c[1]);
      } finally {
        writerFault = "";
      }
      assertThat(faultedJobs).as(name).contains(jobId);
      assertThat(snapshotsOfJob(snapshotsOf(name), jobId)).as(name).isEqualTo(1);
      assertThat(filesLeftBy(jobId, Duration.ofSeconds(0)).stream().sorted().toList()).as(name)
          .isEqualTo(committedFilesOfJob(name, jobId));
    }
    // No duplicate or lost rows after each table's series.
    assertSameRows("f_v2");
    assertSameRows("f_v3");
  }

  @Test
  void updateAndMergeWhoseCoordinatorDiedAfterTheCommitAreFinishedWithoutASecondSnapshot() throws Exception {
    String name = "um_rerun";
    createOrders(name, 2, "");
    for (String statement : new String[] {UPDATE_STATEMENT, MERGE_ALL_CLAUSES}) {
      int before = snapshotsOf(name).size();
      coordinatorFault = "dieAfterCommit";
      coordinatorFaultDone.set(false);
      String jobId;
      JsonNode status;
      try {
        jobId = stack.submitAsync(statement.replace("{t}", "tpch." + name), SMALL_TASKS);
        status = stack.awaitTerminal(jobId, Duration.ofMinutes(2));
      } finally {
        coordinatorFault = "";
      }
      assertThat(coordinatorFaultDone.get()).isTrue();
      assertThat(status.get("state").asText()).as(status.toString()).isEqualTo("SUCCEEDED");
      long expected = duckUpdate(statement.replace("tpch.", "").replace("{t}", name));
      assertThat(snapshotsOf(name)).hasSize(before + 1);
      HttpResponse<byte[]> result = stack.send("GET", "/v1/queries/" + jobId + "/result", JSON_TYPE);
      assertThat(rows(JSON.readTree(result.body()))).isEqualTo(expected);
      assertSameRows(name);
    }
  }

  @Test
  void updateAndMergeMeetingAConflictingCommitDuringFinalizingFailCleanly() throws Exception {
    String name = "um_conflict";
    createOrders(name, 2, "");
    for (String statement : new String[] {UPDATE_STATEMENT, MERGE_ALL_CLAUSES}) {
      assertFailsOnAConcurrentInsert(name, statement);
    }
  }

  /**
   * Runs the statement ({@code {t}} standing for the table) while another writer inserts rows
   * during its FINALIZING: it fails with a conflict, commits nothing and leaves no file; the table
   * holds the other writer's rows.
   */
  private void assertFailsOnAConcurrentInsert(String name, String statement) throws Exception {
    assertFailsOnAConcurrentInsert(name, statement, CONFLICT_ROWS);
  }

  /** As above, the concurrent insert adding the orders matching {@code rows}. */
  private void assertFailsOnAConcurrentInsert(String name, String statement, String rows) throws Exception {
    HttpResponse<byte[]> r = withConcurrentInsert(name, statement, rows);
    assertThat(coordinatorFaultDone.get()).isTrue();
    assertThat(r.statusCode()).as(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(400);
    JsonNode body = JSON.readTree(r.body());
    assertThat(body.at("/error/code").asText()).isEqualTo("USER_ERROR");
    assertThat(body.at("/error/message").asText()).contains("conflicts with a change another writer committed");
    String jobId = body.get("queryId").asText();
    assertThat(snapshotsOfJob(snapshotsOf(name), jobId)).isZero();
    assertThat(filesLeftBy(jobId, Duration.ofSeconds(10))).isEmpty();
    duckUpdate("insert into " + name + " select " + COLUMNS + " from orders where " + rows);
    assertSameRows(name);
  }

  /** Runs the statement while another writer inserts the orders matching {@code rows} during its FINALIZING. */
  private HttpResponse<byte[]> withConcurrentInsert(String name, String statement, String rows) throws Exception {
    conflictTable = name;
    conflictRows = rows;
    coordinatorFault = "concurrentInsert";
    coordinatorFaultDone.set(false);
    try {
      return stack.post(statement.replace("{t}", "tpch." + name), SMALL_TASKS, JSON_TYPE);
    } finally {
      coordinatorFault = "";
      conflictTable = "d_conflict";
      conflictRows = CONFLICT_ROWS;
      assertThat(coordinatorFaultDone.get()).isTrue();
    }
  }

  @Test
  void deleteAndMergeOfOnePartitionSucceedDespiteAConcurrentInsertIntoAnotherAndFailOnOneIntoTheirs()
      throws Exception {
    String name = "p_conflict";
    createOrders(name, 2, "'year(o_orderdate)'");
    String elsewhere = "o_orderdate >= date '1998-01-01' and o_orderkey < 20000";
    String[] statements = {
      "delete from {t} where o_orderdate < date '1993-01-01' and o_orderkey % 3 = 0",
      // The ON condition's conjunct on the target alone is the conflict filter.
      "merge into {t} t using (select o_orderkey k from tpch.orders where o_orderkey % 5 = 0) s"
          + " on t.o_orderkey = s.k and t.o_orderdate < date '1993-01-01'"
          + " when matched then update set o_orderstatus = 'X'"};
    for (String statement : statements) {
      HttpResponse<byte[]> r = withConcurrentInsert(name, statement, elsewhere);
      assertThat(r.statusCode()).as(statement + ": " + new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(200);
      // Both writes landed: DuckDB applies the insert and the statement (they touch different rows).
      duckUpdate("insert into " + name + " select " + COLUMNS + " from orders where " + elsewhere);
      long expected = duckUpdate(statement.replace("tpch.", "").replace("{t}", name));
      assertThat(rows(JSON.readTree(r.body()))).as(statement).isEqualTo(expected);
      assertSameRows(name);
    }
    // A concurrent insert into the deleted rows' partition still conflicts.
    assertFailsOnAConcurrentInsert(name, statements[0], "o_orderdate < date '1993-01-01' and o_orderkey < 20000");
    assertFailsOnAConcurrentInsert(name, statements[1], "o_orderdate < date '1993-01-01' and o_orderkey < 30000");
  }

  @Test
  void copyOnWriteDeleteUpdateAndMergeRewriteDataFilesWithoutDeleteFilesAndEqualDuckDb() throws Exception {
    for (String[] table : new String[][] {{"c_v2", "2", ""}, {"c_v3p", "3", "'year(o_orderdate)'"}}) {
      String name = table[0];
      createOrders(name, Integer.parseInt(table[1]), table[2]);
      // Merge-on-read first, so that the rewrites meet data files with delete files.
      deleteOnBoth(name, "where o_orderkey % 13 = 0");
      catalog().loadTable(TableIdentifier.of("tpch", name)).updateProperties()
          .set("write.delete.mode", "copy-on-write").set("write.update.mode", "copy-on-write")
          .set("write.merge.mode", "copy-on-write").commit();
      List<String> jobs = new ArrayList<>();
      jobs.add(statementOnBoth(name, "delete from {t} where o_orderkey % 7 = 0"));
      jobs.add(statementOnBoth(name, UPDATE_STATEMENT));
      jobs.add(statementOnBoth(name, MERGE_ALL_CLAUSES));
      Table t = catalog().loadTable(TableIdentifier.of("tpch", name));
      for (Snapshot snapshot : t.snapshots()) {
        if (jobs.contains(snapshot.summary().get(IcebergCommitter.JOB_ID_PROPERTY))) {
          assertThat(snapshot.addedDeleteFiles(t.io())).as(name + " " + snapshot.summary()).isEmpty();
          assertThat(snapshot.removedDataFiles(t.io())).as(name + " " + snapshot.summary()).isNotEmpty();
        }
      }
      // Every data file was rewritten without the rows its delete files deleted.
      assertThat(deleteFiles(t)).as(name).isEmpty();
      // ... and the delete files went with the data files they applied to: none is left live in the
      // table's metadata (as its files table and snapshot summary count them).
      assertThat(t.currentSnapshot().summary()).as(name).containsEntry("total-delete-files", "0")
          .containsEntry("total-position-deletes", "0");
      assertThat(((Number) squallRows("select count(*) from tpch.\"" + name + "$files\" where content <> 0").get(0).get(0))
          .longValue()).as(name).isZero();
      assertSameRows(name);
    }
  }

  /** Runs one statement with a fault; returns its job id once it answered (or ended, for a coordinator fault). */
  private String withFault(String name, String sql, String fault) throws Exception {
    boolean coordinator = fault.equals("dieAfterCommit");
    if (coordinator) {
      coordinatorFault = fault;
      coordinatorFaultDone.set(false);
    } else {
      writerFault = fault;
    }
    try {
      if (!coordinator) {
        return run(sql.replace("{t}", "tpch." + name)).get("queryId").asText();
      }
      String jobId = stack.submitAsync(sql.replace("{t}", "tpch." + name), SMALL_TASKS);
      JsonNode status = stack.awaitTerminal(jobId, Duration.ofMinutes(2));
      assertThat(coordinatorFaultDone.get()).isTrue();
      assertThat(status.get("state").asText()).as(status.toString()).isEqualTo("SUCCEEDED");
      return jobId;
    } finally {
      writerFault = "";
      coordinatorFault = "";
    }
  }

  /** One new snapshot by the job, and of the job's files only those it committed are left. */
  private void assertOneSnapshotAndNoStrayFiles(String name, String jobId, int snapshotsBefore, String fault)
      throws Exception {
    if (!fault.equals("dieAfterCommit")) {
      assertThat(faultedJobs).as(fault).contains(jobId);
    }
    assertThat(snapshotsOf(name)).as(fault).hasSize(snapshotsBefore + 1);
    assertThat(snapshotsOfJob(snapshotsOf(name), jobId)).as(fault).isEqualTo(1);
    assertThat(filesLeftBy(jobId, Duration.ofSeconds(10)).stream().sorted().toList()).as(fault)
        .isEqualTo(committedFilesOfJob(name, jobId));
  }

  @Test
  void copyOnWriteStatementsWithWriterAndCoordinatorFaultsLeaveOneSnapshotAndNoStrayFiles() throws Exception {
    String name = "cw_faults";
    createOrders(name, 2, "");
    catalog().loadTable(TableIdentifier.of("tpch", name)).updateProperties()
        .set("write.delete.mode", "copy-on-write").set("write.update.mode", "copy-on-write")
        .set("write.merge.mode", "copy-on-write").commit();
    String[][] cases = {{"delete from {t} where o_orderkey % 5 = 1", "failOnce"}, {UPDATE_STATEMENT, "runTwice"},
        {MERGE_ALL_CLAUSES, "dieAfterCommit"}};
    for (String[] c : cases) {
      int before = snapshotsOf(name).size();
      String jobId = withFault(name, c[0], c[1]);
      // The answer of each statement was the rows DuckDB changes with it.
      long expected = duckUpdate(c[0].replace("tpch.", "").replace("{t}", name));
      HttpResponse<byte[]> result = stack.send("GET", "/v1/queries/" + jobId + "/result", JSON_TYPE);
      assertThat(rows(JSON.readTree(result.body()))).as(c[1]).isEqualTo(expected);
      assertOneSnapshotAndNoStrayFiles(name, jobId, before, c[1]);
      assertThat(snapshotsOf(name).get(snapshotsOf(name).size() - 1).summary()).as(c[1])
          .doesNotContainKey("added-delete-files");
      assertSameRows(name);
    }
    // A concurrent commit of rows the DELETE's condition matches: a clean failure, nothing left.
    assertFailsOnAConcurrentInsert(name, "delete from {t} where o_orderkey % 2 = 0");
  }

  @Test
  void optimizeWithWriterAndCoordinatorFaultsLeavesOneSnapshotAndNoStrayFiles() throws Exception {
    String name = "opt_faults";
    createOrders(name, 2, "'o_orderstatus'");
    int k = 0;
    for (String fault : new String[] {"failOnce", "runTwice", "dieAfterCommit"}) {
      // New small files in every partition, so that there is something to rewrite each time.
      String insert = "insert into {t} select " + COLUMNS + " from tpch.orders where o_orderkey % 4 = " + k++;
      run(insert.replace("{t}", "tpch." + name));
      duckUpdate(insert.replace("tpch.", "").replace("{t}", name));
      int before = snapshotsOf(name).size();
      String jobId = withFault(name, "alter table {t} execute optimize", fault);
      Table t = catalog().loadTable(TableIdentifier.of("tpch", name));
      assertThat(t.currentSnapshot().operation()).as(fault).isEqualTo("replace");
      assertOneSnapshotAndNoStrayFiles(name, jobId, before, fault);
      // One data file per partition value after the rewrite, no row lost or repeated.
      long partitions = ((Number) duckRows("select count(distinct o_orderstatus) from " + name).get(0).get(0))
          .longValue();
      assertThat(dataFileCount(name)).as(fault).isEqualTo(partitions);
      assertSameRows(name);
    }
  }
}

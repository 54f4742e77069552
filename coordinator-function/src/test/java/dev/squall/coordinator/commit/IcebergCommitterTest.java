package dev.squall.coordinator.commit;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.squall.local.catalog.LocalCatalog;
import dev.squall.local.s3.EmbeddedS3;
import dev.squall.planner.DistributedPlanner;
import dev.squall.planner.PlannerSettings;
import dev.squall.planner.write.WriteTarget;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The coordinator's commit of a write against the local stack's real JDBC catalog on an
 * embedded S3: one snapshot per job, found again by a re-run; CTAS creates the table with its
 * data or not at all; concurrent writers all survive; uncommitted data files are deleted.
 */
class IcebergCommitterTest {
  private static final String BUCKET = "squall-commit-test";
  private static final Namespace DB = Namespace.of("db");
  private static final PlannerSettings SETTINGS = PlannerSettings.defaults().withDefaultSchema("db");
  private static final Schema EVENTS = new Schema(
      required(1, "id", Types.LongType.get()),
      optional(2, "name", Types.StringType.get()));
  private static final AtomicInteger TABLES = new AtomicInteger();

  private static EmbeddedS3 s3;
  private static LocalCatalog local;
  private static Catalog catalog;

  @BeforeAll
  static void startStack() throws Exception {
    s3 = EmbeddedS3.startTransient(BUCKET);
    local = LocalCatalog.open(s3, null, BUCKET);
    catalog = local.catalog();
    ((SupportsNamespaces) catalog).createNamespace(DB);
  }

  @AfterAll
  static void stopStack() throws Exception {
    local.close();
    s3.close();
  }

  private static String freshName(String prefix) {
    return prefix + TABLES.incrementAndGet();
  }

  private static Table createEvents(String name) {
    return createEvents(catalog, name);
  }

  private static Table createEvents(Catalog on, String name) {
    return on.buildTable(TableIdentifier.of(DB, name), EVENTS)
        .withProperty(TableProperties.COMMIT_NUM_RETRIES, "20")
        .withProperty(TableProperties.COMMIT_MIN_RETRY_WAIT_MS, "10")
        .create();
  }

  /** The write target as the planner gives it to the coordinator. */
  private static WriteTarget plan(Catalog on, String sql) {
    return new DistributedPlanner(on).plan(sql, SETTINGS).write().orElseThrow();
  }

  private static DataFile dataFile(WriteTarget target, String name, long rows, String partitionPath) {
    DataFiles.Builder b = DataFiles.builder(target.spec())
        .withPath(target.location() + "/data/" + name + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(100 + rows)
        .withRecordCount(rows);
    if (partitionPath != null) {
      b.withPartitionPath(partitionPath);
    }
    return b.build();
  }

  private static List<Snapshot> snapshotsOf(Table table, String jobId) {
    List<Snapshot> found = new ArrayList<>();
    table.snapshots().forEach(s -> {
      if (jobId.equals(s.summary().get(IcebergCommitter.JOB_ID_PROPERTY))) {
        found.add(s);
      }
    });
    return found;
  }

  private static List<String> livePaths(Table table) throws IOException {
    List<String> paths = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(t -> paths.add(t.file().location()));
    }
    return paths;
  }

  private static long liveRows(Table table) throws IOException {
    long rows = 0;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask t : tasks) {
        rows += t.file().recordCount();
      }
    }
    return rows;
  }

  private static void writeObject(FileIO io, String path) throws IOException {
    try (OutputStream out = io.newOutputFile(path).createOrOverwrite()) {
      out.write("not really parquet".getBytes(StandardCharsets.UTF_8));
    }
  }

  @Test
  void appendCommitsOnceAndAReRunOfTheJobFindsItsSnapshot() throws IOException {
    String name = freshName("events");
    createEvents(name);
    WriteTarget target = plan(catalog, "insert into " + name + " values (1, 'a')");
    List<DataFile> files = List.of(dataFile(target, "job-1-a", 3, null), dataFile(target, "job-1-b", 4, null));
    IcebergCommitter committer = new IcebergCommitter(catalog);

    CommitOutcome first = committer.commit(target, "job-1", files);
    assertThat(first.alreadyCommitted()).isFalse();
    assertThat(first.rowCount()).isEqualTo(7);

    CommitOutcome rerun = committer.commit(target, "job-1", files);
    assertThat(rerun.alreadyCommitted()).isTrue();
    assertThat(rerun.snapshotId()).isEqualTo(first.snapshotId());
    assertThat(rerun.rowCount()).isEqualTo(7);

    Table table = catalog.loadTable(target.table());
    assertThat(snapshotsOf(table, "job-1")).hasSize(1);
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(first.snapshotId());
    assertThat(livePaths(table)).containsExactlyInAnyOrder(files.get(0).location(), files.get(1).location());
    assertThat(liveRows(table)).isEqualTo(7);
    assertThat(committer.findCommitted(target.table(), "job-1")).map(Snapshot::snapshotId)
        .hasValue(first.snapshotId());
    assertThat(committer.findCommitted(target.table(), "job-2")).isEmpty();
  }

  @Test
  void createTableAsCreatesTheTableWithItsDataAndAReRunCommitsNothing() throws IOException {
    String name = freshName("ctas");
    WriteTarget target = plan(catalog, "create table " + name + " partitioned by (bucket(4, k)) as "
        + "select * from (values (1, 'x'), (2, 'y')) as v(k, s)");
    assertThat(catalog.tableExists(target.table())).as("planning creates nothing").isFalse();
    List<DataFile> files = List.of(dataFile(target, "job-c-0", 5, "k_bucket=0"),
        dataFile(target, "job-c-1", 6, "k_bucket=3"));
    IcebergCommitter committer = new IcebergCommitter(catalog);

    CommitOutcome first = committer.commit(target, "job-c", files);
    assertThat(first.alreadyCommitted()).isFalse();
    assertThat(first.rowCount()).isEqualTo(11);
    Table table = catalog.loadTable(target.table());
    assertThat(table.location()).isEqualTo(target.location());
    assertThat(table.schema().sameSchema(target.schema())).isTrue();
    assertThat(table.spec().compatibleWith(target.spec())).isTrue();
    assertThat(table.spec().fields()).hasSize(1);
    assertThat(snapshotsOf(table, "job-c")).hasSize(1);
    assertThat(liveRows(table)).isEqualTo(11);

    CommitOutcome rerun = committer.commit(target, "job-c", files);
    assertThat(rerun.alreadyCommitted()).isTrue();
    assertThat(rerun.snapshotId()).isEqualTo(first.snapshotId());
    assertThat(rerun.rowCount()).isEqualTo(11);
    table.refresh();
    assertThat(snapshotsOf(table, "job-c")).hasSize(1);
    assertThat(table.snapshots()).hasSize(1);
  }

  @Test
  void anotherWriterCommittingBetweenPlanningAndCommitSurvivesBesideOurSnapshot() throws IOException {
    String name = freshName("shared");
    createEvents(name);
    WriteTarget target = plan(catalog, "insert into " + name + " select 1, 'a'");
    // Another writer, with its own Table object, commits after our planning.
    Table other = catalog.loadTable(target.table());
    DataFile theirs = dataFile(target, "other-writer", 10, null);
    other.newAppend().appendFile(theirs).set(IcebergCommitter.JOB_ID_PROPERTY, "other-job").commit();

    DataFile ours = dataFile(target, "job-s", 2, null);
    CommitOutcome outcome = new IcebergCommitter(catalog).commit(target, "job-s", List.of(ours));
    assertThat(outcome.alreadyCommitted()).isFalse();

    Table table = catalog.loadTable(target.table());
    assertThat(livePaths(table)).containsExactlyInAnyOrder(theirs.location(), ours.location());
    assertThat(snapshotsOf(table, "job-s")).hasSize(1);
    assertThat(snapshotsOf(table, "other-job")).hasSize(1);
    assertThat(snapshotsOf(table, "job-s").get(0).parentId())
        .isEqualTo(snapshotsOf(table, "other-job").get(0).snapshotId());
  }

  @Test
  void concurrentCommitsOfDifferentJobsAllLandOnceThroughIcebergsRetry() throws Exception {
    String name = freshName("busy");
    createEvents(name);
    WriteTarget target = plan(catalog, "insert into " + name + " select 1, 'a'");
    int jobs = 4;
    ExecutorService pool = Executors.newFixedThreadPool(jobs);
    try {
      List<Future<CommitOutcome>> outcomes = new ArrayList<>();
      for (int j = 0; j < jobs; j++) {
        String jobId = "job-p" + j;
        DataFile file = dataFile(target, jobId, j + 1, null);
        // Each job has its own committer and Table object, as separate coordinators would.
        outcomes.add(pool.submit(() -> new IcebergCommitter(catalog).commit(target, jobId, List.of(file))));
      }
      for (Future<CommitOutcome> f : outcomes) {
        assertThat(f.get().alreadyCommitted()).isFalse();
      }
    } finally {
      pool.shutdownNow();
    }
    Table table = catalog.loadTable(target.table());
    for (int j = 0; j < jobs; j++) {
      assertThat(snapshotsOf(table, "job-p" + j)).hasSize(1);
    }
    assertThat(liveRows(table)).isEqualTo(1 + 2 + 3 + 4);
  }

  @Test
  void failedCreateTableAsLeavesNoTableAndALaterRunCanCommit() {
    String name = freshName("failed");
    WriteTarget target = plan(catalog, "create table " + name + " as select 1 as k");
    // A data file that names a partition spec the new table does not have: Iceberg refuses it
    // inside the create transaction, before anything is committed.
    PartitionSpec foreign = PartitionSpec.builderFor(target.schema()).identity("k").withSpecId(7).build();
    DataFile bad = DataFiles.builder(foreign).withPath(target.location() + "/data/bad.parquet")
        .withFormat(FileFormat.PARQUET).withFileSizeInBytes(10).withRecordCount(1)
        .withPartitionPath("k=1").build();
    IcebergCommitter committer = new IcebergCommitter(catalog);

    WriteCommitException e = catchThrowableOfType(WriteCommitException.class,
        () -> committer.commit(target, "job-f", List.of(bad)));
    assertThat(e).isNotNull();
    assertThat(e.outcomeUnknown()).isFalse();
    assertThat(catalog.tableExists(target.table())).isFalse();

    CommitOutcome retry = committer.commit(target, "job-f2", List.of(dataFile(target, "good", 1, null)));
    assertThat(retry.rowCount()).isEqualTo(1);
    assertThat(catalog.tableExists(target.table())).isTrue();
  }

  @Test
  void createTableAsWhoseTableAnotherWriterCreatedIsRefusedWithoutTouchingIt() {
    String name = freshName("raced");
    WriteTarget target = plan(catalog, "create table " + name + " as select cast(1 as bigint) as id");
    createEvents(name);
    WriteCommitException e = catchThrowableOfType(WriteCommitException.class,
        () -> new IcebergCommitter(catalog).commit(target, "job-r", List.of(dataFile(target, "r", 1, null))));
    assertThat(e).isNotNull();
    assertThat(e.outcomeUnknown()).isFalse();
    assertThat(e.getMessage()).contains("already exists");
    assertThat(e.targetConflict()).as("the user's to resolve: a 4xx, not a 502").isTrue();
    assertThat(catalog.loadTable(target.table()).snapshots()).isEmpty();
  }

  @Test
  void commitWhoseAnswerWasLostIsFoundAgainAndNotRepeated() throws Exception {
    try (FaultInjectingJdbcCatalog faulty = new FaultInjectingJdbcCatalog()) {
      faulty.initialize(LocalCatalog.CATALOG_NAME, local.catalogProperties());
      String name = freshName("lost");
      // Only the faulty catalog touches the SQLite file during this test (one writer at a time).
      createEvents(faulty, name);
      WriteTarget target = plan(faulty, "insert into " + name + " select 1, 'a'");
      IcebergCommitter committer = new IcebergCommitter(faulty);

      faulty.failNextCommit(FaultInjectingJdbcCatalog.Fault.UNKNOWN_AFTER_COMMIT);
      CommitOutcome landed = committer.commit(target, "job-l", List.of(dataFile(target, "l", 3, null)));
      assertThat(landed.alreadyCommitted()).isFalse();
      assertThat(landed.rowCount()).isEqualTo(3);
      assertThat(snapshotsOf(faulty.loadTable(target.table()), "job-l")).hasSize(1);

      faulty.failNextCommit(FaultInjectingJdbcCatalog.Fault.UNKNOWN_WITHOUT_COMMIT);
      DataFile next = dataFile(target, "m", 4, null);
      WriteCommitException unknown = catchThrowableOfType(WriteCommitException.class,
          () -> committer.commit(target, "job-m", List.of(next)));
      assertThat(unknown).isNotNull();
      assertThat(unknown.outcomeUnknown()).as("files must be kept").isTrue();
      assertThat(snapshotsOf(faulty.loadTable(target.table()), "job-m")).isEmpty();

      // The coordinator's re-run of the job decides: the commit had not landed, so it commits once.
      CommitOutcome rerun = committer.commit(target, "job-m", List.of(next));
      assertThat(rerun.alreadyCommitted()).isFalse();
      Table table = faulty.loadTable(target.table());
      assertThat(snapshotsOf(table, "job-m")).hasSize(1);
      assertThat(liveRows(table)).isEqualTo(7);
    }
  }

  @Test
  void aCommitErrorThatDoesNotProveARefusalLeavesTheOutcomeUnknownSoTheFilesAreKept() throws Exception {
    try (FaultInjectingJdbcCatalog faulty = new FaultInjectingJdbcCatalog()) {
      faulty.initialize(LocalCatalog.CATALOG_NAME, local.catalogProperties());
      String name = freshName("timeout");
      createEvents(faulty, name);
      WriteTarget target = plan(faulty, "insert into " + name + " select 1, 'a'");
      IcebergCommitter committer = new IcebergCommitter(faulty);
      DataFile file = dataFile(target, "t", 5, null);

      // A read timeout is not a CommitStateUnknownException, but the snapshot could still land
      // after the re-read: the outcome is unknown.
      faulty.failNextCommit(FaultInjectingJdbcCatalog.Fault.TIMEOUT_WITHOUT_COMMIT);
      WriteCommitException timedOut = catchThrowableOfType(WriteCommitException.class,
          () -> committer.commit(target, "job-t", List.of(file)));
      assertThat(timedOut).isNotNull();
      assertThat(timedOut.outcomeUnknown()).as("files must be kept after a timeout").isTrue();

      // A refusal proves nothing was committed: the files may go.
      faulty.failNextCommit(FaultInjectingJdbcCatalog.Fault.REFUSED);
      WriteCommitException refused = catchThrowableOfType(WriteCommitException.class,
          () -> committer.commit(target, "job-t", List.of(file)));
      assertThat(refused).isNotNull();
      assertThat(refused.outcomeUnknown()).isFalse();
      assertThat(snapshotsOf(faulty.loadTable(target.table()), "job-t")).isEmpty();
    }
  }

  @Test
  void createTableAsWhoseAnswerWasLostIsReportedAsCreated() throws Exception {
    try (FaultInjectingJdbcCatalog faulty = new FaultInjectingJdbcCatalog()) {
      faulty.initialize(LocalCatalog.CATALOG_NAME, local.catalogProperties());
      String name = freshName("lostctas");
      WriteTarget target = plan(faulty, "create table " + name + " as select 'v' as s");
      faulty.failNextCommit(FaultInjectingJdbcCatalog.Fault.UNKNOWN_AFTER_COMMIT);
      CommitOutcome outcome = new IcebergCommitter(faulty).commit(target, "job-lc",
          List.of(dataFile(target, "lc", 2, null)));
      assertThat(outcome.alreadyCommitted()).isFalse();
      assertThat(snapshotsOf(faulty.loadTable(target.table()), "job-lc")).hasSize(1);
    }
  }

  @Test
  void deletingUncommittedFilesRemovesLosersAndNeverACommittedFile() throws IOException {
    String name = freshName("losers");
    Table table = createEvents(name);
    WriteTarget target = plan(catalog, "insert into " + name + " select 1, 'a'");
    DataFile winner = dataFile(target, "job-d-p0-a1", 1, null);
    DataFile loser = dataFile(target, "job-d-p0-a2", 1, null);
    FileIO io = table.io();
    writeObject(io, winner.location());
    writeObject(io, loser.location());
    IcebergCommitter committer = new IcebergCommitter(catalog);
    committer.commit(target, "job-d", List.of(winner));

    int deleted = committer.deleteDataFiles(target, "job-d", List.of(winner.location(), loser.location()));
    assertThat(deleted).isEqualTo(1);
    assertThat(io.newInputFile(loser.location()).exists()).isFalse();
    assertThat(io.newInputFile(winner.location()).exists()).isTrue();
    assertThatThrownBy(() -> committer.deleteDataFiles(target, "job-d", List.of("s3://" + BUCKET + "/elsewhere/x.parquet")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not under the table location");
  }

  @Test
  void deletingTheFilesOfAFailedCreateTableAsNeedsNoTable() throws IOException {
    String name = freshName("nevermade");
    WriteTarget target = plan(catalog, "create table " + name + " as select 1 as k");
    String path = target.location() + "/data/job-n-p0-a1.parquet";
    try (FileIO io = local.newFileIO()) {
      writeObject(io, path);
      assertThat(io.newInputFile(path).exists()).isTrue();
      assertThat(new IcebergCommitter(catalog).deleteDataFiles(target, "job-n", List.of(path))).isEqualTo(1);
      assertThat(io.newInputFile(path).exists()).isFalse();
    }
    assertThat(catalog.tableExists(target.table())).isFalse();
  }
}

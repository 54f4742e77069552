package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.task.write.DataFileTaskWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Clustered partitioned writes and the table procedures (optimize, expire_snapshots,
 * remove_orphan_files) through the whole local stack on TPC-H at SF 0.01. Rows are compared with
 * DuckDB over the same TPC-H data; file counts are read from the table's snapshot manifests.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TableUpkeepTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String JSON_TYPE = "application/json";
  /** Several tasks per stage, so that an unclustered write would spread each partition value over them. */
  private static final Map<String, String> SMALL_TASKS = Map.of("target_split_size_bytes", "1048576",
      "target_bytes_per_task", "1048576", "adaptive_target_partition_bytes", "0");

  /** Many small tasks: each writer task writes files of its own. */
  private static final Map<String, String> TINY_TASKS = Map.of("target_split_size_bytes", "65536",
      "target_bytes_per_task", "65536", "adaptive_target_partition_bytes", "0");

  private TestStack stack;
  private EndToEndQueries queries;
  /** A table one of whose data files another writer deletes while the next job finalizes. */
  private volatile String deleteAFileOfDuringFinalizing = "";

  private final dev.squall.coordinator.job.DriverHooks hooks = new dev.squall.coordinator.job.DriverHooks() {
    @Override
    public void finalizing(String jobId) {
      String name = deleteAFileOfDuringFinalizing;
      if (!name.isEmpty()) {
        deleteAFileOfDuringFinalizing = "";
        Table t = table(name);
        DataFile victim = t.currentSnapshot().addedDataFiles(t.io()).iterator().next();
        t.newDelete().deleteFile(victim).commit();
      }
    }
  };

  @BeforeAll
  void start() throws Exception {
    stack = TestStack.startWith(0.01, 5_000, o -> o.withSweepInterval(Duration.ZERO).withCoordinatorHooks(hooks));
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

  private Table table(String name) {
    Table t = catalog().loadTable(TableIdentifier.parse(name));
    t.refresh();
    return t;
  }

  private JsonNode run(String sql, Map<String, String> properties) throws Exception {
    return queries.run(sql, properties);
  }

  private JsonNode error(String sql, Map<String, String> properties) throws Exception {
    return queries.error(sql, properties);
  }

  private List<List<Object>> squallRows(String sql) throws Exception {
    return queries.squallRows(sql);
  }

  private List<List<Object>> duckRows(String sql) throws Exception {
    return queries.duckRows(sql);
  }

  /** Data files of the table's current snapshot per partition (from its manifests). */
  static Map<String, Integer> filesPerPartition(Table t) throws IOException {
    Map<String, Integer> files = new HashMap<>();
    try (CloseableIterable<FileScanTask> tasks = t.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        files.merge(t.spec().partitionToPath(task.file().partition()), 1, Integer::sum);
      }
    }
    return files;
  }

  private static int filesWithDeletes(Table t) throws IOException {
    int files = 0;
    try (CloseableIterable<FileScanTask> tasks = t.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        files += task.deletes().isEmpty() ? 0 : 1;
      }
    }
    return files;
  }

  private static int dataFiles(Table t) throws IOException {
    return filesPerPartition(t).values().stream().mapToInt(Integer::intValue).sum();
  }

  @Test
  void monthPartitionedCreateTableAsOfLineitemWritesOneFilePerMonthWithTheSourcesRows() throws Exception {
    JsonNode created = run("create table tpch.li_month partitioned by (month(l_shipdate)) as select * from tpch.lineitem",
        SMALL_TASKS);
    long sourceRows = ((Number) duckRows("select count(*) from lineitem").get(0).get(0)).longValue();
    assertThat(created.at("/rows/0/0").asLong()).isEqualTo(sourceRows);
    // The writer stage ran as several tasks, so without clustering each month would get a file per task.
    JsonNode stages = created.at("/summary/stageSummaries");
    JsonNode writer = stages.get(0);
    for (JsonNode stage : stages) {
      writer = stage.get("stageId").asInt() > writer.get("stageId").asInt() ? stage : writer;
    }
    assertThat(writer.get("tasks").asInt()).as(stages.toString()).isGreaterThan(1);

    Map<String, Integer> files = filesPerPartition(table("tpch.li_month"));
    long months = ((Number) duckRows("select count(distinct date_trunc('month', l_shipdate)) from lineitem")
        .get(0).get(0)).longValue();
    assertThat(files).hasSize((int) months);
    assertThat(files.values()).as(files.toString()).allMatch(n -> n == 1);
    assertThat(ResultRows.difference(squallRows(contentsByMonth("tpch.li_month")),
        duckRows(contentsByMonth("lineitem")), false)).isNull();
  }

  @Test
  void monthPartitionedCreateTableAsWithDefaultTaskSizesWritesOneFilePerMonthFromOneWriterTask() throws Exception {
    // Default task sizes: one writer task meets all 83 months; its rows come sorted by month, so it
    // writes each month's file whole before the next.
    JsonNode created = run("create table tpch.li_month1 partitioned by (month(l_shipdate)) as select * from tpch.lineitem",
        Map.of());
    long sourceRows = ((Number) duckRows("select count(*) from lineitem").get(0).get(0)).longValue();
    assertThat(created.at("/rows/0/0").asLong()).isEqualTo(sourceRows);
    Map<String, Integer> files = filesPerPartition(table("tpch.li_month1"));
    long months = ((Number) duckRows("select count(distinct date_trunc('month', l_shipdate)) from lineitem")
        .get(0).get(0)).longValue();
    assertThat(months).isGreaterThan(DataFileTaskWriter.DEFAULT_MAX_OPEN_FILES);
    assertThat(files).hasSize((int) months);
    assertThat(files.values()).as(files.toString()).allMatch(n -> n == 1);
    assertThat(ResultRows.difference(squallRows(contentsByMonth("tpch.li_month1")),
        duckRows(contentsByMonth("lineitem")), false)).isNull();
  }

  @Test
  void optimizeRewritesManySmallFilesIntoFewNearTheTargetSizeWithTheSameRows() throws Exception {
    long rows = smallFileTable("tpch.li_small", "select * from tpch.lineitem");
    Table t = table("tpch.li_small");
    int before = dataFiles(t);
    assertThat(before).isGreaterThanOrEqualTo(100);
    long target = 1L << 20;
    t.updateProperties().set("write.target-file-size-bytes", Long.toString(target)).commit();

    JsonNode optimized = run("alter table tpch.li_small execute optimize(file_size_threshold => '512kB')", Map.of());
    assertThat(optimized.at("/rows/0/0").asText()).startsWith("ALTER TABLE tpch.li_small EXECUTE"
        + " optimize(file_size_threshold => '512kB'): rewrote " + before + " data files into ").endsWith(" (" + rows + " rows)");
    t = table("tpch.li_small");
    assertThat(t.currentSnapshot().operation()).isEqualTo("replace");
    List<Long> sizes = new java.util.ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = t.newScan().planFiles()) {
      tasks.forEach(task -> sizes.add(task.file().fileSizeInBytes()));
    }
    // One writer task rolls at the target as the file is written (compressed), so every file but
    // the last is within half and one and a half times the target.
    assertThat(sizes.size()).as(sizes.toString()).isLessThan(before / 5);
    sizes.sort(null);
    List<Long> rolled = sizes.subList(1, sizes.size());
    assertThat(rolled).as(sizes.toString()).isNotEmpty()
        .allMatch(size -> size >= target / 2 && size <= target * 3 / 2);
    String all = "(select * from lineitem union all select * from lineitem)";
    assertThat(ResultRows.difference(squallRows(contentsByMonth("tpch.li_small")), duckRows(contentsByMonth(all)),
        false)).isNull();
    try (CloseableIterable<org.apache.iceberg.data.Record> records =
        org.apache.iceberg.data.IcebergGenerics.read(t).select("l_orderkey").build()) {
      long count = 0;
      for (org.apache.iceberg.data.Record ignored : records) {
        count++;
      }
      assertThat(count).isEqualTo(rows);
    }
  }

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {2, 3})
  void optimizeAppliesTheDeletesOfTheFilesItRewritesAndRemovesTheDeleteFiles(int formatVersion) throws Exception {
    String name = "tpch.li_deleted_v" + formatVersion;
    String source = "select * from tpch.lineitem where l_orderkey < 3000";
    long rows = smallFileTable(name, source, formatVersion);
    rows -= run("delete from " + name + " where l_linenumber = 1", Map.of()).at("/rows/0/0").asLong();
    Table t = table(name);
    assertThat(filesWithDeletes(t)).isGreaterThan(1);
    // Position delete files (v2) or deletion vectors (v3), as the table's summary counts them.
    long deleteFiles = Long.parseLong(t.currentSnapshot().summary().get("total-delete-files"));
    assertThat(deleteFiles).isPositive();
    assertThat(t.currentSnapshot().summary()).containsKey(formatVersion == 3 ? "added-dvs" : "added-position-delete-files");
    int dataFilesBefore = dataFiles(t);
    t.updateProperties().set("write.target-file-size-bytes", Long.toString(1L << 20)).commit();

    JsonNode optimized = run("alter table " + name + " execute optimize", Map.of());
    t = table(name);
    assertThat(filesWithDeletes(t)).isZero();
    // The delete files went in the rewrite's commit: none is live, whatever it referenced.
    Map<String, String> summary = t.currentSnapshot().summary();
    assertThat(t.currentSnapshot().operation()).isEqualTo("replace");
    assertThat(summary.get("total-delete-files")).isEqualTo("0");
    assertThat(summary.get("total-position-deletes")).isEqualTo("0");
    assertThat(summary.get("removed-delete-files")).isEqualTo(Long.toString(deleteFiles));
    assertThat(liveDeleteFiles(t)).isZero();
    // The answer says what was done, counted independently from the table before and after.
    assertThat(optimized.at("/rows/0/0").asText()).isEqualTo("ALTER TABLE " + name
        + " EXECUTE optimize(file_size_threshold => '100MB'): rewrote " + dataFilesBefore + " data files with "
        + deleteFiles + " delete file" + (deleteFiles == 1 ? "" : "s") + " into " + dataFiles(t) + " data file"
        + (dataFiles(t) == 1 ? "" : "s") + " (" + rows + " rows)");
    String kept = "(select * from lineitem where l_orderkey < 3000 and l_linenumber <> 1)";
    assertThat(ResultRows.difference(squallRows(contentsByMonth(name)),
        duckRows(contentsByMonth("(select * from " + kept + " a union all select * from " + kept + " b)")), false))
        .isNull();
  }

  /** Live delete files of the current snapshot, read from its delete manifests. */
  private static int liveDeleteFiles(Table t) throws IOException {
    int live = 0;
    for (org.apache.iceberg.ManifestFile manifest : t.currentSnapshot().deleteManifests(t.io())) {
      try (var files = org.apache.iceberg.ManifestFiles.readDeleteManifest(manifest, t.io(), t.specs())) {
        for (var ignored : files) {
          live++;
        }
      }
    }
    return live;
  }

  @Test
  void optimizeMeetingAConcurrentDeleteOfARewrittenFileFailsAndLeavesNoFile() throws Exception {
    smallFileTable("tpch.li_race", "select * from tpch.lineitem where l_orderkey < 100");
    Table t = table("tpch.li_race");
    long before = t.currentSnapshot().snapshotId();
    deleteAFileOfDuringFinalizing = "tpch.li_race";
    HttpResponse<byte[]> r = stack.post("alter table tpch.li_race execute optimize", Map.of(), JSON_TYPE);
    assertThat(r.statusCode()).as(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(400);
    JsonNode body = JSON.readTree(r.body());
    assertThat(body.at("/error/code").asText()).isEqualTo("USER_ERROR");
    assertThat(body.at("/error/message").asText()).contains("conflicts with a change another writer committed");
    t = table("tpch.li_race");
    assertThat(t.currentSnapshot().operation()).isEqualTo("delete");
    assertThat(t.currentSnapshot().parentId()).isEqualTo(before);
    String jobId = body.at("/queryId").asText("");
    if (jobId.isEmpty()) {
      jobId = body.at("/error/queryId").asText("");
    }
    String location = t.location() + "/data/";
    var listed = ((org.apache.iceberg.io.SupportsPrefixOperations) t.io()).listPrefix(location);
    List<String> newFiles = new java.util.ArrayList<>();
    java.util.Set<String> known = new java.util.HashSet<>(referencedDataFiles(t));
    for (Snapshot s : t.snapshots()) {
      s.addedDataFiles(t.io()).forEach(f -> known.add(f.location()));
    }
    listed.forEach(f -> {
      if (!known.contains(f.location())) {
        newFiles.add(f.location());
      }
    });
    assertThat(newFiles).as("files of the failed optimize").isEmpty();
  }

  /**
   * A digest of a lineitem table's rows per ship month that any lost, duplicated or changed row
   * alters (the whole table is too large for an inline answer).
   */
  static String contentsByMonth(String table) {
    return "select extract(year from l_shipdate) as y, extract(month from l_shipdate) as m, count(*) as n, sum(l_orderkey * 10 + l_linenumber) as k,"
        + " sum(l_partkey) as p, sum(l_suppkey) as s, sum(l_quantity) as q, sum(l_extendedprice) as e,"
        + " sum(l_discount) as d, sum(l_tax) as t, count(distinct l_comment) as c, min(l_comment) as c1,"
        + " max(l_comment) as c2, count(distinct l_returnflag || l_linestatus || l_shipinstruct || l_shipmode) as f,"
        + " sum(extract(doy from l_commitdate)) as cd, sum(extract(doy from l_receiptdate)) as rd"
        + " from " + table + " group by extract(year from l_shipdate), extract(month from l_shipdate)";
  }

  /**
   * A table of lineitem's columns holding the rows of {@code query} twice, in data files of about
   * 1,000 rows each (written with a target file size of one byte); returns its rows.
   */
  private long smallFileTable(String name, String query) throws Exception {
    return smallFileTable(name, query, 2);
  }

  /** As {@link #smallFileTable(String, String)}, of the given Iceberg format version. */
  private long smallFileTable(String name, String query, int formatVersion) throws Exception {
    run("create table " + name + " as select * from tpch.lineitem where l_orderkey < 0", Map.of());
    table(name).updateProperties().set("write.target-file-size-bytes", "1")
        .set("format-version", Integer.toString(formatVersion)).commit();
    long rows = 0;
    for (int i = 0; i < 2; i++) {
      rows += run("insert into " + name + " " + query, TINY_TASKS).at("/rows/0/0").asLong();
    }
    return rows;
  }

  @Test
  void expireSnapshotsAndRemoveOrphanFilesKeepRetainedSnapshotsAndReferencedAndYoungFiles() throws Exception {
    Map<String, String> noMinimum = Map.of("table_procedure_min_retention", "0s");
    run("create table tpch.upkeep as select * from tpch.nation where n_regionkey = 0", Map.of());
    run("insert into tpch.upkeep select * from tpch.nation where n_regionkey = 1", Map.of());
    Table t = table("tpch.upkeep");
    long old = t.currentSnapshot().snapshotId();
    String oldOrphan = plant(t, "data/stray-old.parquet");
    Thread.sleep(12_000);
    run("insert into tpch.upkeep select * from tpch.nation where n_regionkey = 2", Map.of());
    long retained = table("tpch.upkeep").currentSnapshot().snapshotId();
    run("insert into tpch.upkeep select * from tpch.nation where n_regionkey = 3", Map.of());
    String youngOrphan = plant(t, "data/stray-young.parquet");

    // Trino's minimum retention refuses a short threshold unless the query lowers it.
    JsonNode tooShort = error("alter table tpch.upkeep execute expire_snapshots(retention_threshold => '1d')", Map.of());
    assertThat(tooShort.get("message").asText()).contains("table_procedure_min_retention").contains("7.00d");

    int snapshotsBefore = snapshotCount(table("tpch.upkeep"));
    java.util.Set<String> filesBefore = filesUnder(t);
    JsonNode expiredAnswer = run("alter table tpch.upkeep execute expire_snapshots(retention_threshold => '10s')",
        noMinimum);
    t = table("tpch.upkeep");
    // The answer echoes the threshold as given and says what went, as counted from the table.
    int expiredSnapshots = snapshotsBefore - snapshotCount(t);
    java.util.Set<String> gone = new java.util.HashSet<>(filesBefore);
    gone.removeAll(filesUnder(t));
    assertThat(expiredSnapshots).isPositive();
    assertThat(gone).isNotEmpty();
    assertThat(expiredAnswer.at("/rows/0/0").asText()).endsWith("expire_snapshots(retention_threshold => '10s'): expired "
        + expiredSnapshots + " snapshot" + (expiredSnapshots == 1 ? "" : "s") + " and deleted " + gone.size() + " files");
    assertThat(t.snapshot(old)).isNull();
    assertThat(t.snapshot(retained)).isNotNull();
    assertThat(ResultRows.difference(squallRows("select * from tpch.upkeep for version as of " + retained),
        duckRows("select * from nation where n_regionkey <= 2"), false)).isNull();
    JsonNode expired = error("select * from tpch.upkeep for version as of " + old, Map.of());
    assertThat(expired.get("message").asText()).contains(Long.toString(old));

    List<String> referenced = referencedDataFiles(t);
    filesBefore = filesUnder(t);
    JsonNode removedAnswer = run("alter table tpch.upkeep execute remove_orphan_files(retention_threshold => '10s')",
        noMinimum);
    gone = new java.util.HashSet<>(filesBefore);
    gone.removeAll(filesUnder(t));
    assertThat(gone).contains(oldOrphan.substring(oldOrphan.indexOf("://") + 3));
    assertThat(removedAnswer.at("/rows/0/0").asText()).endsWith("remove_orphan_files(retention_threshold => '10s'):"
        + " removed " + gone.size() + " orphan file" + (gone.size() == 1 ? "" : "s"));
    org.apache.iceberg.io.FileIO io = t.io();
    assertThat(io.newInputFile(oldOrphan).exists()).isFalse();
    assertThat(io.newInputFile(youngOrphan).exists()).isTrue();
    assertThat(referenced).allMatch(f -> io.newInputFile(f).exists());
    assertThat(ResultRows.difference(squallRows("select * from tpch.upkeep"),
        duckRows("select * from nation where n_regionkey <= 3"), false)).isNull();
  }

  @Test
  void expireSnapshotsDeletesTheFilesARetainedRewriteRemovedAndKeepsTimeTravelToRetainedSnapshots()
      throws Exception {
    Map<String, String> noMinimum = Map.of("table_procedure_min_retention", "0s");
    run("create table tpch.expire_rw as select * from tpch.nation where n_regionkey = 0", Map.of());
    run("insert into tpch.expire_rw select * from tpch.nation where n_regionkey = 1", Map.of());
    Table t = table("tpch.expire_rw");
    long created = t.snapshots().iterator().next().snapshotId();
    long inserted = t.currentSnapshot().snapshotId();
    List<String> rewrittenFiles = referencedDataFiles(t);
    assertThat(rewrittenFiles).hasSizeGreaterThan(1);
    run("alter table tpch.expire_rw execute optimize", Map.of());
    long optimized = table("tpch.expire_rw").currentSnapshot().snapshotId();
    run("insert into tpch.expire_rw select * from tpch.nation where n_regionkey = 2", Map.of());
    // Every snapshot is older than a threshold of 0s; the table keeps its last two (optimize's
    // replace and the insert), so the two that added the rewritten files expire.
    t = table("tpch.expire_rw");
    t.updateProperties().set("history.expire.min-snapshots-to-keep", "2").commit();
    java.util.Set<String> filesBefore = filesUnder(t);

    JsonNode answer = run("alter table tpch.expire_rw execute expire_snapshots(retention_threshold => '0s')",
        noMinimum);
    t = table("tpch.expire_rw");
    assertThat(t.snapshot(created)).isNull();
    assertThat(t.snapshot(inserted)).isNull();
    assertThat(t.snapshot(optimized)).isNotNull();
    // The files the retained replace snapshot removed are read by no retained snapshot: deleted.
    org.apache.iceberg.io.FileIO io = t.io();
    assertThat(rewrittenFiles).noneMatch(f -> io.newInputFile(f).exists());
    assertThat(referencedDataFiles(t)).allMatch(f -> io.newInputFile(f).exists());
    java.util.Set<String> gone = new java.util.HashSet<>(filesBefore);
    gone.removeAll(filesUnder(t));
    assertThat(answer.at("/rows/0/0").asText()).endsWith("expire_snapshots(retention_threshold => '0s'): expired"
        + " 2 snapshots and deleted " + gone.size() + " files");
    assertThat(ResultRows.difference(squallRows("select * from tpch.expire_rw for version as of " + optimized),
        duckRows("select * from nation where n_regionkey <= 1"), false)).isNull();
    assertThat(ResultRows.difference(squallRows("select * from tpch.expire_rw"),
        duckRows("select * from nation where n_regionkey <= 2"), false)).isNull();
  }

  @Test
  void malformedAndUnknownProceduresAreRefusedWithTheirPosition() throws Exception {
    JsonNode unknown = error("alter table tpch.nation execute vacuum", Map.of());
    assertThat(unknown.get("message").asText()).contains("'vacuum'");
    assertThat(unknown.get("line").asInt()).isEqualTo(1);
    assertThat(unknown.get("column").asInt()).isEqualTo(33);
    JsonNode malformed = error("alter table tpch.nation\nexecute expire_snapshots(retention_threshold => )", Map.of());
    assertThat(malformed.get("line").asInt()).isEqualTo(2);
    assertThat(malformed.get("column").asInt()).isEqualTo(49);
    JsonNode badArgument = error("alter table tpch.nation execute optimize(threshold => '10MB')", Map.of());
    assertThat(badArgument.get("message").asText()).contains("'threshold'");
    assertThat(badArgument.get("column").asInt()).isEqualTo(42);
  }

  private static List<String> referencedDataFiles(Table t) {
    List<String> files = new java.util.ArrayList<>();
    for (DataFile f : t.currentSnapshot().addedDataFiles(t.io())) {
      files.add(f.location());
    }
    try (CloseableIterable<FileScanTask> tasks = t.newScan().planFiles()) {
      tasks.forEach(task -> files.add(task.file().location()));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return files;
  }

  private static int snapshotCount(Table t) {
    int n = 0;
    for (Snapshot ignored : t.snapshots()) {
      n++;
    }
    return n;
  }

  /** Every file under the table's location, without its scheme. */
  private static java.util.Set<String> filesUnder(Table t) {
    java.util.Set<String> files = new java.util.HashSet<>();
    ((org.apache.iceberg.io.SupportsPrefixOperations) t.io()).listPrefix(t.location() + "/")
        .forEach(f -> files.add(f.location().substring(f.location().indexOf("://") + 3)));
    return files;
  }

  /** Writes a file no metadata references under the table location. */
  private static String plant(Table t, String relative) throws IOException {
    String path = t.location() + "/" + relative;
    try (OutputStream out = t.io().newOutputFile(path).createOrOverwrite()) {
      out.write("not referenced".getBytes(StandardCharsets.UTF_8));
    }
    return path;
  }

  private static final String ORDERS = "o_orderkey, o_custkey, o_orderstatus, o_totalprice, o_orderdate";

  /**
   * Every data file of the table's current snapshot, read whole in file order by Iceberg's own
   * Parquet reader, is in the table's sort order (Iceberg's comparator for it) and says so
   * ({@code sort_order_id}).
   *
   * @return the number of data files
   */
  private static int assertEveryDataFileSorted(Table t) throws IOException {
    org.apache.iceberg.SortOrder order = t.sortOrder();
    assertThat(order.isSorted()).isTrue();
    java.util.Comparator<org.apache.iceberg.StructLike> inOrder =
        org.apache.iceberg.SortOrderComparators.forSchema(t.schema(), order);
    int files = 0;
    try (CloseableIterable<FileScanTask> tasks = t.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        files++;
        assertThat(task.file().sortOrderId()).as(task.file().location()).isEqualTo(order.orderId());
        try (CloseableIterable<org.apache.iceberg.data.Record> rows = org.apache.iceberg.parquet.Parquet
            .read(t.io().newInputFile(task.file().location())).project(t.schema())
            .createReaderFunc(s -> org.apache.iceberg.data.parquet.GenericParquetReaders.buildReader(t.schema(), s))
            .build()) {
          org.apache.iceberg.data.Record previous = null;
          long n = 0;
          for (org.apache.iceberg.data.Record row : rows) {
            if (previous != null) {
              assertThat(inOrder.compare(previous, row)).as(task.file().location() + " row " + n + ": " + previous
                  + " then " + row).isLessThanOrEqualTo(0);
            }
            previous = row.copy();
            n++;
          }
          assertThat(n).isEqualTo(task.file().recordCount());
        }
      }
    }
    return files;
  }

  /** Runs {@code sql} on Squall and on DuckDB, {@code {t}} standing for the table; the answers agree. */
  private void onBoth(String name, String sql) throws Exception {
    JsonNode answer = run(sql.replace("{t}", "tpch." + name), SMALL_TASKS);
    long expected = queries.duckUpdate(sql.replace("tpch.", "").replace("{t}", name));
    assertThat(answer.at("/rows/0/0").asLong()).as(sql).isEqualTo(expected);
  }

  private void assertSameOrders(String name) throws Exception {
    assertThat(ResultRows.difference(squallRows("select " + ORDERS + " from tpch." + name),
        duckRows("select " + ORDERS + " from " + name), false)).isNull();
  }

  @Test
  void everyWriterWritesEachDataFileInTheTablesSortOrder() throws Exception {
    String name = "s_orders";
    run("create table tpch." + name + " (o_orderkey bigint, o_custkey bigint, o_orderstatus varchar,"
        + " o_totalprice decimal(15, 2), o_orderdate date) with (format_version = 2,"
        + " partitioning = ARRAY['year(o_orderdate)'], sorted_by = ARRAY['o_orderstatus', 'o_totalprice DESC'])",
        Map.of());
    String shown = (String) squallRows("show create table tpch." + name).get(0).get(0);
    assertThat(shown).contains("sorted_by = ARRAY['o_orderstatus', 'o_totalprice DESC']");
    queries.duckUpdate("create or replace table " + name + " as select " + ORDERS + " from orders where false");
    onBoth(name, "insert into {t} select " + ORDERS + " from tpch.orders");
    assertThat(assertEveryDataFileSorted(table("tpch." + name))).isGreaterThan(1);
    // Merge-on-read: the updated and inserted rows are new data files, sorted.
    onBoth(name, "update {t} set o_totalprice = o_totalprice + 1 where o_orderkey % 5 = 0");
    onBoth(name, "merge into {t} t using (select o_orderkey + 1000000 k, o_custkey, o_totalprice, o_orderdate"
        + " from tpch.orders where o_orderkey % 3 = 0) s on t.o_orderkey = s.k"
        + " when not matched then insert values (s.k, s.o_custkey, 'N', s.o_totalprice, s.o_orderdate)");
    assertEveryDataFileSorted(table("tpch." + name));
    assertSameOrders(name);
    // Copy-on-write rewrites keep the order; optimize writes it too.
    table("tpch." + name).updateProperties().set("write.delete.mode", "copy-on-write")
        .set("write.update.mode", "copy-on-write").commit();
    onBoth(name, "delete from {t} where o_orderkey % 7 = 0");
    onBoth(name, "update {t} set o_orderstatus = 'U' where o_orderkey % 11 = 0");
    assertEveryDataFileSorted(table("tpch." + name));
    assertSameOrders(name);
    run("alter table tpch." + name + " execute optimize", Map.of());
    assertThat(table("tpch." + name).currentSnapshot().operation()).isEqualTo("replace");
    assertEveryDataFileSorted(table("tpch." + name));
    assertSameOrders(name);
  }

  @Test
  void createTableAsWritesInItsSortOrderAndKeepsOneFilePerMonth() throws Exception {
    run("create table tpch.s_li with (partitioning = ARRAY['month(l_shipdate)'],"
        + " sorted_by = ARRAY['l_partkey', 'l_comment DESC NULLS FIRST']) as select * from tpch.lineitem", SMALL_TASKS);
    Table t = table("tpch.s_li");
    assertThat(t.sortOrder().fields()).hasSize(2);
    long months = ((Number) duckRows("select count(distinct date_trunc('month', l_shipdate)) from lineitem")
        .get(0).get(0)).longValue();
    assertThat(assertEveryDataFileSorted(t)).isEqualTo((int) months);
    assertThat(ResultRows.difference(squallRows(contentsByMonth("tpch.s_li")), duckRows(contentsByMonth("lineitem")),
        false)).isNull();
    // Unpartitioned: each writer task sorts its own rows.
    run("create table tpch.s_unp with (sorted_by = ARRAY['o_totalprice DESC']) as select " + ORDERS
        + " from tpch.orders", SMALL_TASKS);
    assertEveryDataFileSorted(table("tpch.s_unp"));
    assertThat(ResultRows.difference(squallRows("select " + ORDERS + " from tpch.s_unp"),
        duckRows("select " + ORDERS + " from orders"), false)).isNull();
  }

  @Test
  void aSortOrderSetThroughIcebergIsHonouredAndATableWithoutOneIsWrittenAsBefore() throws Exception {
    String name = "s_api";
    run("create table tpch." + name + " (o_orderkey bigint, o_custkey bigint, o_orderstatus varchar,"
        + " o_totalprice decimal(15, 2), o_orderdate date) with (format_version = 2)", Map.of());
    queries.duckUpdate("create or replace table " + name + " as select " + ORDERS + " from orders where false");
    onBoth(name, "insert into {t} select " + ORDERS + " from tpch.orders where o_orderkey % 2 = 0");
    Table t = table("tpch." + name);
    try (CloseableIterable<FileScanTask> tasks = t.newScan().planFiles()) {
      tasks.forEach(task -> assertThat(task.file().sortOrderId()).isZero());
    }
    String explain = squallRows("explain insert into tpch." + name + " select " + ORDERS + " from tpch.orders")
        .toString();
    assertThat(explain).doesNotContainIgnoringCase("sort");

    t.replaceSortOrder().asc("o_custkey").desc("o_orderkey").commit();
    onBoth(name, "insert into {t} select " + ORDERS + " from tpch.orders where o_orderkey % 2 = 1");
    // The files written before the sort order are rewritten sorted by copy-on-write.
    table("tpch." + name).updateProperties().set("write.delete.mode", "copy-on-write").commit();
    onBoth(name, "delete from {t} where o_orderkey % 9 = 0");
    assertEveryDataFileSorted(table("tpch." + name));
    assertSameOrders(name);
  }
}

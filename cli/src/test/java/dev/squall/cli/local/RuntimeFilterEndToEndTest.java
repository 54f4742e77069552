package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Runtime filters through the whole local stack (TPC-H SF 0.01, 1,000 rows a data file, so lineitem
 * has 60 data files of one row group each in order of l_orderkey): a join of lineitem with the orders
 * of one day skips most of lineitem's data files at the coordinator (their key bounds exclude the
 * build keys) and reads a small fraction of its bytes with the filter on, all of them with it off,
 * and answers as DuckDB does both ways; joins where a careless filter would be wrong answer as
 * DuckDB too, and so does a probe table with position deletes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RuntimeFilterEndToEndTest {
  private static final String ARROW = "application/vnd.apache.arrow.stream";
  /** A star join on a filtered dimension: about six orders of one day, scattered over the key range. */
  static final String ONE_DAY = "select count(*) as n, sum(l_extendedprice * (1 - l_discount)) as revenue,"
      + " min(l_orderkey) as lo, max(l_orderkey) as hi"
      + " from tpch.lineitem join tpch.orders on l_orderkey = o_orderkey where o_orderdate = date '1995-03-15'";

  private TestStack stack;
  private Connection duck;

  @BeforeAll
  void start() throws Exception {
    stack = TestStack.startWith(0.01, 1_000, o -> o.withSweepInterval(Duration.ZERO));
    duck = stack.duckDb();
  }

  @AfterAll
  void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
  }

  private static Map<String, String> props(String... kv) {
    Map<String, String> p = new HashMap<>(Map.of("target_split_size_bytes", "65536"));
    for (int i = 0; i < kv.length; i += 2) {
      p.put(kv[i], kv[i + 1]);
    }
    return p;
  }

  /** Runs {@code sql}, checks its answer against DuckDB's, and returns its summary. */
  private JsonNode runAsDuckDb(String sql, Map<String, String> properties) throws Exception {
    return stack.summaryAnsweringAsDuckDb(duck, sql, properties);
  }

  /** What the probe scan's stage did, by the summary's figures of one stage. */
  record ProbeScan(long rowGroupsRead, long rowGroups, long rowGroupsSkipped, long rowsDropped, long filesSkipped,
      long fileBytesSkipped, long bytesScanned, long gets, long bytesGot, long tasks, long wallMillis) {
    static ProbeScan of(JsonNode s) {
      return new ProbeScan(s.path("rowGroupsRead").asLong(), s.path("rowGroups").asLong(),
          s.path("runtimeFilterRowGroupsSkipped").asLong(), s.path("runtimeFilterRowsDropped").asLong(),
          s.path("runtimeFilterFilesSkipped").asLong(), s.path("runtimeFilterFileBytesSkipped").asLong(),
          s.path("bytesScanned").asLong(), s.path("s3").path("get").asLong(), s.path("s3").path("bytesGet").asLong(),
          s.path("tasks").asLong(), s.path("wallMillis").asLong());
    }
  }

  /** The stage that scans the most bytes or skips the most files (the probe scan's). */
  private static ProbeScan probeScan(JsonNode summary) {
    ProbeScan best = null;
    for (JsonNode s : summary.get("stageSummaries")) {
      ProbeScan p = ProbeScan.of(s);
      if (best == null || p.bytesScanned() + p.fileBytesSkipped() > best.bytesScanned() + best.fileBytesSkipped()) {
        best = p;
      }
    }
    return best;
  }

  private void cutsTheProbeScan(Map<String, String> base) throws Exception {
    Map<String, String> off = new HashMap<>(base);
    off.put("runtime_filters", "false");
    ProbeScan unfiltered = probeScan(runAsDuckDb(ONE_DAY, off));
    ProbeScan filtered = probeScan(runAsDuckDb(ONE_DAY, base));
    System.out.printf("runtime filter %s: lineitem data files skipped %d (%d B of splits), row groups read %d of %d"
        + " in the files read (skipped by the filter %d, rows dropped %d), bytes scanned %d, S3 GETs %d (%d B),"
        + " tasks %d, task wall %d ms; off: row groups read %d of %d, bytes scanned %d, S3 GETs %d (%d B),"
        + " tasks %d, task wall %d ms%n", base, filtered.filesSkipped(), filtered.fileBytesSkipped(),
        filtered.rowGroupsRead(), filtered.rowGroups(), filtered.rowGroupsSkipped(), filtered.rowsDropped(),
        filtered.bytesScanned(), filtered.gets(), filtered.bytesGot(), filtered.tasks(), filtered.wallMillis(),
        unfiltered.rowGroupsRead(), unfiltered.rowGroups(), unfiltered.bytesScanned(), unfiltered.gets(),
        unfiltered.bytesGot(), unfiltered.tasks(), unfiltered.wallMillis());
    assertThat(unfiltered.rowGroups()).as("lineitem's row groups").isGreaterThanOrEqualTo(50);
    assertThat(unfiltered.rowGroupsRead()).as("all read without the filter").isEqualTo(unfiltered.rowGroups());
    assertThat(unfiltered.rowGroupsSkipped()).isZero();
    assertThat(unfiltered.filesSkipped()).isZero();
    // lineitem is one data file per row group, in l_orderkey order: the coordinator skips most files.
    assertThat(filtered.filesSkipped()).as("data files skipped").isPositive();
    assertThat(filtered.rowGroupsRead() * 5).as("at least a 5x cut in row groups read").isLessThanOrEqualTo(unfiltered.rowGroupsRead());
    assertThat(filtered.rowGroups() + filtered.filesSkipped()).as("each file skipped or opened").isEqualTo(unfiltered.rowGroups());
    assertThat(filtered.bytesScanned() + filtered.fileBytesSkipped()).isEqualTo(unfiltered.bytesScanned());
    assertThat(filtered.bytesScanned() * 5).as("at least a 5x cut in bytes read").isLessThanOrEqualTo(unfiltered.bytesScanned());
    assertThat(filtered.gets()).as("files skipped are never opened").isLessThan(unfiltered.gets());
  }

  @Test
  void aBroadcastJoinOnAFilteredDimensionReadsAFractionOfTheFactsRowGroups() throws Exception {
    cutsTheProbeScan(props());
  }

  @Test
  void aPartitionedJoinWaitsForItsBuildSideAndReadsAFractionOfTheFactsRowGroups() throws Exception {
    cutsTheProbeScan(props("broadcast_threshold_bytes", "0", "target_bytes_per_task", "1048576"));
  }

  @Test
  void explainAnalyzeShowsTheFilterAndWhatItSaved() throws Exception {
    HttpResponse<byte[]> r = stack.post("EXPLAIN ANALYZE " + ONE_DAY, props(), ARROW);
    assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(200);
    String plan = ResultRows.fromArrow(r.body()).get(0).get(0).toString();
    assertThat(plan).contains("Runtime filters:").contains("runtime filter: skipped row groups=")
        .containsPattern("filter 0: stage \\d+ keys \\[o_orderkey\\] -> stage \\d+ scan tpch\\.lineitem input=\\d+"
            + " columns \\[l_orderkey\\]  \\[scan: skipped files=[1-9]\\d* \\([1-9]\\d*B\\)");
  }

  /**
   * A probe table with position deletes, its data files clustered by the key: files ruled out by
   * their bounds are skipped whatever their deletes, and the files read still apply theirs.
   */
  @Test
  void filesWithPositionDeletesAreSkippedOrReadWithTheirDeletes() throws Exception {
    String columns = "l_orderkey, l_linenumber, l_quantity, l_extendedprice";
    statement("create table tpch.li_deleted (l_orderkey bigint, l_linenumber integer, l_quantity decimal(15, 2),"
        + " l_extendedprice decimal(15, 2)) with (format_version = 2)");
    statement("insert into tpch.li_deleted select " + columns + " from tpch.lineitem");
    duck.createStatement().execute("create table li_deleted as select " + columns + " from lineitem");
    // Rows of the joined orders and rows all over the key range (so skipped files have deletes too).
    String delete = "delete from tpch.li_deleted where l_linenumber = 1 or (l_orderkey % 7 = 0 and l_quantity < 25)";
    statement(delete);
    duck.createStatement().execute(delete.replace("tpch.", ""));
    HttpResponse<byte[]> files = stack.post("select count(*) filter (where content = 0) as data_files,"
        + " count(*) filter (where content = 1) as delete_files from tpch.\"li_deleted$files\"", props(), ARROW);
    assertThat(files.statusCode()).as(new String(files.body())).isEqualTo(200);
    var counts = ResultRows.fromArrow(files.body()).get(0);
    System.out.println("li_deleted: data files and position delete files " + counts);
    assertThat(((Number) counts.get(0)).longValue()).as("data files").isGreaterThanOrEqualTo(10);
    assertThat(((Number) counts.get(1)).longValue()).as("position delete files").isPositive();
    String sql = "select count(*) as n, sum(l_extendedprice) as revenue, min(l_orderkey) as lo, max(l_orderkey) as hi"
        + " from tpch.li_deleted join tpch.orders on l_orderkey = o_orderkey where o_orderdate = date '1995-03-15'";
    // The table's files are within replicated_scan_max_bytes, where orders would be scanned in its
    // tasks instead of filtering them: turned off, so that the filter and the deletes meet.
    JsonNode unfiltered = runAsDuckDb(sql, props("runtime_filters", "false", "replicated_scan_max_bytes", "0"));
    JsonNode filtered = runAsDuckDb(sql, props("replicated_scan_max_bytes", "0"));
    System.out.printf("runtime filter with position deletes: data files skipped %d (%d B), bytes scanned %d;"
        + " off: bytes scanned %d%n", stagesTotal(filtered, "runtimeFilterFilesSkipped"),
        stagesTotal(filtered, "runtimeFilterFileBytesSkipped"), filtered.get("bytesScanned").asLong(),
        unfiltered.get("bytesScanned").asLong());
    assertThat(stagesTotal(filtered, "runtimeFilterFilesSkipped")).as("data files skipped").isPositive();
    assertThat(filtered.get("bytesScanned").asLong()).isLessThan(unfiltered.get("bytesScanned").asLong());
  }

  private static long stagesTotal(JsonNode summary, String field) {
    long total = 0;
    for (JsonNode s : summary.get("stageSummaries")) {
      total += s.path(field).asLong();
    }
    return total;
  }

  private void statement(String sql) throws Exception {
    HttpResponse<byte[]> r = stack.post(sql, props(), ARROW);
    assertThat(r.statusCode()).as(sql + ": " + new String(r.body())).isEqualTo(200);
  }

  @Test
  void joinsWhereACarelessFilterWouldBeWrongAnswerAsDuckDb() throws Exception {
    for (Map<String, String> p : java.util.List.of(props(), props("broadcast_threshold_bytes", "0"))) {
      // The preserved side is the probe side: no filter may drop its rows.
      runAsDuckDb("select count(*) as n, count(o_orderkey) as matched, sum(l_quantity) as q from tpch.lineitem"
          + " left join (select * from tpch.orders where o_orderdate = date '1995-03-15') o on l_orderkey = o_orderkey", p);
      runAsDuckDb("select count(*) as n, count(o_orderkey) as matched from"
          + " (select * from tpch.orders where o_orderdate = date '1995-03-15') o right join tpch.lineitem"
          + " on l_orderkey = o_orderkey", p);
      // NULL build keys never match (and must not widen the filter).
      runAsDuckDb("select count(*) as n, sum(l_quantity) as q from tpch.lineitem join"
          + " (select case when o_orderkey % 3 = 0 then null else o_orderkey end as k from tpch.orders"
          + " where o_orderdate = date '1995-03-15') o on l_orderkey = o.k", p);
      // Semi and anti joins, an empty build side, string and date keys.
      runAsDuckDb("select count(*) as n, sum(l_quantity) as q from tpch.lineitem where l_orderkey in"
          + " (select o_orderkey from tpch.orders where o_orderdate = date '1995-03-15')", p);
      runAsDuckDb("select count(*) as n from tpch.lineitem where l_orderkey not in"
          + " (select o_orderkey from tpch.orders where o_orderdate = date '1995-03-15')", p);
      runAsDuckDb("select count(*) as n from tpch.lineitem join tpch.orders on l_orderkey = o_orderkey"
          + " where o_orderdate = date '2100-01-01'", p);
      runAsDuckDb("select count(*) as n, sum(c_acctbal) as b from tpch.customer join tpch.nation on c_nationkey = n_nationkey"
          + " where n_name = 'FRANCE'", p);
      runAsDuckDb("select count(*) as n from tpch.lineitem join"
          + " (select o_orderdate as d from tpch.orders where o_orderkey < 100) o on l_shipdate = o.d", p);
      runAsDuckDb("select count(*) as n from tpch.partsupp join (select p_retailprice from tpch.part where p_size < 5) pr"
          + " on ps_supplycost = pr.p_retailprice", p);
      runAsDuckDb("select count(*) as n, sum(ps_availqty) as q from tpch.partsupp join tpch.part on ps_partkey = p_partkey"
          + " where p_brand = 'Brand#23' and p_container = 'MED BOX'", p);
      runAsDuckDb("select count(*) as n from tpch.lineitem join"
          + " (select o_orderstatus as s, o_orderkey as k from tpch.orders where o_orderdate = date '1995-03-15') o"
          + " on l_linestatus = o.s and l_orderkey = o.k", p);
    }
  }
}

package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.local.lambda.LambdaHandler;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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

/**
 * Metadata statements, DDL and time travel through the whole local stack. Answers are checked
 * against DuckDB: over the TPC-H data files for metadata and time travel, and, for DDL, against
 * the same sequence of statements run in DuckDB's own tables.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SqlSurfaceTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ARROW = "application/vnd.apache.arrow.stream";
  private static final String JSON_TYPE = "application/json";
  /** Other tests of this class add tables to tpch. */
  private static final String TPCH_TABLES =
      "'customer', 'lineitem', 'nation', 'orders', 'part', 'partsupp', 'region', 'supplier'";
  private TestStack stack;
  private Connection duck;
  /** While set, every task waits for it (a query held in RUNNING). */
  private volatile CountDownLatch hold;

  private LambdaHandler holding(LambdaHandler real) {
    return (payload, ctx) -> {
      CountDownLatch h = hold;
      if (h != null) {
        h.await(60, TimeUnit.SECONDS);
      }
      return real.handle(payload, ctx);
    };
  }

  @BeforeAll
  void start() throws Exception {
    stack = TestStack.start(0.01, 5_000, this::holding);
    duck = stack.duckDb();
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

  private List<List<Object>> squall(String sql) throws Exception {
    HttpResponse<byte[]> r = stack.post(sql, Map.of(), ARROW);
    assertThat(r.statusCode()).as(sql + " → " + new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(200);
    return ResultRows.fromArrow(r.body());
  }

  private static List<List<Object>> rows(Connection c, String sql) throws Exception {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      return ResultRows.fromJdbc(rs);
    }
  }

  private List<List<Object>> duckRows(String sql) throws Exception {
    return rows(duck, sql);
  }

  private static void assertSame(List<List<Object>> actual, List<List<Object>> expected, boolean ordered) {
    assertThat(ResultRows.difference(actual, expected, ordered)).isNull();
  }

  private JsonNode error(String sql) throws Exception {
    HttpResponse<byte[]> r = stack.post(sql, Map.of(), JSON_TYPE);
    assertThat(r.statusCode()).as(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(400);
    JsonNode e = JSON.readTree(r.body()).get("error");
    assertThat(e.get("code").asText()).isEqualTo("USER_ERROR");
    return e;
  }

  private static List<Object> column(List<List<Object>> rows, int c) {
    List<Object> out = new ArrayList<>();
    rows.forEach(r -> out.add(r.get(c)));
    return out;
  }

  @Test
  void showStatementsAndDescribeListWhatTheCatalogHolds() throws Exception {
    assertThat(column(squall("SHOW SCHEMAS"), 0)).contains("tpch", "information_schema");
    assertSame(squall("show tables from tpch like 'p%'"),
        duckRows("select table_name from information_schema.tables where table_name like 'p%' order by 1"), true);
    // The columns DuckDB reads from the same data files, in order.
    assertThat(column(squall("describe tpch.orders"), 0))
        .isEqualTo(column(duckRows("select column_name from (describe orders)"), 0));
    assertThat(squall("SHOW COLUMNS FROM tpch.orders LIKE 'o_orderkey'").get(0).subList(0, 2))
        .containsExactly("o_orderkey", "bigint");
  }

  @Test
  void informationSchemaCanBeFilteredJoinedAndAggregated() throws Exception {
    assertSame(squall("select t.table_name, count(*) from information_schema.tables t join information_schema.columns c"
            + " on t.table_schema = c.table_schema and t.table_name = c.table_name where t.table_schema = 'tpch'"
            + " and t.table_name in (" + TPCH_TABLES + ")"
            + " group by t.table_name order by 1"),
        duckRows("select table_name, count(*) from information_schema.columns where table_schema = 'main'"
            + " group by table_name order by 1"), true);
  }

  @Test
  void wholeTableCountsAndBoundsAreAnsweredFromTheManifestsWithoutAScan() throws Exception {
    String sql = "select count(*), min(o_orderdate), max(o_orderdate), min(o_totalprice), max(o_totalprice),"
        + " min(o_orderkey), max(o_custkey), max(o_shippriority) from %s";
    HttpResponse<byte[]> r = stack.post(String.format(sql, "tpch.orders"), Map.of(), JSON_TYPE);
    assertThat(r.statusCode()).as(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(200);
    JsonNode summary = JSON.readTree(r.body()).get("summary");
    assertThat(summary.get("bytesScanned").asLong()).as(summary.toString()).isZero();
    assertSame(squall(String.format(sql, "tpch.orders")), duckRows(String.format(sql, "orders")), true);
    // A filter (or a string's bounds, which may be truncated) still scans, with the same answers.
    String scanned = "select count(*), max(o_comment) from %s where o_orderdate >= date '1995-01-01'";
    HttpResponse<byte[]> s = stack.post(String.format(scanned, "tpch.orders"), Map.of(), JSON_TYPE);
    assertThat(JSON.readTree(s.body()).at("/summary/bytesScanned").asLong()).isPositive();
    assertSame(squall(String.format(scanned, "tpch.orders")), duckRows(String.format(scanned, "orders")), true);
  }

  @Test
  void showStatsAgreesWithTheData() throws Exception {
    List<List<Object>> stats = squall("SHOW STATS FOR tpch.nation");
    List<List<Object>> key = stats.stream().filter(r -> "n_nationkey".equals(r.get(0))).toList();
    List<List<Object>> expected = duckRows("select cast(min(n_nationkey) as varchar), cast(max(n_nationkey) as varchar),"
        + " count(*) from nation");
    assertThat(key.get(0).get(5)).isEqualTo(expected.get(0).get(0));
    assertThat(key.get(0).get(6)).isEqualTo(expected.get(0).get(1));
    assertThat(key.get(0).get(3)).isEqualTo(0.0);
    List<Object> total = stats.get(stats.size() - 1);
    assertThat(total.get(0)).isNull();
    assertThat(((Number) total.get(4)).longValue()).isEqualTo(((Number) expected.get(0).get(2)).longValue());
  }

  @Test
  void showCreateTableTextCreatesAnEqualTable() throws Exception {
    String text = (String) squall("SHOW CREATE TABLE tpch.region").get(0).get(0);
    assertThat(text).startsWith("CREATE TABLE tpch.region (");
    squall(text.replace("CREATE TABLE tpch.region", "CREATE TABLE tpch.region_copy"));
    assertThat(squall("describe tpch.region_copy")).isEqualTo(squall("describe tpch.region"));
    squall("drop table tpch.region_copy");
  }

  /** A DDL job ends with nothing of its own left in the shuffle bucket (its stored plan included). */
  @Test
  void ddlJobsLeaveNoJobDataBehind() throws Exception {
    List<String> ids = new ArrayList<>();
    for (String ddl : List.of("create table tpch.ddl_leftovers (a bigint)", "alter table tpch.ddl_leftovers add column b varchar",
        "drop table tpch.ddl_leftovers")) {
      String id = stack.submitAsync(ddl);
      assertThat(stack.awaitTerminal(id, Duration.ofMinutes(1)).get("state").asText()).as(ddl).isEqualTo("SUCCEEDED");
      ids.add(id);
    }
    for (String id : ids) {
      assertThat(stack.objectsLeftBy(id, Duration.ofSeconds(5))).as("objects of job " + id).isEmpty();
    }
  }

  /**
   * Schema evolution by field id: each step runs in Squall and in DuckDB, and after each the
   * tables read the same, old data files included (a dropped and re-added column is a new column,
   * NULL in old rows).
   */
  @Test
  void schemaEvolutionReadsOldDataFilesByFieldId() throws Exception {
    try (Connection ref = DriverManager.getConnection("jdbc:duckdb:")) {
      String[][] steps = {
          {"CREATE SCHEMA evo", "CREATE SCHEMA evo"},
          {"CREATE TABLE evo.t (id bigint NOT NULL, name varchar, qty integer) PARTITIONED BY (bucket(2, id))",
              "CREATE TABLE evo.t (id bigint NOT NULL, name varchar, qty integer)"},
          {"INSERT INTO evo.t VALUES (1, 'a', 10), (2, 'b', 20)", null},
          {"ALTER TABLE evo.t ADD COLUMN score double", null},
          {"INSERT INTO evo.t VALUES (3, 'c', 30, 1.5)", null},
          {"ALTER TABLE evo.t RENAME COLUMN name TO label", null},
          {"INSERT INTO evo.t VALUES (4, 'd', 40, 2.5)", null},
          {"ALTER TABLE evo.t DROP COLUMN qty", null},
          {"ALTER TABLE evo.t ADD COLUMN qty bigint", null},
          {"INSERT INTO evo.t VALUES (5, 'e', 3.5, 50)", null},
          {"ALTER TABLE evo.t RENAME TO t2", "ALTER TABLE evo.t RENAME TO t2"},
      };
      String table = "evo.t";
      for (String[] step : steps) {
        squall(step[0]);
        try (Statement st = ref.createStatement()) {
          st.execute(step[1] != null ? step[1] : step[0]);
        }
        table = step[0].endsWith("RENAME TO t2") ? "evo.t2" : table;
        if (!step[0].startsWith("CREATE SCHEMA")) {
          String q = "select * from " + table + " order by id";
          assertSame(squall(q), rows(ref, q), true);
        }
      }
      assertThat(catalog().tableExists(TableIdentifier.parse("evo.t"))).isFalse();
      assertThat(error("select * from evo.t").get("message").asText()).contains("Table 'evo.t' does not exist");
      squall("DROP TABLE evo.t2");
      squall("DROP TABLE IF EXISTS evo.t2");
      squall("DROP SCHEMA evo");
      assertThat(column(squall("SHOW SCHEMAS"), 0)).doesNotContain("evo");
    }
  }

  @Test
  void ddlErrorsAndUnsupportedStatementsNameLineAndColumn() throws Exception {
    JsonNode e = error("ALTER TABLE tpch.orders\n  SET PROPERTIES format_version = 2");
    assertThat(e.get("line").asInt()).isEqualTo(2);
    assertThat(e.get("column").asInt()).isEqualTo(3);
    JsonNode exists = error("CREATE TABLE tpch.nation (a bigint)");
    assertThat(exists.get("message").asText()).contains("already exists");
    assertThat(exists.get("column").asInt()).isEqualTo(19);
    assertThat(error("DROP TABLE tpch.nope").get("column").asInt()).isEqualTo(12);
    assertThat(error("describe tpch.nope").get("message").asText()).contains("tpch.nope");
    squall("CREATE TABLE IF NOT EXISTS tpch.nation (a bigint)");
    assertThat(column(squall("describe tpch.nation"), 0)).contains("n_nationkey");
  }

  /** A query running on a table is not disturbed by the table's DROP: it reads its snapshot's files to the end. */
  @Test
  void dropOfATableBeingQueriedLetsTheQueryFinish() throws Exception {
    squall("CREATE TABLE tpch.held AS SELECT * FROM tpch.orders");
    String q = "select o_orderstatus, count(*), sum(o_totalprice) from %s group by o_orderstatus order by 1";
    CountDownLatch gate = new CountDownLatch(1);
    hold = gate;
    String id;
    try {
      id = stack.submitAsync(String.format(q, "tpch.held"));
      long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (!stack.status(id).get("state").asText().equals("RUNNING") && System.nanoTime() < until) {
        Thread.sleep(50);
      }
      assertThat(stack.status(id).get("state").asText()).isEqualTo("RUNNING");
      squall("DROP TABLE tpch.held");
      assertThat(catalog().tableExists(TableIdentifier.parse("tpch.held"))).isFalse();
    } finally {
      hold = null;
      gate.countDown();
    }
    JsonNode done = stack.awaitTerminal(id, Duration.ofMinutes(2));
    assertThat(done.get("state").asText()).as(done.toString()).isEqualTo("SUCCEEDED");
    HttpResponse<byte[]> r = stack.send("GET", "/v1/queries/" + id + "/result", ARROW);
    assertThat(r.statusCode()).isEqualTo(200);
    assertSame(ResultRows.fromArrow(r.body()), duckRows(String.format(q, "orders")), true);
  }

  @Test
  void timeTravelReadsTheOlderSnapshotAfterAnInsert() throws Exception {
    squall("CREATE TABLE tpch.tt AS SELECT * FROM tpch.nation WHERE n_regionkey = 0");
    Table table = catalog().loadTable(TableIdentifier.parse("tpch.tt"));
    Snapshot first = table.currentSnapshot();
    Thread.sleep(20); // the next commit gets a later timestamp
    squall("INSERT INTO tpch.tt SELECT * FROM tpch.nation WHERE n_regionkey = 1");
    String older = "select * from nation where n_regionkey = 0 order by n_nationkey";
    assertSame(squall("select * from tpch.tt FOR VERSION AS OF " + first.snapshotId() + " order by n_nationkey"),
        duckRows(older), true);
    String at = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC)
        .format(Instant.ofEpochMilli(first.timestampMillis()));
    assertSame(squall("select * from tpch.tt FOR TIMESTAMP AS OF TIMESTAMP '" + at + "' order by n_nationkey"),
        duckRows(older), true);
    assertSame(squall("select * from tpch.tt order by n_nationkey"),
        duckRows("select * from nation where n_regionkey in (0, 1) order by n_nationkey"), true);
    // Two snapshots of one table in one query.
    assertSame(squall("select count(*) from tpch.tt FOR VERSION AS OF " + first.snapshotId()
            + " a join tpch.tt b on a.n_nationkey = b.n_nationkey"),
        duckRows("select count(*) from nation where n_regionkey = 0"), true);
    JsonNode unknown = error("select * from tpch.tt FOR VERSION AS OF 42");
    assertThat(unknown.get("message").asText()).contains("no snapshot 42");
    assertThat(unknown.get("column").asInt()).isEqualTo(23);
    JsonNode tooEarly = error("select * from tpch.tt FOR TIMESTAMP AS OF TIMESTAMP '2000-01-01 00:00:00'");
    assertThat(tooEarly.get("message").asText()).contains("no snapshot at or before");
  }

  @Test
  void metadataTablesListSnapshotsHistoryFilesAndPartitions() throws Exception {
    squall("CREATE TABLE tpch.mt PARTITIONED BY (n_regionkey) AS SELECT * FROM tpch.nation WHERE n_regionkey < 2");
    squall("INSERT INTO tpch.mt SELECT * FROM tpch.nation WHERE n_regionkey >= 2");
    Table table = catalog().loadTable(TableIdentifier.parse("tpch.mt"));
    List<Object> ids = new ArrayList<>();
    table.snapshots().forEach(s -> ids.add(Long.toString(s.snapshotId())));
    assertThat(column(squall("select cast(snapshot_id as varchar) from tpch.\"mt$snapshots\" order by committed_at"), 0))
        .isEqualTo(ids);
    assertThat(((Number) squall("select count(*) from tpch.\"mt$history\"").get(0).get(0)).longValue()).isEqualTo(2L);
    List<Object> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(t -> files.add(t.file().location()));
    }
    files.sort(null);
    assertThat(column(squall("select file_path from tpch.\"mt$files\" order by 1"), 0)).isEqualTo(files);
    assertSame(squall("select sum(record_count), count(*) from tpch.\"mt$partitions\""),
        duckRows("select count(*), count(distinct n_regionkey) from nation"), true);
  }
}

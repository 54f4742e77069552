package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.local.lambda.LambdaHandler;
import dev.squall.proto.TaskPayloads;
import dev.squall.proto.v1.TaskSpec;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.datasketches.memory.Memory;
import org.apache.datasketches.theta.CompactSketch;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.puffin.BlobMetadata;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinReader;
import org.apache.iceberg.puffin.StandardBlobTypes;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.Pair;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * ANALYZE on the local stack (TPC-H SF 0.01): the Puffin file it commits reads back through
 * Iceberg's {@code statisticsFiles()} and {@code PuffinReader}, each column's NDV lies within the
 * theta sketch's own 3-standard-deviation bounds of DuckDB's {@code count(distinct)} over the same
 * Parquet files (exact below 4096 distinct values; the bounds are about ±4.7% above), SHOW STATS
 * shows those NDVs, queries still equal DuckDB, and a task failing once, a column subset and a
 * refused ANALYZE each leave exactly the statistics they should.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AnalyzeEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String JSON_TYPE = "application/json";
  private static final String ARROW = "application/vnd.apache.arrow.stream";
  /** Several scan tasks, so that partial sketches are unioned across tasks. */
  private static final Map<String, String> SMALL_TASKS = Map.of("target_split_size_bytes", "65536");

  private TestStack stack;
  private java.sql.Connection duck;
  /** Jobs whose first ANALYZE task attempt was made to fail. */
  private final Set<String> faultedJobs = ConcurrentHashMap.newKeySet();
  private volatile boolean failOnce;

  private LambdaHandler inject(LambdaHandler real) {
    return (payload, ctx) -> {
      TaskSpec spec = TaskPayloads.decodeSpec(payload);
      if (failOnce && spec.getFragment().toString().contains("THETA_SKETCH") && faultedJobs.add(spec.getJobId())) {
        throw new IllegalStateException("injected crash of ANALYZE task " + spec.getStageId() + "." + spec.getPartition());
      }
      return real.handle(payload, ctx);
    };
  }

  @BeforeAll
  void start() throws Exception {
    stack = TestStack.startWith(0.01, 5_000, o -> o.withTaskHandlerWrapper(this::inject));
    duck = stack.duckDb();
  }

  @AfterAll
  void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
  }

  private JsonNode run(String sql) throws Exception {
    HttpResponse<byte[]> r = stack.post(sql, SMALL_TASKS, JSON_TYPE);
    assertThat(r.statusCode()).as(sql + " → " + new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  private List<List<Object>> squallRows(String sql) throws Exception {
    HttpResponse<byte[]> r = stack.post(sql, Map.of(), ARROW);
    assertThat(r.statusCode()).as(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(200);
    return ResultRows.fromArrow(r.body());
  }

  private List<List<Object>> duckRows(String sql) throws Exception {
    try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(sql.replace("tpch.", ""))) {
      return ResultRows.fromJdbc(rs);
    }
  }

  private long duckLong(String sql) throws Exception {
    return ((Number) duckRows(sql).get(0).get(0)).longValue();
  }

  private Table table(String name) {
    Table t = stack.deployment.catalog().catalog().loadTable(TableIdentifier.of("tpch", name));
    t.refresh();
    return t;
  }

  /** The NDV of each blob's sketch by field id, after checking the blob's metadata. */
  private static Map<Integer, CompactSketch> readBack(Table table, StatisticsFile file) throws Exception {
    Map<Integer, CompactSketch> sketches = new java.util.TreeMap<>();
    try (PuffinReader reader = Puffin.read(table.io().newInputFile(file.path()))
        .withFileSize(file.fileSizeInBytes()).withFooterSize(file.fileFooterSizeInBytes()).build()) {
      List<BlobMetadata> blobs = reader.fileMetadata().blobs();
      assertThat(blobs).extracting(BlobMetadata::type).containsOnly(StandardBlobTypes.APACHE_DATASKETCHES_THETA_V1);
      assertThat(blobs).extracting(BlobMetadata::snapshotId).containsOnly(file.snapshotId());
      for (Pair<BlobMetadata, ByteBuffer> blob : reader.readAll(blobs)) {
        assertThat(blob.first().inputFields()).hasSize(1);
        byte[] bytes = new byte[blob.second().remaining()];
        blob.second().duplicate().get(bytes);
        CompactSketch sketch = CompactSketch.wrap(Memory.wrap(bytes));
        assertThat(blob.first().properties()).containsEntry("ndv", Long.toString(Math.round(sketch.getEstimate())));
        sketches.put(blob.first().inputFields().get(0), sketch);
      }
    }
    return sketches;
  }

  @Test
  void analyzeCommitsAPuffinFileWhoseNdvsMatchDuckDbAndShowStatsShowsThem() throws Exception {
    JsonNode answer = run("ANALYZE tpch.orders");
    assertThat(answer.at("/columns/0/name").asText()).isEqualTo("rows");
    assertThat(answer.at("/rows/0/0").asLong()).isEqualTo(duckLong("select count(*) from orders"));

    Table orders = table("orders");
    List<StatisticsFile> files = orders.statisticsFiles();
    assertThat(files).hasSize(1);
    assertThat(files.get(0).snapshotId()).isEqualTo(orders.currentSnapshot().snapshotId());
    Map<Integer, CompactSketch> sketches = readBack(orders, files.get(0));
    List<Types.NestedField> columns = orders.schema().columns();
    assertThat(sketches.keySet()).containsExactlyElementsOf(columns.stream().map(Types.NestedField::fieldId).toList());
    List<List<Object>> stats = squallRows("SHOW STATS FOR tpch.orders");
    for (Types.NestedField column : columns) {
      long exact = duckLong("select count(distinct " + column.name() + ") from orders");
      CompactSketch sketch = sketches.get(column.fieldId());
      if (exact < 4096) {
        assertThat(sketch.getEstimate()).as(column.name()).isEqualTo(exact);
      } else {
        assertThat((double) exact).as(column.name()).isBetween(sketch.getLowerBound(3), sketch.getUpperBound(3));
      }
      List<Object> row = stats.stream().filter(r -> column.name().equals(r.get(0))).findFirst().orElseThrow();
      assertThat(((Number) row.get(2)).doubleValue()).as(column.name()).isEqualTo(Math.round(sketch.getEstimate()));
    }
    String q = "select o_orderpriority, count(*) as n from tpch.orders o join tpch.customer c on o.o_custkey = "
        + "c.c_custkey where c.c_mktsegment = 'BUILDING' group by o_orderpriority";
    assertThat(ResultRows.difference(squallRows(q), duckRows(q), false)).isNull();
  }

  @Test
  void analyzeOfAColumnSubsetSketchesOnlyThoseColumns() throws Exception {
    run("ANALYZE tpch.customer WITH (columns = ARRAY['c_nationkey', 'c_mktsegment'])");
    Table customer = table("customer");
    assertThat(customer.statisticsFiles()).hasSize(1);
    Map<Integer, CompactSketch> sketches = readBack(customer, customer.statisticsFiles().get(0));
    int nation = customer.schema().findField("c_nationkey").fieldId();
    int segment = customer.schema().findField("c_mktsegment").fieldId();
    assertThat(sketches.keySet()).containsExactly(Math.min(nation, segment), Math.max(nation, segment));
    assertThat(sketches.get(nation).getEstimate()).isEqualTo(duckLong("select count(distinct c_nationkey) from customer"));
    assertThat(sketches.get(segment).getEstimate()).isEqualTo(duckLong("select count(distinct c_mktsegment) from customer"));
  }

  @Test
  void aTaskFailingOnceStillCommitsExactlyOneStatisticsFile() throws Exception {
    JsonNode answer;
    failOnce = true;
    try {
      answer = run("ANALYZE tpch.supplier");
    } finally {
      failOnce = false;
    }
    String jobId = answer.get("queryId").asText();
    assertThat(faultedJobs).contains(jobId);
    assertThat(answer.at("/rows/0/0").asLong()).isEqualTo(duckLong("select count(*) from supplier"));
    Table supplier = table("supplier");
    assertThat(supplier.statisticsFiles()).hasSize(1);
    StatisticsFile file = supplier.statisticsFiles().get(0);
    assertThat(file.path()).contains("analyze-" + jobId);
    assertThat(readBack(supplier, file).get(supplier.schema().findField("s_suppkey").fieldId()).getEstimate())
        .isEqualTo(duckLong("select count(distinct s_suppkey) from supplier"));
    assertThat(statisticsObjectsOfJob(jobId)).hasSize(1);
  }

  @Test
  void aRefusedAnalyzeLeavesTheStatisticsUnchanged() throws Exception {
    run("ANALYZE tpch.region");
    List<String> before = table("region").statisticsFiles().stream().map(StatisticsFile::path).toList();
    assertThat(before).hasSize(1);
    HttpResponse<byte[]> r = stack.post("ANALYZE tpch.region WITH (columns = ARRAY['r_name', 'r_nope'])", Map.of(),
        JSON_TYPE);
    assertThat(r.statusCode()).as(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(400);
    JsonNode error = JSON.readTree(r.body()).get("error");
    assertThat(error.get("message").asText()).contains("r_nope");
    assertThat(List.of(error.get("line").asInt(), error.get("column").asInt())).containsExactly(1, 53);
    assertThat(table("region").statisticsFiles().stream().map(StatisticsFile::path).toList()).isEqualTo(before);
  }

  /** Statistics files the job wrote anywhere in the warehouse, committed or not. */
  private List<String> statisticsObjectsOfJob(String jobId) {
    try (S3Client s3 = stack.deployment.s3().newClient()) {
      List<String> keys = new ArrayList<>();
      s3.listObjectsV2Paginator(b -> b.bucket(LocalDeployment.WAREHOUSE_BUCKET)).contents().stream()
          .map(S3Object::key).filter(k -> k.contains("analyze-" + jobId)).forEach(keys::add);
      return keys;
    }
  }
}

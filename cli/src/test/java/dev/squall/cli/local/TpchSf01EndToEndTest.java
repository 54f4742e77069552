package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

/** TPC-H at scale factor 0.1 (lineitem 600,572 rows in 31 data files). */
class TpchSf01EndToEndTest extends TpchEndToEndTest {
  @Override
  double scaleFactor() {
    return 0.1;
  }

  @Override
  long rowsPerFile() {
    return 20_000;
  }

  @Override
  Map<String, String> properties() {
    return Map.of("default_schema", "tpch", "broadcast_threshold_bytes", "1", "target_split_size_bytes", "1048576", "target_bytes_per_task", "1048576");
  }

  /**
   * A month-partitioned CREATE TABLE AS of all of lineitem, written by several writer tasks, puts
   * each month in one to a few data files (a hash edge on the partition values), and the table
   * holds the source's rows (a per-month digest equal to DuckDB's over the source).
   */
  @Test
  void monthPartitionedCreateTableAsOfLineitemWritesOneToAFewFilesPerMonth() throws Exception {
    String ctas = "create table tpch.lineitem_by_month partitioned by (month(l_shipdate)) as select * from tpch.lineitem";
    Map<String, String> planned = new java.util.HashMap<>(properties());
    planned.put("adaptive_target_partition_bytes", "0"); // the writer stage keeps its planned tasks
    HttpResponse<byte[]> r = stack.post(ctas, planned, "application/json");
    assertThat(r.statusCode()).as(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(200);
    var created = new ObjectMapper().readTree(r.body());
    assertThat(created.at("/rows/0/0").asLong()).isEqualTo(600_572L);
    int writerTasks = 0;
    for (var stage : created.at("/summary/stageSummaries")) {
      writerTasks = stage.get("outputEdge").asText().isEmpty() ? stage.get("tasks").asInt() : writerTasks;
    }
    assertThat(writerTasks).as("writer tasks").isGreaterThan(1);

    Table table = stack.deployment.catalog().catalog().loadTable(TableIdentifier.parse("tpch.lineitem_by_month"));
    Map<String, Integer> files = TableUpkeepTest.filesPerPartition(table);
    List<List<Object>> months;
    try (Statement st = duck.createStatement();
        ResultSet rs = st.executeQuery("select count(distinct date_trunc('month', l_shipdate)) from lineitem")) {
      months = ResultRows.fromJdbc(rs);
    }
    assertThat(files).hasSize(((Number) months.get(0).get(0)).intValue());
    assertThat(files.values()).as(files.toString()).allMatch(n -> n >= 1 && n <= 3);

    HttpResponse<byte[]> digest = stack.post(TableUpkeepTest.contentsByMonth("tpch.lineitem_by_month"), properties(),
        "application/vnd.apache.arrow.stream");
    assertThat(digest.statusCode()).isEqualTo(200);
    List<List<Object>> expected;
    try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(TableUpkeepTest.contentsByMonth("lineitem"))) {
      expected = ResultRows.fromJdbc(rs);
    }
    assertThat(ResultRows.difference(ResultRows.fromArrow(digest.body()), expected, false)).isNull();
  }
}

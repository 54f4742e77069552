package dev.squall.planner.optimize;

import static dev.squall.planner.testing.StageGraphs.operators;
import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.planner.DistributedPlanner;
import dev.squall.planner.testing.Planning;
import dev.squall.planner.testing.TpchCatalog;
import dev.squall.proto.v1.Literal;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.StageGraph;
import java.time.LocalDate;
import java.util.List;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;

/**
 * Whole-table COUNT/MIN/MAX answered from the manifests as one VALUES row, and every case in
 * which the manifests are not exact left to a scan. The expected figures come from the test
 * catalog's data files (record counts and l_shipdate bounds per file), read through Iceberg.
 */
class MetadataAggregatesTest {
  private static StageGraph plan(InMemoryCatalog catalog, String sql) {
    return new DistributedPlanner(catalog).plan(sql, Planning.SETTINGS).stageGraph();
  }

  private static List<Literal> valuesRow(StageGraph graph) {
    List<Operator> values = operators(graph, Operator.OpCase.VALUES);
    assertThat(values).hasSize(1);
    return values.get(0).getValues().getRows(0).getValuesList();
  }

  private static int scans(StageGraph graph) {
    return operators(graph, Operator.OpCase.SCAN).size();
  }

  private static long recordsOf(Table table) throws Exception {
    long rows = 0;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        rows += task.file().recordCount();
      }
    }
    return rows;
  }

  @Test
  void countStarAndDateBoundsComeFromTheManifests() throws Exception {
    InMemoryCatalog catalog = TpchCatalog.create(1);
    long rows = recordsOf(catalog.loadTable(TableIdentifier.of("tpch", "lineitem")));
    StageGraph graph = plan(catalog, "select count(*), min(l_shipdate), max(l_shipdate) from lineitem");
    assertThat(scans(graph)).isZero();
    List<Literal> row = valuesRow(graph);
    assertThat(row.get(0).getLongValue()).isEqualTo(rows).isPositive();
    assertThat(row.get(1).getDateDays()).isEqualTo((int) LocalDate.of(1992, 1, 1).toEpochDay());
    assertThat(row.get(2).getDateDays()).isEqualTo((int) LocalDate.of(1998, 12, 31).toEpochDay());
  }

  @Test
  void integerBoundsOfEveryFile() {
    List<Literal> row = valuesRow(Planning.sf1("select max(n_regionkey), min(n_nationkey), count(*) from nation").stageGraph());
    assertThat(row).extracting(Literal::getLongValue).containsExactly(4L, 0L, 25L);
  }

  @Test
  void whatTheManifestsDoNotSayExactlyIsScanned() {
    // Strings (bounds may be truncated), a column without bounds, a filter, GROUP BY, SUM.
    for (String sql : List.of("select max(l_comment) from lineitem",
        "select count(*) from lineitem where l_quantity > 1", "select count(*) from lineitem group by l_shipmode",
        "select count(*), sum(l_quantity) from lineitem", "select min(l_orderkey) from lineitem")) {
      assertThat(scans(Planning.sf1(sql).stageGraph())).as(sql).isOne();
    }
  }

  @Test
  void aTableWithDeleteFilesIsScanned() {
    InMemoryCatalog catalog = TpchCatalog.create(1);
    TpchCatalog.addPositionDeleteFile(catalog, "region");
    StageGraph graph = plan(catalog, "select count(*) from region");
    assertThat(scans(graph)).isOne();
  }
}

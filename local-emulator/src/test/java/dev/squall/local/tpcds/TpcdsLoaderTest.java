package dev.squall.local.tpcds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.local.TestWarehouse;
import dev.squall.local.catalog.LocalCatalog;
import io.trino.tpcds.Results;
import io.trino.tpcds.Session;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loads TPC-DS SF 0.01 once into the local catalog (embedded S3 on a temporary directory), in
 * small parts, and checks it against the generator run as one part and against DuckDB reading the
 * very Parquet data files.
 */
class TpcdsLoaderTest {
  static final double SF = 0.01;

  @TempDir static Path dataDir;
  static TestWarehouse warehouse;
  static LocalCatalog local;
  static TpcdsLoader.LoadReport firstLoad;

  @BeforeAll
  static void load() throws Exception {
    warehouse = TestWarehouse.start(dataDir);
    local = warehouse.local();
    firstLoad = new TpcdsLoader(local.catalog()).withProgressBar(false).withRowsPerFile(20_000).load(SF);
  }

  @AfterAll
  static void stop() throws Exception {
    if (warehouse != null) {
      warehouse.close();
    }
  }

  static Table table(io.trino.tpcds.Table t) {
    return local.catalog().loadTable(TpcdsLoader.identifier(t));
  }

  /** The generator's rows of a whole table, in one part. */
  static List<List<String>> generated(io.trino.tpcds.Table t) {
    List<List<String>> rows = new ArrayList<>();
    for (List<List<String>> r : Results.constructResults(t, Session.getDefaultSession().withScale(SF).withTable(t))) {
      rows.add(r.get(0));
    }
    return rows;
  }

  static Connection duckOver(io.trino.tpcds.Table t) throws Exception {
    List<String> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table(t).newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        files.add("'" + local.localPathOf(task.file().location()) + "'");
      }
    }
    Connection duck = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement st = duck.createStatement()) {
      st.execute("create view t as select * from read_parquet([" + String.join(", ", files) + "])");
    }
    return duck;
  }

  @Test
  void the24TablesHoldTheRowsOfTheGeneratorRunInOnePart() {
    assertThat(firstLoad.rowsWritten()).hasSize(24).doesNotContainKey("dbgen_version");
    for (io.trino.tpcds.Table t : TpcdsLoader.tpcdsTables()) {
      // customer_demographics is the cross product of its columns' domains (TPC-DS clause 3.4):
      // 1,920,800 rows at any scale factor, known without running the generator again.
      long expected = t == io.trino.tpcds.Table.CUSTOMER_DEMOGRAPHICS ? 1_920_800L : generated(t).size();
      assertThat(firstLoad.rowsWritten().get(t.getName())).as("rows of %s", t.getName()).isEqualTo(expected);
      assertThat(table(t).currentSnapshot().summary().get("total-records")).isEqualTo(Long.toString(expected));
    }
    // Split into parts: store_sales (~120,000 rows) in several data files, customer_demographics
    // (1,920,800 rows at any scale factor) in about 96.
    assertThat(firstLoad.dataFilesWritten().get("store_sales")).isGreaterThan(1);
    assertThat(firstLoad.dataFilesWritten().get("customer_demographics")).isGreaterThan(1);
  }

  @Test
  void columnsHaveTheSpecificationsTypesAndPrimaryKeys() {
    var sales = table(io.trino.tpcds.Table.STORE_SALES).schema();
    assertThat(sales.findType("ss_net_profit")).isEqualTo(Types.DecimalType.of(7, 2));
    assertThat(sales.findType("ss_ticket_number")).isEqualTo(Types.LongType.get());
    assertThat(sales.findType("ss_quantity")).isEqualTo(Types.IntegerType.get());
    assertThat(sales.identifierFieldNames()).containsExactlyInAnyOrder("ss_item_sk", "ss_ticket_number");
    assertThat(sales.findField("ss_customer_sk").isOptional()).isTrue();
    var date = table(io.trino.tpcds.Table.DATE_DIM).schema();
    assertThat(date.findType("d_date")).isEqualTo(Types.DateType.get());
    assertThat(date.identifierFieldNames()).containsExactly("d_date_sk");
    assertThat(table(io.trino.tpcds.Table.PROMOTION).schema().findType("p_cost")).isEqualTo(Types.DecimalType.of(15, 2));
    assertThat(table(io.trino.tpcds.Table.STORE).schema().findType("s_gmt_offset")).isEqualTo(Types.DecimalType.of(5, 2));
  }

  @Test
  void valuesAndNullsReadByDuckDbMatchTheGeneratorsText() throws Exception {
    List<List<String>> rows = generated(io.trino.tpcds.Table.STORE_SALES);
    BigDecimal profit = BigDecimal.ZERO;
    long customers = 0;
    for (List<String> r : rows) {
      if (r.get(22) != null) {
        profit = profit.add(new BigDecimal(r.get(22)));
      }
      if (r.get(3) != null) {
        customers++;
      }
    }
    try (Connection duck = duckOver(io.trino.tpcds.Table.STORE_SALES); Statement st = duck.createStatement();
        ResultSet rs = st.executeQuery("select count(*), sum(ss_net_profit), count(ss_customer_sk) from t")) {
      rs.next();
      assertThat(rs.getLong(1)).isEqualTo(rows.size());
      assertThat(rs.getBigDecimal(2)).isEqualByComparingTo(profit);
      assertThat(rs.getLong(3)).isEqualTo(customers).isLessThan(rows.size());
    }
    try (Connection duck = duckOver(io.trino.tpcds.Table.DATE_DIM); Statement st = duck.createStatement();
        ResultSet rs = st.executeQuery("select d_date, d_year, d_day_name from t where d_date_sk = 2451545")) {
      rs.next();
      assertThat(rs.getObject(1, java.time.LocalDate.class)).isEqualTo(java.time.LocalDate.of(2000, 1, 1));
      assertThat(rs.getInt(2)).isEqualTo(2000);
      assertThat(rs.getString(3)).isEqualTo("Saturday");
    }
  }

  @Test
  void aSecondLoadWritesNothing() {
    TpcdsLoader.LoadReport again = new TpcdsLoader(local.catalog()).withProgressBar(false).load(SF);
    assertThat(again.nothingWritten()).isTrue();
    assertThat(again.tablesAlreadyLoaded()).hasSize(24);
  }
}

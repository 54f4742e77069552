package dev.squall.local.tpch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.local.TestWarehouse;
import dev.squall.local.catalog.LocalCatalog;
import io.trino.tpch.LineItem;
import io.trino.tpch.Order;
import io.trino.tpch.TpchColumnType;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loads TPC-H SF 0.01 once into the local catalog (embedded S3 on a temporary directory) and
 * checks it against two independent sources: the generator's own rows ({@code toLine()} text and
 * typed getters) and DuckDB reading the very Parquet data files.
 */
class TpchLoaderTest {
  static final double SF = 0.01;

  @TempDir static Path dataDir;
  static TestWarehouse warehouse;
  static LocalCatalog local;
  static TpchLoader.LoadReport firstLoad;

  @BeforeAll
  static void load() throws Exception {
    warehouse = TestWarehouse.start(dataDir);
    local = warehouse.local();
    // Small files so that even SF 0.01 gives lineitem several data files.
    firstLoad = new TpchLoader(local.catalog()).withProgressBar(false).withRowsPerFile(20_000).load(SF);
  }

  @AfterAll
  static void stop() throws Exception {
    if (warehouse != null) {
      warehouse.close();
    }
  }

  static Table table(TpchTable<?> t) {
    return local.catalog().loadTable(TpchLoader.identifier(t));
  }

  static List<Record> readAll(TpchTable<?> t) throws Exception {
    List<Record> out = new ArrayList<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table(t)).build()) {
      rows.forEach(r -> out.add(r.copy()));
    }
    return out;
  }

  @Test
  void everyTableReadsBackThroughIcebergWithTheGeneratorsRowCount() throws Exception {
    assertThat(firstLoad.rowsWritten()).hasSize(8);
    for (TpchTable<?> t : TpchTable.getTables()) {
      long expected = TpchLoader.expectedRowCount(t, SF);
      long read;
      try (CloseableIterable<Record> rows = IcebergGenerics.read(table(t)).build()) {
        read = 0;
        for (Record ignored : rows) {
          read++;
        }
      }
      assertThat(read).as("rows of %s", t.getTableName()).isEqualTo(expected);
      assertThat(firstLoad.rowsWritten().get(t.getTableName())).isEqualTo(expected);
      assertThat(table(t).currentSnapshot().summary().get("total-records")).isEqualTo(Long.toString(expected));
    }
    // The TPC-H reference count for lineitem at SF 0.01 (dbgen), not computed by this code.
    assertThat(TpchLoader.expectedRowCount(TpchTable.LINE_ITEM, SF)).isEqualTo(60_175);
  }

  @Test
  void everyValueOfEveryTableEqualsTheGeneratorsTextRendering() throws Exception {
    // toLine() is the generator's own dbgen-style text (ISO dates, money with 2 places, quantity
    // as an integer), an oracle independent of the loader's type mapping.
    for (TpchTable<?> t : TpchTable.getTables()) {
      boolean[] decimal = new boolean[t.getColumns().size()];
      for (int i = 0; i < decimal.length; i++) {
        decimal[i] = t.getColumns().get(i).getType().getBase() == TpchColumnType.Base.DOUBLE;
      }
      Map<String, Integer> fromIceberg = new HashMap<>();
      for (Record r : readAll(t)) {
        fromIceberg.merge(render(r), 1, Integer::sum);
      }
      Map<String, Integer> fromGenerator = new HashMap<>();
      for (TpchEntity e : t.createGenerator(SF, 1, 1)) {
        fromGenerator.merge(withTwoDecimalPlaces(e.toLine(), decimal), 1, Integer::sum);
      }
      assertThat(fromIceberg).as("rows of %s", t.getTableName()).isEqualTo(fromGenerator);
    }
  }

  /** The generator's line with its DOUBLE-typed fields written with two decimal places. */
  private static String withTwoDecimalPlaces(String line, boolean[] decimal) {
    String[] fields = line.split("\\|", -1);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < decimal.length; i++) {
      sb.append(decimal[i] ? new BigDecimal(fields[i]).setScale(2).toPlainString() : fields[i]).append('|');
    }
    return sb.toString();
  }

  private static String render(Record r) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < r.size(); i++) {
      Object v = r.get(i);
      sb.append(v instanceof BigDecimal d ? d.toPlainString() : String.valueOf(v)).append('|');
    }
    return sb.toString();
  }

  @Test
  void firstAndLastLineitemAndOrderMatchTheGeneratorFieldByFieldWithIcebergTypes() throws Exception {
    List<LineItem> items = new ArrayList<>();
    TpchTable.LINE_ITEM.createGenerator(SF, 1, 1).forEach(items::add);
    Map<String, Record> byKey = readAll(TpchTable.LINE_ITEM).stream()
        .collect(Collectors.toMap(r -> r.getField("l_orderkey") + "/" + r.getField("l_linenumber"), r -> r));
    for (LineItem g : List.of(items.get(0), items.get(items.size() - 1))) {
      Record r = byKey.get(g.getOrderKey() + "/" + g.getLineNumber());
      assertThat(r).isNotNull();
      assertThat(r.getField("l_orderkey")).isEqualTo(g.getOrderKey()); // BIGINT -> Long
      assertThat(r.getField("l_partkey")).isEqualTo(g.getPartKey());
      assertThat(r.getField("l_suppkey")).isEqualTo(g.getSupplierKey());
      assertThat(r.getField("l_linenumber")).isEqualTo(g.getLineNumber()); // INTEGER -> Integer
      BigDecimal price = (BigDecimal) r.getField("l_extendedprice"); // DECIMAL(15,2)
      assertThat(price.scale()).isEqualTo(2);
      assertThat(price.unscaledValue().longValueExact()).isEqualTo(g.getExtendedPriceInCents());
      assertThat(((BigDecimal) r.getField("l_quantity")).unscaledValue().longValueExact())
          .isEqualTo(g.getQuantity() * 100);
      assertThat(((BigDecimal) r.getField("l_discount")).unscaledValue().longValueExact())
          .isEqualTo(g.getDiscountPercent());
      assertThat(((BigDecimal) r.getField("l_tax")).unscaledValue().longValueExact())
          .isEqualTo(g.getTaxPercent());
      assertThat(r.getField("l_shipdate")).isEqualTo(LocalDate.ofEpochDay(g.getShipDate())); // DATE
      assertThat(r.getField("l_commitdate")).isEqualTo(LocalDate.ofEpochDay(g.getCommitDate()));
      assertThat(r.getField("l_receiptdate")).isEqualTo(LocalDate.ofEpochDay(g.getReceiptDate()));
      assertThat(r.getField("l_returnflag")).isEqualTo(g.getReturnFlag()); // VARCHAR -> String
      assertThat(r.getField("l_linestatus")).isEqualTo(g.getStatus());
      assertThat(r.getField("l_shipinstruct")).isEqualTo(g.getShipInstructions());
      assertThat(r.getField("l_shipmode")).isEqualTo(g.getShipMode());
      assertThat(r.getField("l_comment")).isEqualTo(g.getComment());
    }

    List<Order> orders = new ArrayList<>();
    TpchTable.ORDERS.createGenerator(SF, 1, 1).forEach(orders::add);
    Map<Object, Record> ordersByKey = readAll(TpchTable.ORDERS).stream()
        .collect(Collectors.toMap(r -> r.getField("o_orderkey"), r -> r));
    for (Order g : List.of(orders.get(0), orders.get(orders.size() - 1))) {
      Record r = ordersByKey.get(g.getOrderKey());
      assertThat(r.getField("o_custkey")).isEqualTo(g.getCustomerKey());
      assertThat(r.getField("o_orderstatus")).isEqualTo(String.valueOf(g.getOrderStatus()));
      assertThat(((BigDecimal) r.getField("o_totalprice")).unscaledValue().longValueExact())
          .isEqualTo(g.getTotalPriceInCents());
      assertThat(r.getField("o_orderdate")).isEqualTo(LocalDate.ofEpochDay(g.getOrderDate()));
      assertThat(r.getField("o_orderpriority")).isEqualTo(g.getOrderPriority());
      assertThat(r.getField("o_clerk")).isEqualTo(g.getClerk());
      assertThat(r.getField("o_shippriority")).isEqualTo(g.getShipPriority());
      assertThat(r.getField("o_comment")).isEqualTo(g.getComment());
    }
  }

  @Test
  void tablesHaveTpchTypesTheScaleFactorPropertyAndSeveralDataFiles() throws Exception {
    Table lineitem = table(TpchTable.LINE_ITEM);
    assertThat(lineitem.schema().findType("l_orderkey")).isEqualTo(Types.LongType.get());
    assertThat(lineitem.schema().findType("l_suppkey")).isEqualTo(Types.LongType.get());
    assertThat(lineitem.schema().findType("l_linenumber")).isEqualTo(Types.IntegerType.get());
    assertThat(lineitem.schema().findType("l_quantity")).isEqualTo(Types.DecimalType.of(15, 2));
    assertThat(lineitem.schema().findType("l_extendedprice")).isEqualTo(Types.DecimalType.of(15, 2));
    assertThat(lineitem.schema().findType("l_shipdate")).isEqualTo(Types.DateType.get());
    assertThat(lineitem.schema().findType("l_comment")).isEqualTo(Types.StringType.get());
    assertThat(table(TpchTable.PART).schema().findType("p_size")).isEqualTo(Types.IntegerType.get());
    assertThat(table(TpchTable.CUSTOMER).schema().findType("c_acctbal")).isEqualTo(Types.DecimalType.of(15, 2));
    for (TpchTable<?> t : TpchTable.getTables()) {
      Table table = table(t);
      assertThat(table.properties()).containsEntry(TpchLoader.SCALE_FACTOR_PROPERTY, "0.01");
      assertThat(table.location()).startsWith("s3://" + TestWarehouse.BUCKET + "/warehouse/");
      assertThat(table.spec().isUnpartitioned()).isTrue();
      assertThat(table.history()).hasSize(1); // one commit per table
    }
    // 60,175 rows at 20,000 rows per file: the generator is cut into 3 parts by estimated rows (60,000).
    assertThat(firstLoad.dataFilesWritten().get("lineitem")).isEqualTo(3);
    try (CloseableIterable<FileScanTask> tasks = lineitem.newScan().includeColumnStats().planFiles()) {
      List<FileScanTask> files = new ArrayList<>();
      tasks.forEach(files::add);
      assertThat(files).hasSize(3);
      for (FileScanTask task : files) {
        assertThat(task.file().location()).endsWith(".parquet");
        assertThat(task.file().recordCount()).isPositive();
        // Column metrics written by Iceberg's Parquet writer: bounds for l_orderkey (field id 1).
        assertThat(task.file().lowerBounds()).containsKey(1);
        assertThat(task.file().upperBounds()).containsKey(1);
      }
    }
  }

  @Test
  void duckdbReadingTheDataFilesAgreesWithTheGeneratorOnCountsAndDecimalSums() throws Exception {
    try (Connection duck = DriverManager.getConnection("jdbc:duckdb:", new Properties());
        Statement st = duck.createStatement()) {
      for (TpchTable<?> t : TpchTable.getTables()) {
        String files = dataFileList(table(t));
        try (ResultSet rs = st.executeQuery("SELECT count(*) FROM read_parquet(" + files + ")")) {
          rs.next();
          assertThat(rs.getLong(1)).as("DuckDB count of %s", t.getTableName())
              .isEqualTo(TpchLoader.expectedRowCount(t, SF));
        }
      }

      long priceCents = 0;
      long quantity = 0;
      long minShipDate = Long.MAX_VALUE;
      for (LineItem item : TpchTable.LINE_ITEM.createGenerator(SF, 1, 1)) {
        priceCents += item.getExtendedPriceInCents();
        quantity += item.getQuantity();
        minShipDate = Math.min(minShipDate, item.getShipDate());
      }
      String files = dataFileList(table(TpchTable.LINE_ITEM));
      try (ResultSet rs = st.executeQuery(
          "SELECT sum(l_extendedprice), sum(l_quantity), min(l_shipdate), typeof(any_value(l_extendedprice)),"
              + " typeof(any_value(l_shipdate)), typeof(any_value(l_orderkey)), typeof(any_value(l_linenumber))"
              + " FROM read_parquet(" + files + ")")) {
        rs.next();
        assertThat(rs.getBigDecimal(1)).isEqualByComparingTo(BigDecimal.valueOf(priceCents, 2));
        assertThat(rs.getBigDecimal(2)).isEqualByComparingTo(BigDecimal.valueOf(quantity));
        assertThat(rs.getObject(3, LocalDate.class)).isEqualTo(LocalDate.ofEpochDay(minShipDate));
        assertThat(rs.getString(4)).isEqualTo("DECIMAL(15,2)");
        assertThat(rs.getString(5)).isEqualTo("DATE");
        assertThat(rs.getString(6)).isEqualTo("BIGINT");
        assertThat(rs.getString(7)).isEqualTo("INTEGER");
      }
    }
  }

  /** A DuckDB list literal of the local paths of a table's current data files. */
  private static String dataFileList(Table table) throws Exception {
    List<String> paths = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        Path path = local.localPathOf(task.file().location());
        assertThat(Files.isRegularFile(path)).as("local file of %s", task.file().location()).isTrue();
        paths.add("'" + path.toString().replace("'", "''") + "'");
      }
    }
    return "[" + String.join(", ", paths) + "]";
  }

  @Test
  void loadingTheSameScaleFactorAgainWritesNothing() {
    Map<String, Long> snapshots = new HashMap<>();
    for (TpchTable<?> t : TpchTable.getTables()) {
      snapshots.put(t.getTableName(), table(t).currentSnapshot().snapshotId());
    }
    TpchLoader.LoadReport again = new TpchLoader(local.catalog()).withProgressBar(false).load(SF);
    assertThat(again.nothingWritten()).isTrue();
    assertThat(again.tablesAlreadyLoaded()).hasSize(8);
    for (TpchTable<?> t : TpchTable.getTables()) {
      assertThat(table(t).currentSnapshot().snapshotId()).isEqualTo(snapshots.get(t.getTableName()));
    }
  }

  @Test
  void anotherScaleFactorIsRefusedNamingBothAndChangesNothing() {
    long snapshot = table(TpchTable.REGION).currentSnapshot().snapshotId();
    assertThatThrownBy(() -> new TpchLoader(local.catalog()).withProgressBar(false).load(0.02))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("scale factor 0.01")
        .hasMessageContaining("requested 0.02");
    assertThat(table(TpchTable.REGION).currentSnapshot().snapshotId()).isEqualTo(snapshot);
  }

  @Test
  void nonPositiveScaleFactorIsRejected() {
    TpchLoader loader = new TpchLoader(local.catalog()).withProgressBar(false);
    assertThatThrownBy(() -> loader.load(0)).hasMessageContaining("positive");
    assertThatThrownBy(() -> loader.load(Double.NaN)).hasMessageContaining("positive");
  }
}

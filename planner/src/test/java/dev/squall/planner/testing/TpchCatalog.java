package dev.squall.planner.testing;

import static org.apache.iceberg.types.Types.NestedField.required;

import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;

/**
 * A real Iceberg catalog (in memory) with the eight TPC-H tables in namespace {@code tpch}: TPC-H
 * column types (BIGINT keys, DECIMAL(15,2) money, DATE dates, INTEGER l_linenumber/p_size/
 * ps_availqty/o_shippriority, VARCHAR strings) and appended data file entries whose record counts
 * are the TPC-H cardinalities at the chosen scale factor and whose sizes are those of Parquet files
 * of that data (about 30 bytes a lineitem row). No Parquet is written: planning needs only the
 * metadata. lineitem has one file per ship year (1992..1998) with l_shipdate lower/upper bounds,
 * so that min/max pruning can be observed. The nation and region key columns carry their TPC-H
 * lower/upper bounds (0..24, 0..4) in every table, as Parquet files of that data do, so that
 * estimates see their small domains.
 */
public final class TpchCatalog {
  public static final Namespace TPCH = Namespace.of("tpch");

  private TpchCatalog() {}

  /** Creates the catalog at scale factor {@code sf} (1 = 6M lineitem rows). */
  public static InMemoryCatalog create(double sf) {
    return create(sf, true);
  }

  /**
   * Creates the catalog at scale factor {@code sf}; without identifier fields when
   * {@code identifierFields} is false, as tables that other engines create usually are (the
   * planner then knows no unique key).
   */
  public static InMemoryCatalog create(double sf, boolean identifierFields) {
    InMemoryCatalog catalog = new InMemoryCatalog();
    catalog.initialize("squall-test", Map.of());
    catalog.createNamespace(TPCH);
    table(catalog, "region", regionSchema(), 5, 1_200, 1, identifierFields);
    table(catalog, "nation", nationSchema(), 25, 2_400, 1, identifierFields);
    table(catalog, "supplier", supplierSchema(), Math.round(10_000 * sf), Math.round(800_000 * sf), 1, identifierFields);
    table(catalog, "customer", customerSchema(), Math.round(150_000 * sf), Math.round(12_000_000 * sf), 1, identifierFields);
    table(catalog, "part", partSchema(), Math.round(200_000 * sf), Math.round(7_000_000 * sf), 1, identifierFields);
    table(catalog, "partsupp", partsuppSchema(), Math.round(800_000 * sf), Math.round(40_000_000 * sf), 2, identifierFields);
    table(catalog, "orders", ordersSchema(), Math.round(1_500_000 * sf), Math.round(55_000_000 * sf), 2, identifierFields);
    lineitem(catalog, Math.round(6_001_215 * sf), Math.round(180_000_000 * sf), identifierFields);
    return catalog;
  }

  /**
   * Adds a position delete file for the first data file of {@code table} (so that its manifests
   * no longer count its rows exactly).
   */
  public static void addPositionDeleteFile(InMemoryCatalog catalog, String table) {
    Table t = catalog.loadTable(TableIdentifier.of(TPCH, table));
    DataFile file = t.currentSnapshot().addedDataFiles(t.io()).iterator().next();
    t.newRowDelta().addDeletes(org.apache.iceberg.FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned())
        .ofPositionDeletes().withPath("memory://tpch/" + table + "/deletes.parquet").withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(100).withRecordCount(1).withReferencedDataFile(file.location()).build()).commit();
  }

  private static void table(InMemoryCatalog catalog, String name, Schema keyed, long rows, long bytes, int files,
      boolean identifierFields) {
    Schema schema = identifierFields ? keyed : new Schema(keyed.columns());
    Table table = catalog.createTable(TableIdentifier.of(TPCH, name), schema, PartitionSpec.unpartitioned());
    Map<Integer, ByteBuffer> lower = new HashMap<>();
    Map<Integer, ByteBuffer> upper = new HashMap<>();
    for (Types.NestedField field : schema.columns()) {
      long high = field.name().endsWith("_nationkey") ? 24 : field.name().endsWith("_regionkey") ? 4 : -1;
      if (high >= 0) {
        lower.put(field.fieldId(), Conversions.toByteBuffer(Types.LongType.get(), 0L));
        upper.put(field.fieldId(), Conversions.toByteBuffer(Types.LongType.get(), high));
      }
    }
    AppendFiles append = table.newAppend();
    for (int i = 0; i < files; i++) {
      long fileRows = Math.max(1, rows / files);
      append.appendFile(DataFiles.builder(PartitionSpec.unpartitioned())
          .withPath("memory://tpch/" + name + "/part-" + i + ".parquet")
          .withFormat(FileFormat.PARQUET)
          .withFileSizeInBytes(Math.max(1, bytes / files))
          .withMetrics(new Metrics(fileRows, null, null, null, null, lower, upper))
          .build());
    }
    append.commit();
  }

  private static void lineitem(InMemoryCatalog catalog, long rows, long bytes, boolean identifierFields) {
    Schema schema = identifierFields ? lineitemSchema() : new Schema(lineitemSchema().columns());
    Table table = catalog.createTable(TableIdentifier.of(TPCH, "lineitem"), schema, PartitionSpec.unpartitioned());
    int shipdate = schema.findField("l_shipdate").fieldId();
    AppendFiles append = table.newAppend();
    for (int year = 1992; year <= 1998; year++) {
      ByteBuffer low = Conversions.toByteBuffer(Types.DateType.get(), (int) LocalDate.of(year, 1, 1).toEpochDay());
      ByteBuffer high = Conversions.toByteBuffer(Types.DateType.get(), (int) LocalDate.of(year, 12, 31).toEpochDay());
      DataFile file = DataFiles.builder(PartitionSpec.unpartitioned())
          .withPath("memory://tpch/lineitem/shipyear-" + year + ".parquet")
          .withFormat(FileFormat.PARQUET)
          .withFileSizeInBytes(bytes / 7)
          .withMetrics(new Metrics(rows / 7, null, null, Map.of(shipdate, 0L), null,
              Map.of(shipdate, low), Map.of(shipdate, high)))
          .build();
      append.appendFile(file);
    }
    append.commit();
  }

  private static Types.DecimalType money() {
    return Types.DecimalType.of(15, 2);
  }

  public static Schema lineitemSchema() {
    return new Schema(List.of(
        required(1, "l_orderkey", Types.LongType.get()),
        required(2, "l_partkey", Types.LongType.get()),
        required(3, "l_suppkey", Types.LongType.get()),
        required(4, "l_linenumber", Types.IntegerType.get()),
        required(5, "l_quantity", money()),
        required(6, "l_extendedprice", money()),
        required(7, "l_discount", money()),
        required(8, "l_tax", money()),
        required(9, "l_returnflag", Types.StringType.get()),
        required(10, "l_linestatus", Types.StringType.get()),
        required(11, "l_shipdate", Types.DateType.get()),
        required(12, "l_commitdate", Types.DateType.get()),
        required(13, "l_receiptdate", Types.DateType.get()),
        required(14, "l_shipinstruct", Types.StringType.get()),
        required(15, "l_shipmode", Types.StringType.get()),
        required(16, "l_comment", Types.StringType.get())), Set.of(1, 4));
  }

  public static Schema ordersSchema() {
    return new Schema(List.of(
        required(1, "o_orderkey", Types.LongType.get()),
        required(2, "o_custkey", Types.LongType.get()),
        required(3, "o_orderstatus", Types.StringType.get()),
        required(4, "o_totalprice", money()),
        required(5, "o_orderdate", Types.DateType.get()),
        required(6, "o_orderpriority", Types.StringType.get()),
        required(7, "o_clerk", Types.StringType.get()),
        required(8, "o_shippriority", Types.IntegerType.get()),
        required(9, "o_comment", Types.StringType.get())), Set.of(1));
  }

  public static Schema customerSchema() {
    return new Schema(List.of(
        required(1, "c_custkey", Types.LongType.get()),
        required(2, "c_name", Types.StringType.get()),
        required(3, "c_address", Types.StringType.get()),
        required(4, "c_nationkey", Types.LongType.get()),
        required(5, "c_phone", Types.StringType.get()),
        required(6, "c_acctbal", money()),
        required(7, "c_mktsegment", Types.StringType.get()),
        required(8, "c_comment", Types.StringType.get())), Set.of(1));
  }

  public static Schema partSchema() {
    return new Schema(List.of(
        required(1, "p_partkey", Types.LongType.get()),
        required(2, "p_name", Types.StringType.get()),
        required(3, "p_mfgr", Types.StringType.get()),
        required(4, "p_brand", Types.StringType.get()),
        required(5, "p_type", Types.StringType.get()),
        required(6, "p_size", Types.IntegerType.get()),
        required(7, "p_container", Types.StringType.get()),
        required(8, "p_retailprice", money()),
        required(9, "p_comment", Types.StringType.get())), Set.of(1));
  }

  public static Schema partsuppSchema() {
    return new Schema(List.of(
        required(1, "ps_partkey", Types.LongType.get()),
        required(2, "ps_suppkey", Types.LongType.get()),
        required(3, "ps_availqty", Types.IntegerType.get()),
        required(4, "ps_supplycost", money()),
        required(5, "ps_comment", Types.StringType.get())), Set.of(1, 2));
  }

  public static Schema supplierSchema() {
    return new Schema(List.of(
        required(1, "s_suppkey", Types.LongType.get()),
        required(2, "s_name", Types.StringType.get()),
        required(3, "s_address", Types.StringType.get()),
        required(4, "s_nationkey", Types.LongType.get()),
        required(5, "s_phone", Types.StringType.get()),
        required(6, "s_acctbal", money()),
        required(7, "s_comment", Types.StringType.get())), Set.of(1));
  }

  public static Schema nationSchema() {
    return new Schema(List.of(
        required(1, "n_nationkey", Types.LongType.get()),
        required(2, "n_name", Types.StringType.get()),
        required(3, "n_regionkey", Types.LongType.get()),
        required(4, "n_comment", Types.StringType.get())), Set.of(1));
  }

  public static Schema regionSchema() {
    return new Schema(List.of(
        required(1, "r_regionkey", Types.LongType.get()),
        required(2, "r_name", Types.StringType.get()),
        required(3, "r_comment", Types.StringType.get())), Set.of(1));
  }
}

package dev.squall.engine.scan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.squall.engine.testing.DuckDbOracle;
import dev.squall.engine.testing.LocalFileIO;
import dev.squall.engine.testing.Rows;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CombinedScanTask;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.ScanTaskParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Iceberg row-level deletes through the scan: tables written with Iceberg's own writers in a real
 * catalog (JDBC catalog on SQLite, files on local disk), with position delete files and equality
 * deletes (format v2) and a deletion vector (format v3), planned by Iceberg scan planning into
 * split JSON as Squall's planner does, read through {@link ParquetSplitReader}. The expected rows
 * come from DuckDB over the same data files, with the deletes applied in SQL: position delete files
 * read by DuckDB (or the positions the test deleted, for the Puffin deletion vector) and equality
 * delete files anti-joined null-safely, only to data files committed before them.
 */
class IcebergDeletesTest {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "cat", Types.IntegerType.get()),
      Types.NestedField.optional(4, "amount", Types.DecimalType.of(10, 2)),
      Types.NestedField.optional(5, "d", Types.DateType.get()));
  private static final int ROWS_PER_FILE = 6_000;

  @TempDir
  Path dir;
  private JdbcCatalog catalog;

  @BeforeEach
  void openCatalog() {
    catalog = new JdbcCatalog();
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.URI, "jdbc:sqlite:" + dir.resolve("catalog.db"));
    props.put(CatalogProperties.WAREHOUSE_LOCATION, dir.resolve("warehouse").toString());
    props.put(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName());
    props.put(CatalogProperties.CLIENT_POOL_SIZE, "1");
    catalog.initialize("deletes", props);
    catalog.createNamespace(Namespace.of("db"));
  }

  @AfterEach
  void closeCatalog() throws IOException {
    catalog.close();
  }

  @Test
  void positionAndEqualityDeletesOfAFormatV2TableLeaveDuckDbsRemainingRows() throws Exception {
    Table table = createTable("v2", 2);
    DataFile f1 = writeData(table, "f1", 0);
    DataFile f2 = writeData(table, "f2", ROWS_PER_FILE);
    table.newAppend().appendFile(f1).appendFile(f2).commit();

    // One position delete file for both data files, rows in several row groups.
    List<long[]> positions = List.of(
        new long[] {0, 1, 7, 999, 1000, 2500, 4001, ROWS_PER_FILE - 1},
        new long[] {3, 1234, 5000});
    DeleteFile posDeletes = writePositionDeletes(table, List.of(f1, f2), positions);
    DeleteFile byCat = writeEqualityDeletes(table, "eq-cat", new int[] {3}, new Object[][] {{null, 3, null}, {null, null, null}});
    DeleteFile byNameAndDay = writeEqualityDeletes(table, "eq-name-d", new int[] {2, 5},
        new Object[][] {{"n5", null, day(5)}, {"n6", null, day(6)}, {null, null, day(40)}});
    table.newRowDelta().addDeletes(posDeletes).addDeletes(byCat).addDeletes(byNameAndDay).commit();
    // Appended after the deletes: the equality deletes do not apply to it.
    DataFile f3 = writeData(table, "f3", 2 * ROWS_PER_FILE);
    table.newAppend().appendFile(f3).commit();

    List<List<Object>> actual = scan(table, "id", "amount");
    String expectedSql = "SELECT id, amount FROM read_parquet(" + list(f1, f2, f3) + ", filename = true, file_row_number = true) t"
        + " WHERE NOT EXISTS (SELECT 1 FROM read_parquet('" + posDeletes.location() + "') p"
        + "   WHERE p.file_path = t.filename AND p.pos = t.file_row_number)"
        + " AND NOT (t.filename IN (" + list(f1, f2).replace("[", "").replace("]", "") + ") AND ("
        + "   EXISTS (SELECT 1 FROM read_parquet('" + byCat.location() + "') e WHERE e.cat IS NOT DISTINCT FROM t.cat)"
        + "   OR EXISTS (SELECT 1 FROM read_parquet('" + byNameAndDay.location() + "') e"
        + "     WHERE e.name IS NOT DISTINCT FROM t.name AND e.d IS NOT DISTINCT FROM t.d)))";
    List<List<Object>> expected = Rows.duckdb(DuckDbOracle.connection(), expectedSql);
    assertThat(expected.size()).isLessThan(3 * ROWS_PER_FILE - 1000).isGreaterThan(ROWS_PER_FILE);
    assertNull(Rows.difference(expected, actual, false));
  }

  @Test
  void aDeletionVectorOfAFormatV3TableAndEqualityDeletesLeaveDuckDbsRemainingRows() throws Exception {
    Table table = createTable("v3", 3);
    DataFile f1 = writeData(table, "f1", 0);
    DataFile f2 = writeData(table, "f2", ROWS_PER_FILE);
    table.newAppend().appendFile(f1).appendFile(f2).commit();

    long[] deleted = {0, 2, 998, 999, 1000, 1001, 3333, ROWS_PER_FILE - 1};
    DeleteFile dv;
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PUFFIN).build();
    try (BaseDVFileWriter w = new BaseDVFileWriter(files, path -> null)) {
      for (long p : deleted) {
        w.delete(f2.location(), p, table.spec(), null);
      }
      w.close();
      dv = w.result().deleteFiles().get(0);
    }
    DeleteFile byName = writeEqualityDeletes(table, "eq-name", new int[] {2}, new Object[][] {{"n1", null, null}, {null, null, null}});
    table.newRowDelta().addDeletes(dv).addDeletes(byName).commit();

    List<List<Object>> actual = scan(table, "amount", "d", "id");
    StringBuilder positions = new StringBuilder();
    for (long p : deleted) {
      positions.append(positions.length() == 0 ? "" : ", ").append(p);
    }
    String expectedSql = "SELECT amount, d - DATE '1970-01-01', id FROM read_parquet(" + list(f1, f2) + ", filename = true, file_row_number = true) t"
        + " WHERE NOT (t.filename = '" + f2.location() + "' AND t.file_row_number IN (" + positions + "))"
        + " AND NOT EXISTS (SELECT 1 FROM read_parquet('" + byName.location() + "') e WHERE e.name IS NOT DISTINCT FROM t.name)";
    List<List<Object>> expected = Rows.duckdb(DuckDbOracle.connection(), expectedSql);
    assertThat(expected.size()).isLessThan(2 * ROWS_PER_FILE - deleted.length);
    assertNull(Rows.difference(expected, actual, false));
  }

  private Table createTable(String name, int formatVersion) {
    return catalog.buildTable(TableIdentifier.of("db", name), SCHEMA)
        .withPartitionSpec(PartitionSpec.unpartitioned())
        .withProperty(TableProperties.FORMAT_VERSION, Integer.toString(formatVersion))
        // Small row groups: deleted positions fall in several, and splits cut files at them.
        .withProperty(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, "16384")
        .create();
  }

  private static LocalDate day(int i) {
    return LocalDate.of(2020, 1, 1).plusDays(i);
  }

  private DataFile writeData(Table table, String name, long firstId) throws IOException {
    String path = table.location() + "/data/" + name + ".parquet";
    DataWriter<Record> writer = Parquet.writeData(table.io().newOutputFile(path))
        .forTable(table)
        .createWriterFunc(GenericParquetWriter::create)
        .withSpec(table.spec())
        .overwrite()
        .build();
    try (DataWriter<Record> w = writer) {
      for (int i = 0; i < ROWS_PER_FILE; i++) {
        long id = firstId + i;
        GenericRecord r = GenericRecord.create(SCHEMA);
        r.setField("id", id);
        r.setField("name", id % 40 == 0 ? null : "n" + id % 13);
        r.setField("cat", id % 50 == 0 ? null : (int) (id % 7));
        r.setField("amount", BigDecimal.valueOf(id * 37 % 100_000, 2));
        r.setField("d", day((int) (id % 60)));
        w.write(r);
      }
    }
    return writer.toDataFile();
  }

  private DeleteFile writePositionDeletes(Table table, List<DataFile> files, List<long[]> positions) throws IOException {
    String path = table.location() + "/data/pos-deletes.parquet";
    PositionDeleteWriter<Record> writer = Parquet.writeDeletes(table.io().newOutputFile(path))
        .forTable(table)
        .rowSchema(null) // path and position only
        .withSpec(table.spec())
        .overwrite()
        .buildPositionWriter();
    try (PositionDeleteWriter<Record> w = writer) {
      for (int f = 0; f < files.size(); f++) {
        for (long p : new TreeSet<>(java.util.Arrays.stream(positions.get(f)).boxed().toList())) {
          w.write(PositionDelete.<Record>create().set(files.get(f).location(), p));
        }
      }
    }
    return writer.toDeleteFile();
  }

  /** Rows are {name, cat, d} values; only the equality fields' values are written. */
  private DeleteFile writeEqualityDeletes(Table table, String name, int[] fieldIds, Object[][] rows) throws IOException {
    Schema deleteSchema = SCHEMA.select(java.util.Arrays.stream(fieldIds).mapToObj(id -> SCHEMA.findField(id).name()).toList());
    String path = table.location() + "/data/" + name + ".parquet";
    EqualityDeleteWriter<Record> writer = Parquet.writeDeletes(table.io().newOutputFile(path))
        .forTable(table)
        .rowSchema(deleteSchema)
        .createWriterFunc(GenericParquetWriter::create)
        .equalityFieldIds(fieldIds)
        .withSpec(table.spec())
        .overwrite()
        .buildEqualityWriter();
    try (EqualityDeleteWriter<Record> w = writer) {
      for (Object[] row : rows) {
        GenericRecord r = GenericRecord.create(deleteSchema);
        for (Types.NestedField f : deleteSchema.columns()) {
          r.setField(f.name(), switch (f.name()) {
            case "name" -> row[0];
            case "cat" -> row[1];
            default -> row[2];
          });
        }
        w.write(r);
      }
    }
    return writer.toDeleteFile();
  }

  /**
   * Plans the table's current snapshot as Squall's split planner does (Iceberg scan planning with
   * a split target size, each file scan task as ScanTaskParser JSON) and reads every split.
   */
  private List<List<Object>> scan(Table table, String... columns) throws IOException {
    Schema projected = table.schema().select(columns);
    // Output order is the projection's order.
    Schema ordered = new Schema(java.util.Arrays.stream(columns).map(c -> projected.findField(c)).toList());
    List<List<Object>> rows = new ArrayList<>();
    int splits = 0;
    int withDeletes = 0;
    try (CloseableIterable<CombinedScanTask> tasks = table.newScan().select(columns)
        .option(TableProperties.SPLIT_SIZE, "20000").planTasks()) {
      for (CombinedScanTask combined : tasks) {
        for (FileScanTask planned : combined.files()) {
          FileScanTask task = ScanTaskParser.fromJson(ScanTaskParser.toJson(planned), true);
          splits++;
          withDeletes += task.deletes().isEmpty() ? 0 : 1;
          rows.addAll(ParquetSplitReaderTest.read(task, ordered, 1000));
        }
      }
    }
    assertThat(splits).as("splits").isGreaterThan(3);
    assertThat(withDeletes).as("splits with delete files").isGreaterThan(1);
    return rows;
  }

  private static String list(DataFile... files) {
    StringBuilder sb = new StringBuilder("[");
    for (DataFile f : files) {
      sb.append(sb.length() == 1 ? "" : ", ").append('\'').append(f.location()).append('\'');
    }
    return sb.append(']').toString();
  }
}

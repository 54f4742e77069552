package dev.squall.engine.testing;

import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.ScanTaskParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.io.LocalOutputFile;

/**
 * TPC-H data as Parquet data files written with Iceberg's writers (io.trino.tpch generator; money
 * and quantities DECIMAL(15, 2), dates DATE, keys BIGINT), plus one Iceberg FileScanTask JSON per
 * file. Generated once per JVM under {@code target/}; DuckDB reads the very same files. Tests may
 * add tables of their own rows ({@link #addTable}) written the same way.
 */
public final class TpchFixture {
  /** One table: its Iceberg schema, data files and splits. */
  public record Table(String name, Schema schema, List<String> splitJson, List<String> files, long rows) {
    public Types.NestedField field(String column) {
      Types.NestedField f = schema.findField(column);
      if (f == null) {
        throw new IllegalArgumentException("no column " + column + " in " + name);
      }
      return f;
    }
  }

  private static final Map<String, TpchFixture> BY_SCALE = new LinkedHashMap<>();

  private final Path dir;
  private final Map<String, Table> tables = new LinkedHashMap<>();

  /** The fixture for a scale factor, generated on first use in this JVM. */
  public static synchronized TpchFixture get(double scaleFactor) {
    String key = Double.toString(scaleFactor);
    TpchFixture f = BY_SCALE.get(key);
    if (f == null) {
      f = new TpchFixture(scaleFactor, Path.of("target", "tpch-sf" + key).toAbsolutePath());
      BY_SCALE.put(key, f);
    }
    return f;
  }

  public static TpchFixture sf001() {
    return get(0.01);
  }

  private TpchFixture(double scaleFactor, Path dir) {
    this.dir = dir;
    try {
      deleteRecursively(dir);
      for (TpchTable<?> t : TpchTable.getTables()) {
        int parts = t == TpchTable.LINE_ITEM || t == TpchTable.ORDERS ? 3 : 1;
        tables.put(t.getTableName(), write(t, scaleFactor, parts));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public Table table(String name) {
    Table t = tables.get(name);
    if (t == null) {
      throw new IllegalArgumentException("no TPC-H table " + name);
    }
    return t;
  }

  public Map<String, Table> tables() {
    return tables;
  }

  public Path dir() {
    return dir;
  }

  /** The DuckDB expression reading a table's files. */
  public String duckdbSource(String table) {
    return "read_parquet('" + dir.resolve(table) + "/*.parquet')";
  }

  private static Type icebergType(TpchColumn<?> c) {
    return switch (c.getType().getBase()) {
      case IDENTIFIER -> Types.LongType.get();
      case INTEGER -> Types.IntegerType.get();
      case DATE -> Types.DateType.get();
      case DOUBLE -> Types.DecimalType.of(15, 2);
      case VARCHAR -> Types.StringType.get();
    };
  }

  private <E extends TpchEntity> Table write(TpchTable<E> t, double sf, int parts) throws IOException {
    List<Types.NestedField> fields = new ArrayList<>();
    int id = 1;
    for (TpchColumn<E> c : t.getColumns()) {
      fields.add(Types.NestedField.optional(id++, c.getColumnName(), icebergType(c)));
    }
    Schema schema = new Schema(fields);
    List<TpchColumn<E>> cols = t.getColumns();
    List<Iterable<Object[]>> files = new ArrayList<>();
    for (int part = 1; part <= parts; part++) {
      Iterable<E> entities = t.createGenerator(sf, part, parts);
      files.add(() -> new java.util.Iterator<Object[]>() {
        private final java.util.Iterator<E> it = entities.iterator();

        @Override
        public boolean hasNext() {
          return it.hasNext();
        }

        @Override
        public Object[] next() {
          E e = it.next();
          Object[] row = new Object[cols.size()];
          for (int i = 0; i < cols.size(); i++) {
            TpchColumn<E> c = cols.get(i);
            row[i] = switch (c.getType().getBase()) {
              case IDENTIFIER -> c.getIdentifier(e);
              case INTEGER -> c.getInteger(e);
              case DATE -> LocalDate.ofEpochDay(c.getDate(e));
              case DOUBLE -> BigDecimal.valueOf(c.getDouble(e)).setScale(2, RoundingMode.HALF_UP);
              case VARCHAR -> c.getString(e);
            };
          }
          return row;
        }
      });
    }
    return writeTable(t.getTableName(), schema, files, Map.of("write.parquet.row-group-size-bytes", "262144"));
  }

  /**
   * Adds a table of hand-made rows beside the TPC-H tables, written by the same Iceberg Parquet
   * writer into one data file per element of {@code files} (an empty element makes a data file of
   * no rows). Row values are Iceberg's generic ones (Long, Integer, BigDecimal of the column's
   * scale, String, LocalDate, Double, Boolean, null). Added once per name; later calls return it.
   *
   * @param writeProperties Iceberg {@code write.parquet.*} properties, e.g. small dictionary or page sizes
   */
  public synchronized Table addTable(String name, Schema schema, List<? extends Iterable<Object[]>> files, Map<String, String> writeProperties) {
    Table existing = tables.get(name);
    if (existing != null) {
      return existing;
    }
    try {
      Table t = writeTable(name, schema, files, writeProperties);
      tables.put(name, t);
      return t;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Table writeTable(String name, Schema schema, List<? extends Iterable<Object[]>> parts, Map<String, String> writeProperties)
      throws IOException {
    PartitionSpec spec = PartitionSpec.unpartitioned();
    Path tableDir = dir.resolve(name);
    Files.createDirectories(tableDir);
    List<String> splits = new ArrayList<>();
    List<String> files = new ArrayList<>();
    long rows = 0;
    for (int part = 1; part <= parts.size(); part++) {
      File file = tableDir.resolve("part-" + part + ".parquet").toFile();
      Parquet.DataWriteBuilder builder = Parquet.writeData(org.apache.iceberg.Files.localOutput(file))
          .schema(schema)
          .withSpec(spec)
          .createWriterFunc(GenericParquetWriter::create)
          .overwrite();
      writeProperties.forEach(builder::set);
      DataWriter<Record> writer = builder.build();
      GenericRecord record = GenericRecord.create(schema);
      try (DataWriter<Record> w = writer) {
        for (Object[] row : parts.get(part - 1)) {
          GenericRecord r = record.copy();
          for (int i = 0; i < row.length; i++) {
            r.set(i, row[i]);
          }
          w.write(r);
          rows++;
        }
      }
      DataFile dataFile = writer.toDataFile();
      if (dataFile.recordCount() == 0) {
        dataFile = writeEmptyFile(schema, spec, file);
      }
      files.add(file.getPath());
      BaseFileScanTask task = new BaseFileScanTask(dataFile, new DeleteFile[0], SchemaParser.toJson(schema),
          PartitionSpecParser.toJson(spec), ResidualEvaluator.unpartitioned(Expressions.alwaysTrue()));
      splits.add(ScanTaskParser.toJson(task));
    }
    return new Table(name, schema, splits, files, rows);
  }

  /** Iceberg's writer makes no file for no rows; Parquet-MR writes a valid one with no row groups. */
  private static DataFile writeEmptyFile(Schema schema, PartitionSpec spec, File file) throws IOException {
    ParquetFileWriter w = new ParquetFileWriter(new LocalOutputFile(file.toPath()), ParquetSchemaUtil.convert(schema, "table"),
        ParquetFileWriter.Mode.OVERWRITE, 128L << 20, 0);
    w.start();
    w.end(Map.of());
    return DataFiles.builder(spec).withPath(file.getPath()).withFileSizeInBytes(file.length()).withRecordCount(0)
        .withFormat(FileFormat.PARQUET).build();
  }

  private static void deleteRecursively(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (var s = Files.walk(p)) {
      s.sorted(java.util.Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
    }
  }
}

package dev.squall.task.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.BoolColumn;
import dev.squall.engine.column.BytesColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.column.DoubleColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.types.SqlType;
import dev.squall.local.catalog.LocalCatalog;
import dev.squall.local.s3.EmbeddedS3;
import dev.squall.proto.v1.DataType;
import dev.squall.proto.v1.ErrorCode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The column-wise writer against two independent readers and Iceberg's own writer: engine column
 * batches of every type the engine writes (DECIMAL(38, 6) beyond the long range, NaN and signed
 * zeros, NULL-heavy and all-NULL columns, empty strings beside NULLs, non-ASCII text) are written by
 * {@link DataFileTaskWriter}; DuckDB ({@code read_parquet}) and Iceberg's generic reader (after a
 * commit) must return the source rows, and each DataFile's column metrics must equal those Iceberg's
 * generic writer reports for the same rows with the same table properties.
 */
class ColumnarWriterTest {
  static final String BUCKET = "squall-columnar";
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "i", Types.IntegerType.get()),
      Types.NestedField.optional(3, "f", Types.FloatType.get()),
      Types.NestedField.optional(4, "d", Types.DoubleType.get()),
      Types.NestedField.optional(5, "dec9", Types.DecimalType.of(9, 2)),
      Types.NestedField.optional(6, "dec18", Types.DecimalType.of(18, 4)),
      Types.NestedField.optional(7, "dec38", Types.DecimalType.of(38, 6)),
      Types.NestedField.optional(8, "s", Types.StringType.get()),
      Types.NestedField.optional(9, "b", Types.BinaryType.get()),
      Types.NestedField.optional(10, "flag", Types.BooleanType.get()),
      Types.NestedField.optional(11, "day", Types.DateType.get()),
      Types.NestedField.optional(12, "ts", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(13, "tstz", Types.TimestampType.withZone()),
      Types.NestedField.optional(14, "sparse", Types.StringType.get()),
      Types.NestedField.optional(15, "nothing", Types.LongType.get()));
  static final List<SqlType> TYPES = List.of(SqlType.BIGINT, SqlType.INTEGER, new SqlType(DataType.Kind.REAL, 0, 0),
      SqlType.DOUBLE, SqlType.decimal(9, 2), SqlType.decimal(18, 4), SqlType.decimal(38, 6), SqlType.VARCHAR,
      new SqlType(DataType.Kind.VARBINARY, 0, 0), SqlType.BOOLEAN, SqlType.DATE, SqlType.TIMESTAMP,
      SqlType.TIMESTAMP, SqlType.VARCHAR, SqlType.BIGINT);
  static final LocalDateTime EPOCH = LocalDateTime.of(1970, 1, 1, 0, 0);
  static final String[] WORDS = {"", "a", "ünïcödé", "日本語テキスト", "emoji 😀🎉", "tab\tand\nnewline", "zzz"};

  @TempDir static Path dir;
  static EmbeddedS3 s3;
  static LocalCatalog local;
  static FileIO io;
  static final AtomicInteger TABLES = new AtomicInteger();

  @BeforeAll
  static void start() throws Exception {
    s3 = EmbeddedS3.start(dir.resolve("s3"), 0, List.of(BUCKET));
    local = LocalCatalog.open(s3, dir, BUCKET);
    ((SupportsNamespaces) local.catalog()).createNamespace(Namespace.of("c"));
    io = local.newFileIO();
  }

  @AfterAll
  static void stop() throws Exception {
    io.close();
    local.close();
    s3.close();
  }

  /** Row i of the data set, in the Java types of Iceberg's generic reader and writer. */
  static List<Object> row(int i) {
    BigInteger big = BigInteger.TEN.pow(30).multiply(BigInteger.valueOf(i % 2 == 0 ? 7 : -7)).add(BigInteger.valueOf(i));
    BigInteger dec38 = switch (i % 6) {
      case 0 -> big;
      case 1 -> BigInteger.TEN.pow(38).subtract(BigInteger.ONE).negate();
      case 2 -> BigInteger.valueOf(i * 1_000_003L);
      case 3 -> BigInteger.valueOf(Long.MIN_VALUE).subtract(BigInteger.valueOf(i));
      default -> i % 5 == 0 ? null : BigInteger.valueOf(-i);
    };
    float f = switch (i % 9) {
      case 0 -> Float.NaN;
      case 1 -> -0.0f;
      case 2 -> Float.POSITIVE_INFINITY;
      default -> i * 0.25f - 100;
    };
    double d = switch (i % 10) {
      case 0 -> Double.NaN;
      case 1 -> -0.0;
      case 2 -> 0.0;
      case 3 -> Double.NEGATIVE_INFINITY;
      default -> i * 1.0e-3 - 7.5;
    };
    LocalDateTime ts = EPOCH.plusDays(19_000 + i % 40).plusSeconds(i * 37L).plusNanos((i % 1000) * 1000L);
    return Arrays.asList(
        (long) i * 3 - 1000,
        i % 7 == 0 ? null : i % 2 == 0 ? Integer.MAX_VALUE - i : Integer.MIN_VALUE + i,
        i % 11 == 0 ? null : f,
        i % 13 == 0 ? null : d,
        i % 3 == 0 ? null : BigDecimal.valueOf((i * 7919L) % 2_000_000_000L - 999_999_999L, 2),
        i % 4 == 0 ? null : BigDecimal.valueOf(i % 2 == 0 ? 999_999_999_999_999_999L - i : -999_999_999_999_999_999L + i, 4),
        dec38 == null ? null : new BigDecimal(dec38, 6),
        i % 5 == 0 ? null : WORDS[i % WORDS.length] + (i % 3 == 0 ? "" : "-" + i),
        i % 8 == 0 ? null : ByteBuffer.wrap(i % 16 == 1 ? new byte[0] : new byte[] {(byte) i, 0, (byte) -i}),
        i % 17 == 0 ? null : i % 3 == 0,
        i % 19 == 0 ? null : LocalDate.of(1969, 12, 20).plusDays(i % 400),
        i % 23 == 0 ? null : ts,
        i % 29 == 0 ? null : ts.minusYears(60).atOffset(ZoneOffset.UTC),
        i % 20 == 0 ? "rare " + i : null,
        null);
  }

  static List<List<Object>> rows(int from, int to) {
    List<List<Object>> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add(row(i));
    }
    return out;
  }

  /** The rows as one batch of engine columns. */
  static Column[] columns(List<List<Object>> rows) {
    Column[] out = new Column[TYPES.size()];
    for (int c = 0; c < out.length; c++) {
      Column col = Column.empty(TYPES.get(c), rows.size());
      for (List<Object> row : rows) {
        Object v = row.get(c);
        if (v == null) {
          col.appendNull();
        } else if (v instanceof Long x) {
          ((LongColumn) col).append(x);
        } else if (v instanceof Integer x) {
          ((LongColumn) col).append(x);
        } else if (v instanceof Float x) {
          ((DoubleColumn) col).append(x);
        } else if (v instanceof Double x) {
          ((DoubleColumn) col).append(x);
        } else if (v instanceof BigDecimal x) {
          ((DecimalColumn) col).appendUnscaled(x.unscaledValue());
        } else if (v instanceof String x) {
          ((BytesColumn) col).append(x.getBytes(StandardCharsets.UTF_8));
        } else if (v instanceof ByteBuffer x) {
          ((BytesColumn) col).append(bytes(x));
        } else if (v instanceof Boolean x) {
          ((BoolColumn) col).append(x);
        } else if (v instanceof LocalDate x) {
          ((LongColumn) col).append(x.toEpochDay());
        } else if (v instanceof LocalDateTime x) {
          ((LongColumn) col).append(ChronoUnit.MICROS.between(EPOCH, x));
        } else if (v instanceof OffsetDateTime x) {
          ((LongColumn) col).append(ChronoUnit.MICROS.between(EPOCH, x.toLocalDateTime()));
        } else {
          throw new IllegalArgumentException(String.valueOf(v));
        }
      }
      out[c] = col;
    }
    return out;
  }

  static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }

  static List<List<Object>> sorted(List<List<Object>> rows) {
    List<List<Object>> out = new ArrayList<>(rows);
    out.sort(Comparator.comparingLong(r -> (Long) r.get(0)));
    return out;
  }

  static Table createTable(PartitionSpec.Builder spec, Map<String, String> properties) {
    return local.catalog().createTable(TableIdentifier.of("c", "t" + TABLES.incrementAndGet()), SCHEMA,
        spec.build(), properties);
  }

  /** Writes the batches with the column-wise writer as attempt 0 of a task. */
  static List<DataFile> writeColumnar(Table table, List<List<List<Object>>> batches) {
    WriteTarget target = new WriteTarget(table.location(), table.schema(), table.spec(), FileFormat.PARQUET,
        table.properties());
    DataFileTaskWriter writer = new DataFileTaskWriter(io, target,
        new DataFileNames("job-col", 1, 0, 0, FileFormat.PARQUET));
    for (List<List<Object>> batch : batches) {
      writer.write(columns(batch), batch.size());
    }
    return writer.complete();
  }

  /** Writes rows with Iceberg's generic writer to one file, for its metrics. */
  static DataFile writeWithIceberg(Table table, List<List<Object>> rows, StructLike partition, String name) throws Exception {
    GenericAppenderFactory appenders = new GenericAppenderFactory(table.schema(), table.spec()).setAll(table.properties());
    String location = table.location() + "/iceberg-writer/" + name + ".parquet";
    DataWriter<Record> writer = appenders.newDataWriter(
        EncryptedFiles.plainAsEncryptedOutput(io.newOutputFile(location)), FileFormat.PARQUET, partition);
    try (writer) {
      for (List<Object> row : rows) {
        writer.write(record(row));
      }
    }
    return writer.toDataFile();
  }

  static GenericRecord record(List<Object> row) {
    GenericRecord record = GenericRecord.create(SCHEMA);
    for (int c = 0; c < row.size(); c++) {
      record.set(c, row.get(c));
    }
    return record;
  }

  static void assertSameMetrics(DataFile actual, DataFile expected) {
    assertThat(actual.recordCount()).isEqualTo(expected.recordCount());
    assertThat(actual.valueCounts()).isEqualTo(expected.valueCounts());
    assertThat(actual.nullValueCounts()).isEqualTo(expected.nullValueCounts());
    assertThat(actual.nanValueCounts()).isEqualTo(expected.nanValueCounts());
    assertThat(actual.lowerBounds()).isEqualTo(expected.lowerBounds());
    assertThat(actual.upperBounds()).isEqualTo(expected.upperBounds());
  }

  /** The table's rows through Iceberg's generic reader, binary values as byte lists for comparison. */
  static List<List<Object>> readTable(Table table) throws Exception {
    table.refresh();
    List<List<Object>> out = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record r : records) {
        List<Object> row = new ArrayList<>();
        for (int c = 0; c < r.size(); c++) {
          row.add(r.get(c));
        }
        out.add(row);
      }
    }
    return sorted(out);
  }

  /**
   * The rows of Parquet files as DuckDB reads them, in the expected row's Java types: binary as
   * {@code hex()} is turned back into a ByteBuffer and timestamptz compared as an instant in UTC.
   */
  static List<List<Object>> duckRows(List<String> locations) throws Exception {
    String files = locations.stream().map(l -> "'" + local.localPathOf(l) + "'").collect(Collectors.joining(", "));
    List<List<Object>> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT id, i, f, d, dec9, dec18, dec38, s, hex(b), flag, day, ts, "
            + "epoch_us(tstz), sparse, nothing FROM read_parquet([" + files + "], hive_partitioning = false)")) {
      while (rs.next()) {
        List<Object> row = new ArrayList<>();
        row.add(rs.getLong(1));
        row.add(rs.getObject(2, Integer.class));
        row.add(nullable(rs, rs.getFloat(3)));
        row.add(nullable(rs, rs.getDouble(4)));
        row.add(rs.getBigDecimal(5));
        row.add(rs.getBigDecimal(6));
        row.add(rs.getBigDecimal(7));
        row.add(rs.getString(8));
        String hex = rs.getString(9);
        row.add(hex == null ? null : ByteBuffer.wrap(HexFormat.of().parseHex(hex)));
        row.add(rs.getObject(10, Boolean.class));
        row.add(rs.getObject(11, LocalDate.class));
        row.add(rs.getObject(12, LocalDateTime.class));
        Long micros = rs.getObject(13, Long.class);
        row.add(micros == null ? null : EPOCH.plus(micros, ChronoUnit.MICROS).atOffset(ZoneOffset.UTC));
        row.add(rs.getString(14));
        row.add(rs.getObject(15, Long.class));
        out.add(row);
      }
    }
    return sorted(out);
  }

  static Object nullable(ResultSet rs, Object value) throws Exception {
    return rs.wasNull() ? null : value;
  }

  static long rowGroups(String location) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(DISTINCT row_group_id) FROM parquet_metadata('"
            + local.localPathOf(location) + "')")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static void commit(Table table, List<DataFile> files) {
    AppendFiles append = table.newAppend();
    files.forEach(append::appendFile);
    append.commit();
  }

  @Test
  void everyEngineTypeReadsBackAsWrittenAndHasIcebergsMetrics() throws Exception {
    Table table = createTable(PartitionSpec.builderFor(SCHEMA), Map.of());
    List<List<Object>> all = rows(0, 3000);
    List<DataFile> files = writeColumnar(table, List.of(all.subList(0, 1000), all.subList(1000, 1001),
        all.subList(1001, 3000)));

    assertThat(files).hasSize(1);
    DataFile file = files.get(0);
    assertThat(file.fileSizeInBytes()).isEqualTo(io.newInputFile(file.location()).getLength());
    assertThat(duckRows(List.of(file.location()))).isEqualTo(sorted(all));
    assertSameMetrics(file, writeWithIceberg(table, all, null, "all"));
    // The metrics the test compares are there to compare: bounds of the wide decimal, NaN counts.
    assertThat(file.upperBounds()).containsKey(7);
    assertThat(file.nanValueCounts().get(3)).isPositive();
    assertThat(file.nullValueCounts()).containsEntry(15, 3000L);

    commit(table, files);
    assertThat(readTable(table)).isEqualTo(sorted(all));
  }

  @Test
  void smallRowGroupsAndPagesMakeManyRowGroupsWithTheSameRowsAndMetrics() throws Exception {
    Map<String, String> props = Map.of("write.parquet.row-group-size-bytes", "32768",
        "write.parquet.page-size-bytes", "2048", "write.parquet.compression-codec", "snappy",
        "write.parquet.dict-size-bytes", "4096");
    Table table = createTable(PartitionSpec.builderFor(SCHEMA), props);
    List<List<Object>> all = rows(0, 20_000);
    List<DataFile> files = writeColumnar(table, List.of(all.subList(0, 7000), all.subList(7000, 20_000)));

    assertThat(files).hasSize(1);
    DataFile file = files.get(0);
    assertThat(rowGroups(file.location())).isGreaterThan(5);
    assertThat(file.splitOffsets()).hasSize((int) rowGroups(file.location()));
    assertThat(duckRows(List.of(file.location()))).isEqualTo(sorted(all));
    assertSameMetrics(file, writeWithIceberg(table, all, null, "many"));
    commit(table, files);
    assertThat(readTable(table)).isEqualTo(sorted(all));
  }

  @Test
  void nullTypedColumnIsWrittenAsNullsAndRefusedByARequiredColumn() throws Exception {
    Table table = createTable(PartitionSpec.builderFor(SCHEMA), Map.of());
    List<List<Object>> all = new ArrayList<>();
    for (List<Object> row : rows(0, 50)) {
      List<Object> copy = new ArrayList<>(row);
      copy.set(7, null);
      all.add(copy);
    }
    Column[] columns = columns(all);
    columns[7] = Column.nulls(new SqlType(DataType.Kind.NULL_TYPE, 0, 0), all.size());
    WriteTarget target = new WriteTarget(table.location(), table.schema(), table.spec(), FileFormat.PARQUET,
        table.properties());
    DataFileTaskWriter writer = new DataFileTaskWriter(io, target, new DataFileNames("job-n", 1, 0, 0, FileFormat.PARQUET));
    writer.write(columns, all.size());
    List<DataFile> files = writer.complete();
    assertThat(duckRows(files.stream().map(DataFile::location).toList())).isEqualTo(sorted(all));
    assertThat(files.get(0).nullValueCounts()).containsEntry(8, 50L);

    columns[0] = Column.nulls(new SqlType(DataType.Kind.NULL_TYPE, 0, 0), all.size());
    try (DataFileTaskWriter refusing = new DataFileTaskWriter(io, target,
        new DataFileNames("job-n", 1, 0, 1, FileFormat.PARQUET))) {
      assertThatThrownBy(() -> refusing.write(columns, all.size()))
          .isInstanceOfSatisfying(EngineException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.USER_ERROR))
          .hasMessageContaining("NULL value in column id");
    }
  }

  @Test
  void wideDecimalBeyondTheColumnsPrecisionIsAUserError() {
    Table table = createTable(PartitionSpec.builderFor(SCHEMA), Map.of());
    List<List<Object>> all = rows(0, 3);
    Column[] columns = columns(all);
    DecimalColumn wide = (DecimalColumn) Column.empty(SqlType.decimal(38, 6), 3);
    wide.appendUnscaled(BigInteger.ONE);
    wide.appendUnscaled(BigInteger.TEN.pow(38));
    wide.appendNull();
    columns[6] = wide;
    WriteTarget target = new WriteTarget(table.location(), table.schema(), table.spec(), FileFormat.PARQUET,
        table.properties());
    try (DataFileTaskWriter writer = new DataFileTaskWriter(io, target,
        new DataFileNames("job-w", 1, 0, 0, FileFormat.PARQUET))) {
      assertThatThrownBy(() -> writer.write(columns, 3))
          .isInstanceOfSatisfying(EngineException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.USER_ERROR))
          .hasMessageContaining("does not fit column dec38");
    }
  }

  @Test
  void unknownCompressionCodecIsAUserErrorNamingTheProperty() {
    Table table = createTable(PartitionSpec.builderFor(SCHEMA), Map.of("write.parquet.compression-codec", "zip"));
    WriteTarget target = new WriteTarget(table.location(), table.schema(), table.spec(), FileFormat.PARQUET,
        table.properties());
    assertThatThrownBy(() -> new DataFileTaskWriter(io, target, new DataFileNames("job-z", 1, 0, 0, FileFormat.PARQUET)))
        .isInstanceOfSatisfying(EngineException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.USER_ERROR))
        .hasMessageContaining("write.parquet.compression-codec").hasMessageContaining("zip");
  }

  @Test
  void partitionedWriteGroupsRowsByPartitionWithIcebergsMetricsPerFile() throws Exception {
    Table table = createTable(PartitionSpec.builderFor(SCHEMA).identity("flag").bucket("s", 3).month("ts"), Map.of());
    List<List<Object>> all = rows(0, 2000);
    List<DataFile> files = writeColumnar(table, List.of(all.subList(0, 1200), all.subList(1200, 2000)));

    // Group the source rows by partition with Iceberg's PartitionKey over records.
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
    Map<PartitionKey, List<List<Object>>> byPartition = new java.util.HashMap<>();
    for (List<Object> row : all) {
      key.partition(wrapper.wrap(record(row)));
      byPartition.computeIfAbsent(key.copy(), k -> new ArrayList<>()).add(row);
    }
    // Files stay open across batches: one file per partition value.
    assertThat(files).hasSize(byPartition.size());
    int n = 0;
    for (DataFile file : files) {
      PartitionKey partition = key.copy();
      for (int p = 0; p < table.spec().fields().size(); p++) {
        partition.set(p, file.partition().get(p, Object.class));
      }
      List<List<Object>> expected = byPartition.get(partition);
      assertThat(expected).as("partition %s", file.partition()).isNotNull();
      assertThat(duckRows(List.of(file.location()))).isEqualTo(sorted(expected));
      assertSameMetrics(file, writeWithIceberg(table, expected, partition, "p" + n++));
    }
    commit(table, files);
    assertThat(readTable(table)).isEqualTo(sorted(all));
  }

  @Test
  void filesRollNearTheTargetSizeAsWrittenNotAsBuffered() throws Exception {
    long target = 128 * 1024;
    Table table = createTable(PartitionSpec.builderFor(SCHEMA).identity("flag"),
        Map.of("write.target-file-size-bytes", Long.toString(target)));
    List<List<Object>> all = rows(0, 60_000);
    List<List<List<Object>>> batches = new ArrayList<>();
    for (int from = 0; from < all.size(); from += 5000) {
      batches.add(all.subList(from, from + 5000));
    }
    List<DataFile> files = writeColumnar(table, batches);

    Map<Object, List<Long>> sizes = new java.util.TreeMap<>(Comparator.comparing(String::valueOf));
    for (DataFile file : files) {
      assertThat(file.fileSizeInBytes()).isEqualTo(io.newInputFile(file.location()).getLength());
      sizes.computeIfAbsent(file.partition().get(0, Object.class), k -> new ArrayList<>()).add(file.fileSizeInBytes());
    }
    // Every file of a partition value but its last (the smallest: a value's files roll one after
    // the other) is within half and one and a half times the target.
    assertThat(sizes).hasSize(3);
    assertThat(sizes.get(false)).as(sizes.toString()).hasSizeGreaterThan(4);
    for (List<Long> perValue : sizes.values()) {
      perValue.sort(null);
      assertThat(perValue.subList(1, perValue.size())).as(sizes.toString())
          .allMatch(size -> size >= target / 2 && size <= target * 3 / 2);
    }
    assertThat(duckRows(files.stream().map(DataFile::location).toList())).isEqualTo(sorted(all));
  }
}

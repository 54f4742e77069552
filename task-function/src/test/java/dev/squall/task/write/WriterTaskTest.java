package dev.squall.task.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.engine.types.SqlType;
import dev.squall.local.catalog.LocalCatalog;
import dev.squall.local.s3.EmbeddedS3;
import dev.squall.proto.WireContract;
import dev.squall.proto.v1.DataFileWrite;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.Field;
import dev.squall.proto.v1.Literal;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.TaskOutput;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import dev.squall.proto.v1.UnionAll;
import dev.squall.proto.v1.Values;
import dev.squall.task.TaskRunner;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.relocated.com.google.common.hash.Hashing;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Writer tasks end to end on real parts: TaskRunner runs a VALUES fragment with a DataFileWrite
 * output against an embedded S3 (on disk), the commit messages are parsed back into DataFiles and
 * appended to a real Iceberg table of the local JDBC catalog, and the table read back through
 * Iceberg's generic reader and the files read by DuckDB are both compared with the source rows the
 * fragment was built from.
 */
class WriterTaskTest {
  static final String BUCKET = "squall-warehouse";
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "qty", Types.IntegerType.get()),
      Types.NestedField.optional(3, "price", Types.DoubleType.get()),
      Types.NestedField.optional(4, "amount", Types.DecimalType.of(12, 2)),
      Types.NestedField.optional(5, "category", Types.StringType.get()),
      Types.NestedField.optional(6, "flag", Types.BooleanType.get()),
      Types.NestedField.optional(7, "ship_date", Types.DateType.get()),
      Types.NestedField.optional(8, "created_at", Types.TimestampType.withoutZone()));
  static final List<SqlType> TYPES = List.of(SqlType.BIGINT, SqlType.INTEGER, SqlType.DOUBLE,
      SqlType.decimal(12, 2), SqlType.VARCHAR, SqlType.BOOLEAN, SqlType.DATE, SqlType.TIMESTAMP);
  static final String COLUMNS = "id, qty, price, amount, category, flag, ship_date, created_at";

  @TempDir static Path dir;
  static EmbeddedS3 s3;
  static LocalCatalog local;
  static S3Client client;
  static FileIO io;
  static BufferAllocator allocator;
  static TaskRunner runner;
  static final AtomicInteger TABLES = new AtomicInteger();

  @BeforeAll
  static void start() throws Exception {
    s3 = EmbeddedS3.start(dir.resolve("s3"), 0, List.of(BUCKET));
    local = LocalCatalog.open(s3, dir, BUCKET);
    ((SupportsNamespaces) local.catalog()).createNamespace(Namespace.of("w"));
    client = s3.newClient();
    io = local.newFileIO();
    allocator = new RootAllocator();
    runner = new TaskRunner(client, io, allocator);
  }

  @AfterAll
  static void stop() throws Exception {
    allocator.close();
    io.close();
    client.close();
    local.close();
    s3.close();
  }

  /** One source row; the Java types are those Iceberg's generic reader returns. */
  record Row(long id, Integer qty, Double price, BigDecimal amount, String category, Boolean flag,
      LocalDate shipDate, LocalDateTime createdAt) {
    List<Object> values() {
      return Arrays.asList(id, qty, price, amount, category, flag, shipDate, createdAt);
    }
  }

  /** Rows {@code from..to-1} of a deterministic data set with NULLs in every optional column. */
  static List<Row> rows(int from, int to) {
    List<Row> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add(new Row(i,
          i % 7 == 0 ? null : (i * 37) % 100 - 20,
          i % 11 == 0 ? null : i * 1.25,
          i % 13 == 0 ? null : BigDecimal.valueOf(i * 1234L - 50_000, 2),
          i % 5 == 0 ? null : "cat-" + (i % 3),
          i % 17 == 0 ? null : i % 2 == 0,
          LocalDate.of(2024, 1, 1).plusDays(i % 4),
          i % 19 == 0 ? null : LocalDateTime.of(2024, 3, 1, 0, 0).plusMinutes(i * 97L).plusNanos(i * 1000L)));
    }
    return out;
  }

  static Literal literal(Object v) {
    Literal.Builder b = Literal.newBuilder();
    if (v == null) {
      return b.setIsNull(true).build();
    } else if (v instanceof Long l) {
      return b.setLongValue(l).build();
    } else if (v instanceof Integer i) {
      return b.setLongValue(i).build();
    } else if (v instanceof Double d) {
      return b.setDoubleValue(d).build();
    } else if (v instanceof BigDecimal d) {
      return b.setDecimalUnscaled(d.unscaledValue().toString()).build();
    } else if (v instanceof String s) {
      return b.setStringValue(s).build();
    } else if (v instanceof Boolean f) {
      return b.setBoolValue(f).build();
    } else if (v instanceof LocalDate d) {
      return b.setDateDays((int) d.toEpochDay()).build();
    } else if (v instanceof LocalDateTime t) {
      return b.setTimestampMicros(ChronoUnit.MICROS.between(LocalDateTime.of(1970, 1, 1, 0, 0), t)).build();
    }
    throw new IllegalArgumentException(String.valueOf(v));
  }

  static dev.squall.proto.v1.Schema protoSchema() {
    dev.squall.proto.v1.Schema.Builder s = dev.squall.proto.v1.Schema.newBuilder();
    for (int c = 0; c < TYPES.size(); c++) {
      s.addFields(Field.newBuilder().setName(SCHEMA.columns().get(c).name()).setType(TYPES.get(c).toProto()));
    }
    return s.build();
  }

  static Operator values(List<Row> rows) {
    Values.Builder v = Values.newBuilder();
    for (Row r : rows) {
      v.addRowsBuilder().addAllValues(r.values().stream().map(WriterTaskTest::literal).toList());
    }
    return Operator.newBuilder().setOutputSchema(protoSchema()).setValues(v).build();
  }

  /** A fragment whose output is the given batches, in order (one VALUES per batch). */
  static Operator batches(List<List<Row>> batches) {
    UnionAll.Builder u = UnionAll.newBuilder();
    batches.forEach(b -> u.addInputs(values(b)));
    return Operator.newBuilder().setOutputSchema(protoSchema()).setUnionAll(u).build();
  }

  static Table createTable(Function<PartitionSpec.Builder, PartitionSpec.Builder> partitioning) {
    PartitionSpec spec = partitioning.apply(PartitionSpec.builderFor(SCHEMA)).build();
    return local.catalog().createTable(TableIdentifier.of("w", "t" + TABLES.incrementAndGet()), SCHEMA, spec);
  }

  static TaskSpec writerTask(Table table, Operator fragment, String jobId, int attempt, Map<String, String> props) {
    DataFileWrite write = DataFileWrite.newBuilder()
        .setTableLocation(table.location())
        .setIcebergSchemaJson(SchemaParser.toJson(table.schema()))
        .setPartitionSpecJson(PartitionSpecParser.toJson(table.spec()))
        .setFileFormat("parquet")
        .putAllProperties(props)
        .build();
    return TaskSpec.newBuilder().setSchemaFingerprint(WireContract.fingerprint()).setJobId(jobId).setStageId(3)
        .setPartition(2).setAttempt(attempt).setFragment(fragment)
        .setOutput(TaskOutput.newBuilder().setDataFiles(write)).build();
  }

  static List<DataFile> parse(TaskResult result, Table table) {
    return result.getCommitMessagesList().stream().map(m -> CommitMessages.parse(m, table.spec())).toList();
  }

  static void commit(Table table, List<DataFile> files) {
    AppendFiles append = table.newAppend();
    files.forEach(append::appendFile);
    append.commit();
  }

  static List<List<Object>> sorted(List<List<Object>> rows) {
    List<List<Object>> out = new ArrayList<>(rows);
    out.sort(Comparator.comparingLong(r -> (Long) r.get(0)));
    return out;
  }

  static List<List<Object>> expected(List<Row> rows) {
    return sorted(rows.stream().map(Row::values).toList());
  }

  /** The table's rows through Iceberg's generic reader. */
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

  /** The rows of Parquet files as DuckDB reads them (the independent reader). */
  static List<List<Object>> duckRows(List<String> locations) throws Exception {
    String files = locations.stream().map(l -> "'" + local.localPathOf(l) + "'").collect(Collectors.joining(", "));
    List<List<Object>> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT " + COLUMNS + " FROM read_parquet([" + files + "])")) {
      while (rs.next()) {
        out.add(Arrays.asList(rs.getLong(1), rs.getObject(2, Integer.class), rs.getObject(3, Double.class),
            rs.getBigDecimal(4), rs.getString(5), rs.getObject(6, Boolean.class), rs.getObject(7, LocalDate.class),
            rs.getObject(8, LocalDateTime.class)));
      }
    }
    return sorted(out);
  }

  /** Keys of the objects under the table's data location whose names belong to the attempt. */
  static List<String> objectsOfAttempt(Table table, String jobId, int attempt) {
    String prefix = table.location().substring(("s3://" + BUCKET + "/").length()) + "/data/";
    return client.listObjectsV2Paginator(b -> b.bucket(BUCKET).prefix(prefix)).contents().stream()
        .map(S3Object::key)
        .filter(k -> DataFileNames.isFileOfAttempt(k, jobId, 3, 2, attempt))
        .toList();
  }

  static TaskResult succeed(TaskSpec spec) {
    TaskResult result = runner.run(spec, () -> false);
    assertThat(result.hasError()).as("task error %s", result.getError()).isFalse();
    return result;
  }

  @Test
  void unpartitionedWriteIsCommittedAndReadBackAsTheSourceRows() throws Exception {
    Table table = createTable(b -> b);
    List<Row> first = rows(0, 150);
    List<Row> second = rows(150, 300);
    TaskResult result = succeed(writerTask(table, batches(List.of(first, second)), "job-u1", 0, Map.of()));

    List<DataFile> files = parse(result, table);
    assertThat(files).hasSize(1);
    assertThat(result.getMetrics().getRowsWritten()).isEqualTo(300);
    assertThat(result.getMetrics().getObjectsWritten()).isEqualTo(1);
    DataFile file = files.get(0);
    assertThat(file.location()).isEqualTo(table.location() + "/data/squall-job-u1-s3-p2-a0-00000.parquet");
    assertThat(file.specId()).isEqualTo(table.spec().specId());

    List<Row> all = new ArrayList<>(first);
    all.addAll(second);
    List<List<Object>> duck = duckRows(List.of(file.location()));
    assertThat(duck).isEqualTo(expected(all));

    // Column metrics from Iceberg's writer: counts agree with what DuckDB reads in the file.
    Types.NestedField qty = table.schema().findField("qty");
    Types.NestedField id = table.schema().findField("id");
    long nullQty = duck.stream().filter(r -> r.get(1) == null).count();
    assertThat(file.recordCount()).isEqualTo(duck.size());
    assertThat(file.valueCounts()).containsEntry(id.fieldId(), (long) duck.size());
    assertThat(file.nullValueCounts()).containsEntry(qty.fieldId(), nullQty).containsEntry(id.fieldId(), 0L);
    assertThat(file.lowerBounds()).containsKey(id.fieldId());
    assertThat(file.upperBounds()).containsKey(id.fieldId());
    assertThat(file.fileSizeInBytes()).isEqualTo(io.newInputFile(file.location()).getLength());

    commit(table, files);
    assertThat(readTable(table)).isEqualTo(expected(all));
    assertThat(table.currentSnapshot().summary()).containsEntry("added-records", "300");
  }

  /** A partitioned case: the spec, each row's partition value and its directory, computed independently. */
  record Partitioning(String name, Function<PartitionSpec.Builder, PartitionSpec.Builder> spec,
      Function<Row, Object> value, Function<Object, String> directory) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Integer bucket8(long id) {
    // Iceberg spec: (murmur3_x86_32 of the long's 8 little-endian bytes, seed 0) & MAX_INT) % N.
    return (Hashing.murmur3_32_fixed().hashLong(id).asInt() & Integer.MAX_VALUE) % 8;
  }

  static Stream<Arguments> partitionings() {
    return Stream.of(
        Arguments.of(new Partitioning("identity(category)", b -> b.identity("category"), Row::category,
            v -> "category=" + (v == null ? "null" : v))),
        Arguments.of(new Partitioning("day(created_at)", b -> b.day("created_at"),
            r -> r.createdAt() == null ? null : (int) r.createdAt().toLocalDate().toEpochDay(),
            v -> "created_at_day=" + (v == null ? "null" : LocalDate.ofEpochDay((Integer) v)))),
        Arguments.of(new Partitioning("bucket(8, id)", b -> b.bucket("id", 8), r -> bucket8(r.id()),
            v -> "id_bucket=" + v)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("partitionings")
  void partitionedWritePutsEachPartitionValueInItsOwnFileAndDirectory(Partitioning p) throws Exception {
    Table table = createTable(p.spec());
    List<Row> first = rows(0, 200);
    List<Row> second = rows(200, 400);
    TaskResult result = succeed(writerTask(table, batches(List.of(first, second)), "job-p1", 0, Map.of()));
    List<Row> all = new ArrayList<>(first);
    all.addAll(second);
    Map<Long, Row> byId = new HashMap<>();
    all.forEach(r -> byId.put(r.id(), r));
    Set<Object> expectedValues = all.stream().map(p.value()).collect(HashSet::new, Set::add, Set::addAll);

    List<DataFile> files = parse(result, table);
    // Both batches hold every partition value; still one file per value (files stay open across batches).
    assertThat(files).hasSize(expectedValues.size());
    assertThat(result.getMetrics().getObjectsWritten()).isEqualTo(files.size());
    Set<Object> seen = new HashSet<>();
    for (DataFile file : files) {
      Object value = file.partition().get(0, Object.class);
      assertThat(seen.add(value)).as("one file per partition value %s", value).isTrue();
      assertThat(file.location()).startsWith(table.location() + "/data/" + p.directory().apply(value) + "/squall-job-p1-s3-p2-a0-");
      List<List<Object>> inFile = duckRows(List.of(file.location()));
      assertThat(file.recordCount()).isEqualTo(inFile.size());
      for (List<Object> row : inFile) {
        assertThat(p.value().apply(byId.get((Long) row.get(0)))).as("partition of row %s", row.get(0)).isEqualTo(value);
      }
    }
    assertThat(seen).isEqualTo(expectedValues);

    List<String> locations = files.stream().map(DataFile::location).toList();
    assertThat(duckRows(locations)).isEqualTo(expected(all));
    commit(table, files);
    assertThat(readTable(table)).isEqualTo(expected(all));
  }

  @Test
  void retriedAttemptDoesNotClobberFirstAttemptsOutput() {
    Table table = createTable(b -> b.identity("category"));
    Operator fragment = batches(List.of(rows(0, 100)));
    List<DataFile> first = parse(succeed(writerTask(table, fragment, "job-r1", 0, Map.of())), table);
    List<DataFile> second = parse(succeed(writerTask(table, fragment, "job-r1", 1, Map.of())), table);

    Set<String> firstPaths = first.stream().map(DataFile::location).collect(Collectors.toSet());
    Set<String> secondPaths = second.stream().map(DataFile::location).collect(Collectors.toSet());
    assertThat(firstPaths).hasSize(4).doesNotContainAnyElementsOf(secondPaths);
    assertThat(secondPaths).hasSize(4);
    assertThat(firstPaths).allMatch(l -> DataFileNames.isFileOfAttempt(l, "job-r1", 3, 2, 0))
        .noneMatch(l -> DataFileNames.isFileOfAttempt(l, "job-r1", 3, 2, 1));
    assertThat(secondPaths).allMatch(l -> DataFileNames.isFileOfAttempt(l, "job-r1", 3, 2, 1));
    // The first attempt's files are still there and whole after the second attempt.
    for (DataFile f : first) {
      assertThat(io.newInputFile(f.location()).getLength()).isEqualTo(f.fileSizeInBytes());
    }
    assertThat(objectsOfAttempt(table, "job-r1", 0)).hasSize(4);
    assertThat(objectsOfAttempt(table, "job-r1", 1)).hasSize(4);
  }

  /** Tiny target file size: a file rolls (and is uploaded) every 1000 rows, before the attempt ends. */
  static final Map<String, String> ROLL_EVERY_1000_ROWS = Map.of("write.target-file-size-bytes", "1");

  @Test
  void filesRollAtTheTargetSize() throws Exception {
    Table table = createTable(b -> b);
    List<Row> rows = rows(0, 2500);
    TaskResult result = succeed(writerTask(table, batches(List.of(rows)), "job-f0", 0, ROLL_EVERY_1000_ROWS));
    List<DataFile> files = parse(result, table);
    assertThat(files).extracting(DataFile::recordCount).containsExactly(1000L, 1000L, 500L);
    assertThat(objectsOfAttempt(table, "job-f0", 0)).hasSize(3);
    commit(table, files);
    assertThat(readTable(table)).isEqualTo(expected(rows));
  }

  @Test
  void failedAttemptDeletesTheFilesItWrote() {
    Table table = createTable(b -> b);
    Row nullId = rows(3000, 3001).get(0);
    Literal[] bad = nullId.values().stream().map(WriterTaskTest::literal).toArray(Literal[]::new);
    bad[0] = Literal.newBuilder().setIsNull(true).build();
    Operator badBatch = Operator.newBuilder().setOutputSchema(protoSchema())
        .setValues(Values.newBuilder().addRows(Values.Row.newBuilder().addAllValues(Arrays.asList(bad)))).build();
    Operator fragment = Operator.newBuilder().setOutputSchema(protoSchema())
        .setUnionAll(UnionAll.newBuilder().addInputs(values(rows(0, 2500))).addInputs(badBatch)).build();

    TaskResult result = runner.run(writerTask(table, fragment, "job-f1", 0, ROLL_EVERY_1000_ROWS), () -> false);

    assertThat(result.getError().getCode()).isEqualTo(ErrorCode.USER_ERROR);
    assertThat(result.getError().getMessage()).contains("NULL").contains("id");
    assertThat(result.getCommitMessagesList()).isEmpty();
    assertThat(objectsOfAttempt(table, "job-f1", 0)).isEmpty();
  }

  @Test
  void attemptStoppedAtItsInvocationDeadlineDeletesTheFilesItWroteAndReportsARetriableTimeout() {
    Table table = createTable(b -> b);
    Operator fragment = batches(List.of(rows(0, 2500), rows(2500, 2600)));
    AtomicInteger polls = new AtomicInteger();
    // The invocation's time is up when polled before the second batch, after the first batch rolled two files.
    TaskResult result = runner.run(writerTask(table, fragment, "job-c1", 0, ROLL_EVERY_1000_ROWS),
        () -> polls.incrementAndGet() > 1);

    assertThat(polls.get()).isGreaterThanOrEqualTo(2);
    assertThat(result.getError().getCode()).isEqualTo(ErrorCode.TIMEOUT);
    assertThat(result.getCommitMessagesList()).isEmpty();
    assertThat(objectsOfAttempt(table, "job-c1", 0)).isEmpty();
  }

  @Test
  void tableColumnTheBatchesDoNotMatchIsAPlanError() {
    Table table = local.catalog().createTable(TableIdentifier.of("w", "t" + TABLES.incrementAndGet()),
        new Schema(Types.NestedField.optional(1, "id", Types.StringType.get())));
    Operator fragment = Operator.newBuilder()
        .setOutputSchema(dev.squall.proto.v1.Schema.newBuilder()
            .addFields(Field.newBuilder().setName("id").setType(SqlType.BIGINT.toProto())))
        .setValues(Values.newBuilder().addRows(Values.Row.newBuilder().addValues(literal(7L)))).build();
    TaskResult result = runner.run(writerTask(table, fragment, "job-e1", 0, Map.of()), () -> false);
    assertThat(result.getError().getCode()).isEqualTo(ErrorCode.INTERNAL_ERROR);
    assertThat(result.getError().getMessage()).contains("column id").contains("BIGINT").contains("string");
    assertThat(objectsOfAttempt(table, "job-e1", 0)).isEmpty();
  }

  @Test
  void commitMessageOfAnotherPartitionSpecIsRejected() {
    Table table = createTable(b -> b.identity("category"));
    TaskResult result = succeed(writerTask(table, batches(List.of(rows(1, 3))), "job-s1", 0, Map.of()));
    PartitionSpec other = PartitionSpec.builderFor(table.schema()).withSpecId(table.spec().specId() + 1)
        .identity("category").build();
    assertThatThrownBy(() -> CommitMessages.parse(result.getCommitMessages(0), other))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("partition spec " + table.spec().specId() + ", not spec " + other.specId());
  }

  @Test
  void commitMessageThatIsNotADataFileIsRejectedByName() {
    PartitionSpec spec = PartitionSpec.unpartitioned();
    assertThatThrownBy(() -> CommitMessages.parse("{not json", spec))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not JSON");
    assertThatThrownBy(() -> CommitMessages.parse("{\"spec-id\":0}", spec))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a data file");
  }

  /** A one-column, one-row fragment: DECIMAL(10, scale) with the given unscaled value. */
  static Operator oneDecimal(int scale, String unscaled) {
    return Operator.newBuilder()
        .setOutputSchema(dev.squall.proto.v1.Schema.newBuilder()
            .addFields(Field.newBuilder().setName("d").setType(SqlType.decimal(10, scale).toProto())))
        .setValues(Values.newBuilder().addRows(Values.Row.newBuilder()
            .addValues(Literal.newBuilder().setDecimalUnscaled(unscaled)))).build();
  }

  @Test
  void decimalOfAnotherScaleIsWrittenAtTheColumnsScaleOrRejected() throws Exception {
    Table table = local.catalog().createTable(TableIdentifier.of("w", "t" + TABLES.incrementAndGet()),
        new Schema(Types.NestedField.optional(1, "d", Types.DecimalType.of(10, 2))));
    // 123.4 at scale 1 widens exactly to 123.40.
    TaskResult ok = succeed(writerTask(table, oneDecimal(1, "1234"), "job-d1", 0, Map.of()));
    commit(table, parse(ok, table));
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      assertThat(records).extracting(r -> r.get(0)).containsExactly(new BigDecimal("123.40"));
    }
    // 1.234 at scale 3 would lose a digit in a DECIMAL(10, 2) column.
    TaskResult lossy = runner.run(writerTask(table, oneDecimal(3, "1234"), "job-d2", 0, Map.of()), () -> false);
    assertThat(lossy.getError().getCode()).isEqualTo(ErrorCode.USER_ERROR);
    assertThat(lossy.getError().getMessage()).contains("column d").contains("fraction digits");
  }

  @Test
  void timestampIsWrittenToATimestamptzColumnAsUtcAndIntIsRangeChecked() throws Exception {
    Table table = local.catalog().createTable(TableIdentifier.of("w", "t" + TABLES.incrementAndGet()),
        new Schema(Types.NestedField.optional(1, "at", Types.TimestampType.withZone()),
            Types.NestedField.optional(2, "n", Types.IntegerType.get())));
    dev.squall.proto.v1.Schema schema = dev.squall.proto.v1.Schema.newBuilder()
        .addFields(Field.newBuilder().setName("at").setType(SqlType.TIMESTAMP.toProto()))
        .addFields(Field.newBuilder().setName("n").setType(SqlType.BIGINT.toProto())).build();
    LocalDateTime at = LocalDateTime.of(2024, 2, 29, 23, 59, 58, 123_456_000);
    Operator fits = Operator.newBuilder().setOutputSchema(schema).setValues(Values.newBuilder()
        .addRows(Values.Row.newBuilder().addValues(literal(at)).addValues(literal((long) Integer.MIN_VALUE)))).build();
    commit(table, parse(succeed(writerTask(table, fits, "job-z1", 0, Map.of())), table));
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      assertThat(records).extracting(r -> List.of(r.get(0), r.get(1)))
          .containsExactly(List.of(at.atOffset(java.time.ZoneOffset.UTC), Integer.MIN_VALUE));
    }
    Operator tooBig = Operator.newBuilder().setOutputSchema(schema).setValues(Values.newBuilder()
        .addRows(Values.Row.newBuilder().addValues(literal(at)).addValues(literal(1L + Integer.MAX_VALUE)))).build();
    TaskResult result = runner.run(writerTask(table, tooBig, "job-z2", 0, Map.of()), () -> false);
    assertThat(result.getError().getCode()).isEqualTo(ErrorCode.USER_ERROR);
    assertThat(result.getError().getMessage()).contains("2147483648").contains("column n");
  }

  @Test
  void atMostMaxOpenFilesAreOpenAndEveryFileHoldsOnePartitionValue() throws Exception {
    Table table = createTable(b -> b.identity("category"));
    List<Row> rows = rows(0, 300);
    WriteTarget target = WriteTarget.of(writerTask(table, values(rows), "job-m1", 0, Map.of()).getOutput().getDataFiles());
    DataFileTaskWriter writer = new DataFileTaskWriter(io, target,
        new DataFileNames("job-m1", 3, 2, 0, org.apache.iceberg.FileFormat.PARQUET), 2);
    // Three batches, each with the four category values interleaved: two open files keep evicting each other.
    List<Integer> openAfterBatch = new ArrayList<>();
    try (BufferAllocator child = allocator.newChildAllocator("max-open-files", 0, Long.MAX_VALUE)) {
      dev.squall.engine.FragmentExecutor.run(batches(List.of(rows.subList(0, 100), rows.subList(100, 200),
          rows.subList(200, 300))), NO_INPUTS, child, 0, batch -> {
            writer.write(batch);
            openAfterBatch.add(writer.openFiles());
          });
    }
    assertThat(openAfterBatch).hasSize(3).allMatch(n -> n <= 2);
    List<DataFile> files = writer.complete();
    assertThat(files.size()).isGreaterThan(4);
    Map<Long, Row> byId = new HashMap<>();
    rows.forEach(r -> byId.put(r.id(), r));
    for (DataFile file : files) {
      Object value = file.partition().get(0, Object.class);
      for (List<Object> row : duckRows(List.of(file.location()))) {
        assertThat(byId.get((Long) row.get(0)).category()).isEqualTo(value);
      }
    }
    commit(table, files);
    assertThat(readTable(table)).isEqualTo(expected(rows));
  }

  static final dev.squall.engine.input.InputProvider NO_INPUTS = new dev.squall.engine.input.InputProvider() {
    @Override
    public dev.squall.proto.v1.ScanInput scanInput(int inputIndex) {
      throw new IllegalArgumentException("no scan inputs");
    }

    @Override
    public FileIO fileIO() {
      return io;
    }

    @Override
    public dev.squall.engine.input.BatchSource shuffleInput(int inputIndex, BufferAllocator a) {
      throw new IllegalArgumentException("no shuffle inputs");
    }
  };
}

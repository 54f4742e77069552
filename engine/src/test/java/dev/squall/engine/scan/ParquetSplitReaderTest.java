package dev.squall.engine.scan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.io.HedgeSettings;
import dev.squall.engine.io.HedgedFileIO;
import dev.squall.engine.io.HedgedRequests;
import dev.squall.engine.testing.DuckDbOracle;
import dev.squall.engine.testing.LocalFileIO;
import dev.squall.engine.testing.Rows;
import dev.squall.proto.v1.ErrorCode;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The vectorized scan against DuckDB's {@code read_parquet} over the very same files: every type,
 * NULLs and runs of NULLs, many row groups and pages, dictionary pages that fall back to PLAIN (V1)
 * or DELTA (V2) mid-chunk, data page V1 and V2, four compressions and split boundaries.
 */
class ParquetSplitReaderTest {
  private static final int ROWS = 12_000;

  @TempDir
  Path dir;

  static Stream<Arguments> layouts() {
    List<Arguments> out = new ArrayList<>();
    for (WriterVersion v : WriterVersion.values()) {
      for (CompressionCodecName c : List.of(CompressionCodecName.UNCOMPRESSED, CompressionCodecName.SNAPPY,
          CompressionCodecName.GZIP, CompressionCodecName.ZSTD)) {
        out.add(Arguments.of(v, c));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("layouts")
  void everyTypeReadsAsDuckDbReadsTheSameFile(WriterVersion version, CompressionCodecName codec) throws Exception {
    ParquetFiles.Layout layout = new ParquetFiles.Layout(version, codec, 2_500, 700, 2_048);
    Path file = ParquetFiles.writeAllTypes(dir.resolve("all.parquet"), ROWS, 7, layout);
    Set<Encoding> encodings = encodings(file, "s_hi");
    if (version == WriterVersion.PARQUET_1_0) {
      // A dictionary that overflows falls back to PLAIN within the chunk.
      assertThat(encodings).contains(Encoding.PLAIN_DICTIONARY, Encoding.PLAIN);
      assertThat(encodings(file, "i64")).contains(Encoding.PLAIN_DICTIONARY, Encoding.PLAIN);
    } else {
      assertThat(encodings(file, "i64")).contains(Encoding.RLE_DICTIONARY, Encoding.DELTA_BINARY_PACKED);
      assertThat(encodings).contains(Encoding.RLE_DICTIONARY, Encoding.DELTA_BYTE_ARRAY);
      assertThat(encodings(file, "i64_plain")).contains(Encoding.DELTA_BINARY_PACKED);
      assertThat(encodings(file, "b")).contains(Encoding.RLE);
    }
    FileScanTask task = ParquetFiles.task(file, ParquetFiles.ICEBERG_SCHEMA, ROWS);
    List<List<Object>> actual = read(task, ParquetFiles.ICEBERG_SCHEMA, 1000);
    assertNull(Rows.difference(expected(file, ROWS, 7, layout), sortById(actual), true));
  }

  @Test
  void batchesSpanPagesAndRowGroupsAndNeverExceedTheirSize() throws Exception {
    ParquetFiles.Layout layout = new ParquetFiles.Layout(WriterVersion.PARQUET_2_0, CompressionCodecName.SNAPPY, 1_001, 333, 1_024);
    Path file = ParquetFiles.writeAllTypes(dir.resolve("spans.parquet"), ROWS, 11, layout);
    FileScanTask task = ParquetFiles.task(file, ParquetFiles.ICEBERG_SCHEMA, ROWS);
    List<Integer> sizes = new ArrayList<>();
    List<List<Object>> rows = new ArrayList<>();
    try (ParquetSplitReader r = ParquetSplitReader.open(task, ParquetFiles.ICEBERG_SCHEMA, null, new LocalFileIO(), 4096)) {
      Column[] out = new Column[ParquetFiles.ICEBERG_SCHEMA.columns().size()];
      int n;
      while ((n = r.next(out)) > 0) {
        sizes.add(n);
        rows.addAll(rowsOf(out, n));
      }
      assertThat(r.rowGroupCount()).isEqualTo(12);
    }
    assertThat(sizes).allMatch(s -> s <= 4096).contains(4096);
    assertNull(Rows.difference(expected(file, ROWS, 11, layout), rows, true));
  }

  @Test
  void recycledBatchesReadAsDuckDbAndReuseTheArraysOfTheBatchBefore() throws Exception {
    // Row groups of 2,500 rows in batches of 1,000: batches span row groups, dictionary pages that
    // fall back mid-chunk, NULL runs and values beyond the long range, all over recycled arrays.
    ParquetFiles.Layout layout = new ParquetFiles.Layout(WriterVersion.PARQUET_1_0, CompressionCodecName.SNAPPY, 2_500, 700, 2_048);
    Path file = ParquetFiles.writeAllTypes(dir.resolve("recycled.parquet"), ROWS, 41, layout);
    FileScanTask task = ParquetFiles.task(file, ParquetFiles.ICEBERG_SCHEMA, ROWS);
    // The table's schema with a column this file lacks: it reads as NULLs, over recycled arrays too.
    Schema withMissing = new Schema(java.util.stream.Stream.concat(ParquetFiles.ICEBERG_SCHEMA.columns().stream(),
        java.util.stream.Stream.of(Types.NestedField.optional(99, "added", Types.LongType.get()))).toList());
    List<List<Object>> rows = new ArrayList<>();
    java.util.Set<long[]> idArrays = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    int batches = 0;
    try (ParquetSplitReader r = ParquetSplitReader.open(ParquetFiles.task(file, withMissing, ROWS), withMissing, null,
        new LocalFileIO(), 1000)) {
      r.recycleBatches();
      Column[] out = new Column[withMissing.columns().size()];
      int n;
      while ((n = r.next(out)) > 0) {
        batches++;
        idArrays.add(((dev.squall.engine.column.LongColumn) out[0]).values());
        for (List<Object> row : rowsOf(out, n)) {
          assertThat(row.get(row.size() - 1)).isNull();
          rows.add(row.subList(0, row.size() - 1));
        }
      }
    }
    assertThat(batches).isEqualTo(12);
    assertThat(idArrays).as("arrays of the id column over 12 batches").hasSize(1);
    assertNull(Rows.difference(expected(file, ROWS, 41, layout), sortById(rows), true));
    assertThat(task.file().recordCount()).isEqualTo(ROWS);
  }

  @Test
  void lowCardinalityStringsStayDictionaryEncodedAndMaterialiseToTheSameValues() throws Exception {
    // Column s (30 values, NULLs) is dictionary-encoded throughout; s_hi falls back mid-chunk.
    ParquetFiles.Layout layout = new ParquetFiles.Layout(WriterVersion.PARQUET_1_0, CompressionCodecName.SNAPPY, 2_500, 700, 2_048);
    Path file = ParquetFiles.writeAllTypes(dir.resolve("dict.parquet"), ROWS, 17, layout);
    FileScanTask task = ParquetFiles.task(file, ParquetFiles.ICEBERG_SCHEMA, ROWS);
    int s = 7;
    int sHi = 8;
    int dictionaryBatches = 0;
    int plainHiBatches = 0;
    List<List<Object>> rows = new ArrayList<>();
    try (ParquetSplitReader r = ParquetSplitReader.open(task, ParquetFiles.ICEBERG_SCHEMA, null, new LocalFileIO(), 1000)) {
      Column[] out = new Column[ParquetFiles.ICEBERG_SCHEMA.columns().size()];
      int n;
      while ((n = r.next(out)) > 0) {
        dev.squall.engine.column.BytesColumn col = (dev.squall.engine.column.BytesColumn) out[s];
        if (col.isDictionary()) {
          dictionaryBatches++;
          // Reading values through the dictionary and after materialising agree row by row.
          List<Object> viaIds = new ArrayList<>();
          for (int i = 0; i < n; i++) {
            viaIds.add(col.get(i));
          }
          col.data();
          assertThat(col.isDictionary()).isFalse();
          for (int i = 0; i < n; i++) {
            assertThat(col.get(i)).isEqualTo(viaIds.get(i));
          }
        }
        if (!((dev.squall.engine.column.BytesColumn) out[sHi]).isDictionary()) {
          plainHiBatches++;
        }
        rows.addAll(rowsOf(out, n));
      }
    }
    assertThat(dictionaryBatches).isGreaterThan(5);
    assertThat(plainHiBatches).isPositive();
    assertNull(Rows.difference(expected(file, ROWS, 17, layout), sortById(rows), true));
  }

  @Test
  void splitsOfOneFileReadEachRowGroupOnce() throws Exception {
    Path file = ParquetFiles.writeAllTypes(dir.resolve("splits.parquet"), ROWS, 13,
        new ParquetFiles.Layout(WriterVersion.PARQUET_1_0, CompressionCodecName.ZSTD, 1_500, 500, 4_096));
    FileScanTask whole = ParquetFiles.task(file, ParquetFiles.ICEBERG_SCHEMA, ROWS);
    // Byte ranges that cut through row groups, as a planner without split offsets would make them.
    long size = Files.size(file);
    List<List<Object>> rows = new ArrayList<>();
    int splits = 0;
    int nonEmpty = 0;
    for (FileScanTask split : whole.split(size / 7 + 1)) {
      splits++;
      List<List<Object>> part = read(split, ParquetFiles.ICEBERG_SCHEMA, 8192);
      nonEmpty += part.isEmpty() ? 0 : 1;
      rows.addAll(part);
    }
    assertThat(splits).isGreaterThan(5);
    assertThat(nonEmpty).isGreaterThan(3);
    Set<Object> ids = new HashSet<>();
    rows.forEach(r -> ids.add(r.get(0)));
    assertThat(ids).hasSize(rows.size());
    assertNull(Rows.difference(duckdb(file), sortById(rows), true));
  }

  @Test
  void projectionReadsColumnsInItsOrderAndAMissingColumnAsNulls() throws Exception {
    Path file = ParquetFiles.writeAllTypes(dir.resolve("proj.parquet"), 3_000, 17,
        new ParquetFiles.Layout(WriterVersion.PARQUET_1_0, CompressionCodecName.SNAPPY, 1_000, 400, 2_048));
    Schema withAdded = new Schema(List.of(
        ParquetFiles.ICEBERG_SCHEMA.findField("s"),
        Types.NestedField.optional(99, "added_later", Types.LongType.get()),
        ParquetFiles.ICEBERG_SCHEMA.findField("id"),
        ParquetFiles.ICEBERG_SCHEMA.findField("dec18")));
    Schema table = new Schema(List.of(ParquetFiles.ICEBERG_SCHEMA.findField("id"), ParquetFiles.ICEBERG_SCHEMA.findField("s"),
        ParquetFiles.ICEBERG_SCHEMA.findField("dec18"), Types.NestedField.optional(99, "added_later", Types.LongType.get())));
    FileScanTask task = ParquetFiles.task(file, table, 3_000);
    List<List<Object>> actual = read(task, withAdded, 8192);
    List<List<Object>> expected = Rows.duckdb(DuckDbOracle.connection(),
        "SELECT s, NULL, id, dec18 FROM read_parquet('" + file + "')");
    assertNull(Rows.difference(expected, actual, true));
  }

  @Test
  void filterSkipsRowGroupsByStatisticsButLeavesRowsToTheFilterAbove() throws Exception {
    Path file = ParquetFiles.writeAllTypes(dir.resolve("filter.parquet"), ROWS, 19,
        new ParquetFiles.Layout(WriterVersion.PARQUET_1_0, CompressionCodecName.SNAPPY, 1_000, 500, 2_048));
    FileScanTask task = ParquetFiles.task(file, ParquetFiles.ICEBERG_SCHEMA, ROWS);
    try (ParquetSplitReader r = ParquetSplitReader.open(task, ParquetFiles.ICEBERG_SCHEMA,
        Expressions.lessThan("id", 2_500L), new LocalFileIO())) {
      // ids ascend: row groups 0..2 hold ids below 2500.
      assertThat(r.rowGroupCount()).isEqualTo(3);
      List<List<Object>> rows = new ArrayList<>();
      Column[] out = new Column[ParquetFiles.ICEBERG_SCHEMA.columns().size()];
      int n;
      while ((n = r.next(out)) > 0) {
        rows.addAll(rowsOf(out, n));
      }
      assertNull(Rows.difference(Rows.duckdb(DuckDbOracle.connection(), duckdbSelect(file) + " WHERE id < 3000 ORDER BY id"),
          rows, true));
    }
  }

  @Test
  void filesDuckDbWritesWithV2EncodingsAndNoFieldIdsRead() throws Exception {
    Path file = dir.resolve("duckdb-v2.parquet");
    try (var st = DuckDbOracle.connection().createStatement()) {
      st.execute("COPY (SELECT i::BIGINT AS id, (i * 7919) % 100003 AS n, 'text ' || (i * 31) % 99991 AS s,"
          + " CASE WHEN i % 9 = 0 THEN NULL ELSE i / 7.0 END AS d, (i % 5 = 0) AS b, (i / 3.0)::FLOAT AS f"
          + " FROM range(50000) t(i)) TO '" + file + "' (FORMAT parquet, PARQUET_VERSION V2, ROW_GROUP_SIZE 12000)");
    }
    Set<Encoding> encodings = new HashSet<>();
    for (String c : List.of("id", "n", "s", "d", "f")) {
      encodings.addAll(encodings(file, c));
    }
    assertThat(encodings).contains(Encoding.DELTA_BINARY_PACKED, Encoding.DELTA_LENGTH_BYTE_ARRAY, Encoding.BYTE_STREAM_SPLIT);
    // Without field ids in the file, ids are assigned by position (Iceberg's fallback).
    Schema schema = new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "n", Types.LongType.get()),
        Types.NestedField.optional(3, "s", Types.StringType.get()),
        Types.NestedField.optional(4, "d", Types.DoubleType.get()),
        Types.NestedField.optional(5, "b", Types.BooleanType.get()),
        Types.NestedField.optional(6, "f", Types.FloatType.get()));
    List<List<Object>> actual = read(ParquetFiles.task(file, schema, 50_000), schema, 8192);
    assertNull(Rows.difference(Rows.duckdb(DuckDbOracle.connection(), "SELECT id, n, s, d, b, f FROM read_parquet('" + file + "')"),
        actual, true));
  }

  @Test
  void aNestedColumnIsRefusedWithItsName() throws Exception {
    Path file = dir.resolve("nested.parquet");
    try (var st = DuckDbOracle.connection().createStatement()) {
      st.execute("COPY (SELECT 1::BIGINT AS id, {'a': 1} AS st) TO '" + file + "' (FORMAT parquet)");
    }
    // DuckDB writes no field ids: the scan falls back to ids by position, as Iceberg does.
    Schema schema = new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "st", Types.StructType.of(Types.NestedField.optional(3, "a", Types.IntegerType.get()))));
    FileScanTask task = ParquetFiles.task(file, schema, 1);
    assertThatThrownBy(() -> ParquetSplitReader.open(task, schema, null, new LocalFileIO()))
        .isInstanceOfSatisfying(EngineException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.USER_ERROR))
        .hasMessageContaining("st");
    assertThat(read(task, schema.select("id"), 10)).containsExactly(List.of(BigDecimal.ONE));
  }

  @Test
  void aRangedReadDelayedFarPastItsPeersIsOvertakenByItsHedge() throws Exception {
    Path file = ParquetFiles.writeAllTypes(dir.resolve("hedged.parquet"), ROWS, 19,
        new ParquetFiles.Layout(WriterVersion.PARQUET_1_0, CompressionCodecName.SNAPPY, 3_000, 1_000, 4_096));
    FileScanTask task = ParquetFiles.task(file, ParquetFiles.ICEBERG_SCHEMA, ROWS);
    // The read of the first row group's column chunks (they start after the 4-byte magic) waits a minute once.
    HedgedFileIO io = new HedgedFileIO(new SlowOnceFileIO(4, Duration.ofMinutes(1)),
        new HedgedRequests(new HedgeSettings(95, Duration.ofMillis(20), Duration.ofMillis(300), 0.2)));
    long start = System.nanoTime();
    List<List<Object>> rows = new ArrayList<>();
    try (ParquetSplitReader r = ParquetSplitReader.open(task, ParquetFiles.ICEBERG_SCHEMA, null, io, 8192)) {
      Column[] out = new Column[ParquetFiles.ICEBERG_SCHEMA.columns().size()];
      int n;
      while ((n = r.next(out)) > 0) {
        rows.addAll(rowsOf(out, n));
      }
    }
    assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the scan did not wait for the slow read")
        .isLessThan(Duration.ofSeconds(30));
    assertThat(io.hedged().hedgesWon()).isEqualTo(1);
    assertThat(io.hedged().hedged()).isEqualTo(1);
    assertNull(Rows.difference(duckdb(file), sortById(rows), true));
  }

  @Test
  void aSplitOpenedAheadHasFetchedItsFirstRowGroupAndReadsEachRowGroupOnce() throws Exception {
    Path file = ParquetFiles.writeAllTypes(dir.resolve("ahead.parquet"), ROWS, 23,
        new ParquetFiles.Layout(WriterVersion.PARQUET_1_0, CompressionCodecName.SNAPPY, 3_000, 1_000, 4_096));
    FileScanTask task = ParquetFiles.task(file, ParquetFiles.ICEBERG_SCHEMA, ROWS);
    // The requests a plain open makes (footer), and those of a whole plain read.
    SlowOnceFileIO plain = new SlowOnceFileIO(-1, Duration.ZERO);
    int openReads;
    try (ParquetSplitReader r = ParquetSplitReader.open(task, ParquetFiles.ICEBERG_SCHEMA, null, plain, 8192)) {
      openReads = plain.rangedReads.get();
      assertThat(r.rowGroupCount()).isGreaterThan(1);
      Column[] out = new Column[ParquetFiles.ICEBERG_SCHEMA.columns().size()];
      while (r.next(out) > 0) {
        // drain
      }
    }
    int plainReads = plain.rangedReads.get();

    SlowOnceFileIO io = new SlowOnceFileIO(-1, Duration.ZERO);
    Future<ParquetSplitReader> ahead = ParquetSplitReader.openAhead(task, ParquetFiles.ICEBERG_SCHEMA, null, io, 8192);
    List<List<Object>> rows = new ArrayList<>();
    try (ParquetSplitReader r = ahead.get()) {
      long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (io.rangedReads.get() < openReads + 1 && System.nanoTime() < until) {
        Thread.sleep(5);
      }
      assertThat(io.rangedReads.get()).as("the footer and the first row group, before any batch is asked for")
          .isEqualTo(openReads + 1);
      Column[] out = new Column[ParquetFiles.ICEBERG_SCHEMA.columns().size()];
      int n;
      while ((n = r.next(out)) > 0) {
        rows.addAll(rowsOf(out, n));
      }
    }
    assertThat(io.rangedReads.get()).as("no row group fetched twice").isEqualTo(plainReads);
    assertNull(Rows.difference(duckdb(file), sortById(rows), true));
  }

  @Test
  void aSplitOpenedAheadAndNeverReadIsClosed() throws Exception {
    Path file = ParquetFiles.writeAllTypes(dir.resolve("unused.parquet"), ROWS, 29,
        new ParquetFiles.Layout(WriterVersion.PARQUET_1_0, CompressionCodecName.SNAPPY, 3_000, 1_000, 4_096));
    FileScanTask task = ParquetFiles.task(file, ParquetFiles.ICEBERG_SCHEMA, ROWS);
    SlowOnceFileIO io = new SlowOnceFileIO(-1, Duration.ZERO);
    ParquetSplitReader.closeWhenOpened(ParquetSplitReader.openAhead(task, ParquetFiles.ICEBERG_SCHEMA, null, io, 8192));
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while ((io.opened.get() == 0 || io.open.get() > 0) && System.nanoTime() < until) {
      Thread.sleep(5);
    }
    assertThat(io.opened.get()).isPositive();
    assertThat(io.open.get()).as("streams left open").isZero();
  }

  @Test
  void openingAFileIsOneRequestAndEachRowGroupAtMostOneMore() throws Exception {
    Path file = ParquetFiles.writeAllTypes(dir.resolve("requests.parquet"), ROWS, 31,
        new ParquetFiles.Layout(WriterVersion.PARQUET_1_0, CompressionCodecName.SNAPPY, 3_000, 1_000, 4_096));
    FileScanTask task = ParquetFiles.task(file, ParquetFiles.ICEBERG_SCHEMA, ROWS);
    SlowOnceFileIO io = new SlowOnceFileIO(-1, Duration.ZERO);
    List<List<Object>> rows = new ArrayList<>();
    try (ParquetSplitReader r = ParquetSplitReader.open(task, ParquetFiles.ICEBERG_SCHEMA, null, io, 8192)) {
      // The footer's length, magic and body come from one read of the file's tail.
      assertThat(io.rangedReads.get()).as("requests to open the file").isEqualTo(1);
      Column[] out = new Column[ParquetFiles.ICEBERG_SCHEMA.columns().size()];
      int n;
      while ((n = r.next(out)) > 0) {
        rows.addAll(rowsOf(out, n));
      }
      assertThat(io.rangedReads.get()).as("requests for the footer and four row groups").isBetween(2, 5);
    }
    assertThat(io.sequentialReads.get()).as("reads through an open-ended stream").isZero();
    assertNull(Rows.difference(duckdb(file), sortById(rows), true));
  }

  @Test
  void aDictionaryStillSkipsARowGroupWithoutTheValueButARangeTestReadsNoDictionaryPage() throws Exception {
    // Column s holds 30 "city-N" values (some with a suffix), dictionary-encoded in every row group.
    Path file = ParquetFiles.writeAllTypes(dir.resolve("dictfilter.parquet"), ROWS, 37,
        new ParquetFiles.Layout(WriterVersion.PARQUET_1_0, CompressionCodecName.SNAPPY, 2_500, 700, 2_048));
    FileScanTask task = ParquetFiles.task(file, ParquetFiles.ICEBERG_SCHEMA, ROWS);
    // Within every row group's min and max, but in no dictionary: only the dictionary test skips.
    try (ParquetSplitReader r = ParquetSplitReader.open(task, ParquetFiles.ICEBERG_SCHEMA,
        Expressions.equal("s", "city-15a"), new SlowOnceFileIO(-1, Duration.ZERO), 8192)) {
      assertThat(r.rowGroupCount()).isZero();
    }
    try (ParquetSplitReader r = ParquetSplitReader.open(task, ParquetFiles.ICEBERG_SCHEMA,
        Expressions.equal("s", "city-15"), new LocalFileIO(), 8192)) {
      assertThat(r.rowGroupCount()).isEqualTo(5);
    }
    // A range test is decided by the statistics: no dictionary page is fetched for it.
    SlowOnceFileIO io = new SlowOnceFileIO(-1, Duration.ZERO);
    try (ParquetSplitReader r = ParquetSplitReader.open(task, ParquetFiles.ICEBERG_SCHEMA,
        Expressions.and(Expressions.greaterThanOrEqual("s", "city-0"), Expressions.lessThan("i32", Integer.MAX_VALUE)), io, 8192)) {
      assertThat(r.rowGroupCount()).isEqualTo(5);
      assertThat(io.rangedReads.get()).as("requests to open the file and test its row groups").isEqualTo(1);
    }
    assertThat(io.sequentialReads.get()).isZero();
  }

  @Test
  void aRuntimeFilterTestsSmallDictionariesButReadsNoLargeOne() throws Exception {
    // Four row groups, every page dictionary-encoded: k holds 3,000 distinct longs per row group,
    // each twice (a 24 KB dictionary), s about 30 strings.
    Path file = dir.resolve("runtimedict.parquet");
    MessageType type = org.apache.parquet.schema.Types.buildMessage()
        .required(PrimitiveTypeName.INT64).id(1).named("k")
        .required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).id(2).named("s")
        .named("runtimedict");
    Schema schema = new Schema(Types.NestedField.required(1, "k", Types.LongType.get()),
        Types.NestedField.required(2, "s", Types.StringType.get()));
    int rows = 24_000;
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(type)
        .withConf(new Configuration(false)).withCompressionCodec(CompressionCodecName.UNCOMPRESSED)
        .withRowGroupRowCountLimit(6_000).withDictionaryPageSize(1 << 20).build()) {
      SimpleGroupFactory groups = new SimpleGroupFactory(type);
      for (int r = 0; r < rows; r++) {
        w.write(groups.newGroup().append("k", (long) r / 2).append("s", "city-" + (r * 7 % 30)));
      }
    }
    assertThat(dictionaryBytes(file, "k")).isGreaterThan(RowGroupSelector.RUNTIME_DICTIONARY_MAX_BYTES);
    assertThat(dictionaryBytes(file, "s")).isLessThanOrEqualTo(RowGroupSelector.RUNTIME_DICTIONARY_MAX_BYTES);
    FileScanTask task = ParquetFiles.task(file, schema, rows);
    // Keys inside the first row group's range of k, in its dictionary or not: its statistics pass
    // it, the other row groups are skipped by theirs, and no dictionary page is fetched.
    SlowOnceFileIO io = new SlowOnceFileIO(-1, Duration.ZERO);
    try (ParquetSplitReader r = ParquetSplitReader.open(task, schema, null, Expressions.in("k", 5L, 7L), new ScanCounters(), io,
        8192)) {
      assertThat(r.rowGroupCount()).isEqualTo(1);
      assertThat(io.rangedReads.get()).as("requests to open the file: its tail, no dictionary page").isEqualTo(1);
    }
    // A value in no dictionary of s, within its statistics: the small dictionaries skip every row group.
    SlowOnceFileIO small = new SlowOnceFileIO(-1, Duration.ZERO);
    ScanCounters skipped = new ScanCounters();
    try (ParquetSplitReader r = ParquetSplitReader.open(task, schema, null, Expressions.in("s", "city-15a", "city-16a"),
        skipped, small, 8192)) {
      assertThat(r.rowGroupCount()).isZero();
      assertThat(skipped.runtimeSkipped()).isEqualTo(4);
      assertThat(small.rangedReads.get()).as("the tail and the dictionaries").isGreaterThan(1);
    }
  }

  @Test
  void aSmallGapBetweenProjectedChunksIsReadWithThemAndALargeOneIsNot() throws Exception {
    // Columns a, small, c, big, d in that order; a, c and d are projected. small's chunk (an int of
    // 8 values) lies between a and c, big's (300-byte strings, ~1.8 MB a row group) between c and d.
    Path file = dir.resolve("gaps.parquet");
    MessageType type = org.apache.parquet.schema.Types.buildMessage()
        .required(PrimitiveTypeName.INT64).id(1).named("a")
        .required(PrimitiveTypeName.INT32).id(2).named("small")
        .required(PrimitiveTypeName.INT64).id(3).named("c")
        .required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).id(4).named("big")
        .required(PrimitiveTypeName.INT64).id(5).named("d")
        .named("gaps");
    Schema table = new Schema(Types.NestedField.required(1, "a", Types.LongType.get()),
        Types.NestedField.required(2, "small", Types.IntegerType.get()), Types.NestedField.required(3, "c", Types.LongType.get()),
        Types.NestedField.required(4, "big", Types.StringType.get()), Types.NestedField.required(5, "d", Types.LongType.get()));
    Schema projected = new Schema(table.findField("a"), table.findField("c"), table.findField("d"));
    int rows = 18_000;
    java.util.Random rnd = new java.util.Random(43);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(type)
        .withConf(new Configuration(false)).withCompressionCodec(CompressionCodecName.UNCOMPRESSED)
        .withRowGroupRowCountLimit(6_000).withDictionaryEncoding("big", false).build()) {
      SimpleGroupFactory groups = new SimpleGroupFactory(type);
      byte[] text = new byte[300];
      for (int r = 0; r < rows; r++) {
        for (int i = 0; i < text.length; i++) {
          text[i] = (byte) ('a' + rnd.nextInt(26));
        }
        w.write(groups.newGroup().append("a", (long) r).append("small", r % 8).append("c", rnd.nextLong())
            .append("big", new String(text, java.nio.charset.StandardCharsets.US_ASCII)).append("d", (long) r * 3));
      }
    }
    FileScanTask task = ParquetFiles.task(file, table, rows);
    SlowOnceFileIO io = new SlowOnceFileIO(-1, Duration.ZERO);
    List<List<Object>> actual = new ArrayList<>();
    try (ParquetSplitReader r = ParquetSplitReader.open(task, projected, null, io, 8192)) {
      assertThat(r.rowGroupCount()).isEqualTo(3);
      Column[] out = new Column[3];
      int n;
      while ((n = r.next(out)) > 0) {
        actual.addAll(rowsOf(out, n));
      }
    }
    // The tail, then per row group [a, small, c] and [d] (not [a], [c] and [d], nor big's bytes),
    // except the last d chunk: it lies within the tail the footer's read fetched.
    assertThat(io.rangedReads.get()).as("requests").isEqualTo(1 + 3 * 2 - 1);
    assertNull(Rows.difference(Rows.duckdb(DuckDbOracle.connection(), "SELECT a, c, d FROM read_parquet('" + file + "')"),
        actual, false));
  }

  /** Compressed bytes of the first row group's dictionary page of {@code column}, header included. */
  private static long dictionaryBytes(Path file, String column) throws IOException {
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(file))) {
      for (ColumnChunkMetaData c : r.getRowGroups().get(0).getColumns()) {
        if (c.getPath().toDotString().equals(column)) {
          assertThat(c.hasDictionaryPage()).as(column + " has a dictionary page").isTrue();
          return c.getFirstDataPageOffset() - c.getDictionaryPageOffset();
        }
      }
    }
    throw new IllegalArgumentException(column);
  }

  /**
   * Local files whose streams read ranges ({@link RangeReadable}, as S3FileIO's do), the first
   * ranged read at {@code slowAt} waiting {@code delay} (interruptibly): a GET that hangs once.
   */
  private static final class SlowOnceFileIO implements FileIO {
    private final long slowAt;
    private final Duration delay;
    private final AtomicBoolean slowed = new AtomicBoolean();
    /** Ranged reads made, reads through the stream's position, streams opened, and streams open now. */
    final AtomicInteger rangedReads = new AtomicInteger();
    final AtomicInteger sequentialReads = new AtomicInteger();
    final AtomicInteger opened = new AtomicInteger();
    final AtomicInteger open = new AtomicInteger();

    SlowOnceFileIO(long slowAt, Duration delay) {
      this.slowAt = slowAt;
      this.delay = delay;
    }

    @Override
    public InputFile newInputFile(String path) {
      InputFile local = new LocalFileIO().newInputFile(path);
      return new InputFile() {
        @Override
        public long getLength() {
          return local.getLength();
        }

        @Override
        public SeekableInputStream newStream() {
          return new RangedStream(local.location().replaceFirst("^file:", ""));
        }

        @Override
        public String location() {
          return local.location();
        }

        @Override
        public boolean exists() {
          return local.exists();
        }
      };
    }

    @Override
    public OutputFile newOutputFile(String path) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void deleteFile(String path) {
      throw new UnsupportedOperationException();
    }

    private final class RangedStream extends SeekableInputStream implements RangeReadable {
      private final RandomAccessFile raf;

      RangedStream(String path) {
        try {
          raf = new RandomAccessFile(path, "r");
          opened.incrementAndGet();
          open.incrementAndGet();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }

      @Override
      public long getPos() throws IOException {
        return raf.getFilePointer();
      }

      @Override
      public void seek(long pos) throws IOException {
        raf.seek(pos);
      }

      @Override
      public int read() throws IOException {
        sequentialReads.incrementAndGet();
        return raf.read();
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        sequentialReads.incrementAndGet();
        return raf.read(b, off, len);
      }

      @Override
      public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
        rangedReads.incrementAndGet();
        if (position == slowAt && slowed.compareAndSet(false, true)) {
          try {
            Thread.sleep(delay.toMillis());
          } catch (InterruptedException e) {
            throw new InterruptedIOException("cancelled");
          }
        }
        raf.seek(position);
        raf.readFully(buffer, offset, length);
      }

      @Override
      public int readTail(byte[] buffer, int offset, int length) throws IOException {
        int n = (int) Math.min(length, raf.length());
        readFully(raf.length() - n, buffer, offset, n);
        return n;
      }

      @Override
      public void close() throws IOException {
        open.decrementAndGet();
        raf.close();
      }
    }
  }

  /** The encodings of a column's chunks, from the file's footer. */
  private static Set<Encoding> encodings(Path file, String column) throws IOException {
    Set<Encoding> out = new HashSet<>();
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(file))) {
      for (BlockMetaData block : r.getRowGroups()) {
        for (ColumnChunkMetaData c : block.getColumns()) {
          if (c.getPath().toDotString().equals(column)) {
            out.addAll(c.getEncodings());
          }
        }
      }
    }
    return out;
  }

  static List<List<Object>> read(FileScanTask task, Schema projected, int maxRows) {
    List<List<Object>> rows = new ArrayList<>();
    try (ParquetSplitReader r = ParquetSplitReader.open(task, projected, null, new LocalFileIO(), maxRows)) {
      Column[] out = new Column[projected.columns().size()];
      int n;
      while ((n = r.next(out)) > 0) {
        rows.addAll(rowsOf(out, n));
      }
    }
    return rows;
  }

  /** Engine values in the form {@link Rows#duckdb} gives DuckDB's (binary as upper-case hex). */
  static List<List<Object>> rowsOf(Column[] cols, int n) {
    List<List<Object>> rows = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      List<Object> row = new ArrayList<>();
      for (Column c : cols) {
        Object v = c.get(r);
        row.add(v instanceof byte[] b ? HexFormat.of().withUpperCase().formatHex(b) : Rows.normalise(v));
      }
      rows.add(row);
    }
    return rows;
  }

  private static List<List<Object>> sortById(List<List<Object>> rows) {
    List<List<Object>> sorted = new ArrayList<>(rows);
    sorted.sort(Comparator.comparing(r -> (BigDecimal) r.get(0)));
    return sorted;
  }

  private static String duckdbSelect(Path file) {
    return "SELECT " + ParquetFiles.duckdbColumns("") + " FROM read_parquet('" + file + "')";
  }

  private static List<List<Object>> duckdb(Path file) throws Exception {
    return Rows.duckdb(DuckDbOracle.connection(), duckdbSelect(file) + " ORDER BY id");
  }

  /**
   * DuckDB's rows of a file written with {@code layout}, ordered by id. DuckDB 1.4 does not read
   * DELTA_BYTE_ARRAY pages of decimal and fixed-length columns (the V2 writer's fallback for them),
   * so for a V2 file those columns come from a V1 twin written from the same seed (identical
   * values), joined on id; every other column comes from the very same file.
   */
  private List<List<Object>> expected(Path file, int rows, long seed, ParquetFiles.Layout layout) throws Exception {
    if (layout.version() == WriterVersion.PARQUET_1_0) {
      return duckdb(file);
    }
    Path twin = ParquetFiles.writeAllTypes(dir.resolve("twin-" + file.getFileName()), rows, seed,
        new ParquetFiles.Layout(WriterVersion.PARQUET_1_0, layout.codec(), layout.rowGroupRows(), layout.pageRows(),
            layout.dictionaryPageBytes()));
    Set<String> fromTwin = Set.of("%1$sdec38b", "%1$sdec38f", "CAST(%1$su AS VARCHAR)", "hex(%1$sfx)");
    List<String> select = new ArrayList<>();
    for (String c : ParquetFiles.DUCKDB_COLUMNS) {
      select.add(String.format(c, fromTwin.contains(c) ? "w." : "v."));
    }
    String sql = "SELECT " + String.join(", ", select) + " FROM read_parquet('" + file + "') v JOIN read_parquet('"
        + twin + "') w ON v.id = w.id ORDER BY v.id";
    return Rows.duckdb(DuckDbOracle.connection(), sql);
  }

}

package dev.squall.shuffle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.proto.v1.Compression;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.Literal;
import dev.squall.proto.v1.PartitionRange;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.Schema;
import dev.squall.proto.v1.ShuffleInput;
import dev.squall.proto.v1.ShuffleOutput;
import dev.squall.proto.v1.ShuffleSegment;
import dev.squall.proto.v1.SortKey;
import dev.squall.proto.v1.TaskMetrics;
import dev.squall.proto.v1.TaskOutput;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import dev.squall.proto.v1.Values;
import dev.squall.shuffle.format.ShuffleIndex;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

class ShuffleRoundTripTest extends ShuffleStoreTest {

  static ShuffleOutput output(String job, Partitioning partitioning, Compression compression) {
    return ShuffleOutput.newBuilder().setBucket(BUCKET).setJobPrefix("shuffle/" + job)
        .setPartitioning(partitioning).setCompression(compression).build();
  }

  static Partitioning hash(int partitions, int... keys) {
    Partitioning.Hash.Builder hash = Partitioning.Hash.newBuilder().setPartitions(partitions);
    for (int k : keys) {
      hash.addKeys(k);
    }
    return Partitioning.newBuilder().setHash(hash).build();
  }

  /** Writes {@code rows} as map tasks of stage 1, each task a slice, in batches; returns the results. */
  List<TaskResult> writeMaps(ShuffleOutput output, List<List<Object>> rows, int maps, int batchRows,
      ShuffleWriterOptions options) {
    List<TaskResult> results = new ArrayList<>();
    int perMap = (rows.size() + maps - 1) / maps;
    for (int m = 0; m < maps; m++) {
      List<List<Object>> slice = rows.subList(Math.min(rows.size(), m * perMap), Math.min(rows.size(), (m + 1) * perMap));
      MapOutput out = writeMap(output, new MapTaskAttempt(1, m, 0), slice, batchRows, options);
      results.add(out.addTo(TaskResult.newBuilder().setStageId(1).setPartition(m).setAttempt(0)).build());
    }
    return results;
  }

  MapOutput writeMap(ShuffleOutput output, MapTaskAttempt attempt, List<List<Object>> rows, int batchRows,
      ShuffleWriterOptions options) {
    ShuffleWriter writer = ShuffleWriter.open(s3, allocator, output, attempt, options);
    for (int from = 0; from < rows.size(); from += batchRows) {
      try (VectorSchemaRoot batch = ShuffleTestData.batch(allocator, rows.subList(from, Math.min(rows.size(), from + batchRows)))) {
        writer.write(batch);
      }
    }
    return writer.close();
  }

  /** All rows of reduce partition {@code p}. */
  List<List<Object>> readPartition(List<TaskResult> winners, int p) {
    ShuffleInput input = ShuffleSegments.input(Schema.getDefaultInstance(), BUCKET, winners, p);
    List<List<Object>> rows = new ArrayList<>();
    try (ShuffleReader reader = ShuffleReader.open(s3, allocator, input, ShuffleReaderOptions.DEFAULT)) {
      while (reader.hasNext()) {
        VectorSchemaRoot batch = reader.next();
        assertThat(batch.getSchema()).isEqualTo(ShuffleTestData.SCHEMA);
        rows.addAll(ShuffleTestData.read(batch));
      }
      assertThat(reader.metrics().rowsRead()).isEqualTo(rows.size());
    }
    return rows;
  }

  @ParameterizedTest(name = "{0} partitions")
  @ValueSource(ints = {1, 2, 7, 64, 200})
  void everyTypeWithNullsRoundTripsAndEqualKeysMeetInOnePartition(int partitions) {
    List<List<Object>> distinct = ShuffleTestData.rows(partitions, 1500);
    // Every row twice, the copies far apart (other batches, other map tasks): equal keys.
    List<List<Object>> rows = new ArrayList<>(distinct);
    rows.addAll(distinct);
    int[] allColumns = IntStream.range(0, ShuffleTestData.SCHEMA.getFields().size()).toArray();

    for (int[] keys : List.of(allColumns, new int[] {ShuffleTestData.I32, ShuffleTestData.STR})) {
      Compression compression = partitions % 2 == 0 ? Compression.ZSTD : Compression.LZ4_FRAME;
      ShuffleOutput output = output("types-" + partitions + "-" + keys.length, hash(partitions, keys), compression);
      List<TaskResult> winners = writeMaps(output, rows, 3, 400, ShuffleWriterOptions.DEFAULT);

      List<List<Object>> readBack = new ArrayList<>();
      Map<List<Object>, Integer> partitionOfKey = new HashMap<>();
      for (int p = 0; p < partitions; p++) {
        for (List<Object> row : readPartition(winners, p)) {
          readBack.add(row);
          List<Object> key = IntStream.of(keys).mapToObj(row::get).toList();
          Integer earlier = partitionOfKey.putIfAbsent(key, p);
          assertThat(earlier == null ? p : earlier).as("partition of key %s", key).isEqualTo(p);
        }
      }
      assertThat(ShuffleTestData.multiset(readBack)).isEqualTo(ShuffleTestData.multiset(rows));
      if (partitions > 1) {
        assertThat(partitionOfKey.values().stream().distinct().count()).as("partitions used").isGreaterThan(1);
      }
    }
  }

  @Test
  void zstdAndUncompressedStreamsRoundTrip() {
    List<List<Object>> rows = ShuffleTestData.rows(7, 2000);
    for (Compression compression : List.of(Compression.ZSTD, Compression.NONE)) {
      ShuffleOutput output = output("codec-" + compression, hash(5, ShuffleTestData.I64), compression);
      List<TaskResult> winners = writeMaps(output, rows, 2, 300, ShuffleWriterOptions.DEFAULT);
      List<List<Object>> readBack = new ArrayList<>();
      for (int p = 0; p < 5; p++) {
        readBack.addAll(readPartition(winners, p));
      }
      assertThat(ShuffleTestData.multiset(readBack)).isEqualTo(ShuffleTestData.multiset(rows));
    }
  }

  @Test
  void rangePartitioningSendsEachRowToItsBoundsRange() {
    List<List<Object>> rows = ShuffleTestData.rows(11, 3000);
    Partitioning ascNullsLast = Partitioning.newBuilder().setRange(Partitioning.Range.newBuilder()
        .addKeys(SortKey.newBuilder().setColumn(ShuffleTestData.I32).setNullsFirst(false))
        .addBounds(row(Literal.newBuilder().setLongValue(5).build()))
        .addBounds(row(Literal.newBuilder().setLongValue(10).build()))
        .addBounds(row(Literal.newBuilder().setLongValue(15).build()))
        .setPartitions(4)).build();
    List<TaskResult> winners = writeMaps(output("range-int", ascNullsLast, Compression.LZ4_FRAME), rows, 2, 500,
        ShuffleWriterOptions.DEFAULT);
    List<List<Object>> readBack = new ArrayList<>();
    for (int p = 0; p < 4; p++) {
      for (List<Object> row : readPartition(winners, p)) {
        Integer v = (Integer) row.get(ShuffleTestData.I32);
        int expected = v == null ? 3 : v <= 5 ? 0 : v <= 10 ? 1 : v <= 15 ? 2 : 3;
        assertThat(p).as("partition of %s", v).isEqualTo(expected);
        readBack.add(row);
      }
    }
    assertThat(ShuffleTestData.multiset(readBack)).isEqualTo(ShuffleTestData.multiset(rows));

    // DESC NULLS FIRST over strings (ASCII words here, so Java's String order equals byte order).
    List<List<Object>> words = new ArrayList<>();
    for (List<Object> row : rows) {
      List<Object> copy = new ArrayList<>(row);
      Integer i = (Integer) row.get(ShuffleTestData.I32);
      copy.set(ShuffleTestData.STR, i == null ? null : Character.toString('a' + Math.floorMod(i, 26)) + i);
      words.add(copy);
    }
    Partitioning descNullsFirst = Partitioning.newBuilder().setRange(Partitioning.Range.newBuilder()
        .addKeys(SortKey.newBuilder().setColumn(ShuffleTestData.STR).setDescending(true).setNullsFirst(true))
        .addBounds(row(Literal.newBuilder().setStringValue("m").build()))
        .addBounds(row(Literal.newBuilder().setStringValue("d").build()))
        .setPartitions(3)).build();
    winners = writeMaps(output("range-str", descNullsFirst, Compression.LZ4_FRAME), words, 2, 500,
        ShuffleWriterOptions.DEFAULT);
    readBack.clear();
    for (int p = 0; p < 3; p++) {
      for (List<Object> row : readPartition(winners, p)) {
        String s = (String) row.get(ShuffleTestData.STR);
        int expected = s == null ? 0 : s.compareTo("m") >= 0 ? 0 : s.compareTo("d") >= 0 ? 1 : 2;
        assertThat(p).as("partition of %s", s).isEqualTo(expected);
        readBack.add(row);
      }
    }
    assertThat(ShuffleTestData.multiset(readBack)).isEqualTo(ShuffleTestData.multiset(words));
  }

  private static Values.Row row(Literal... values) {
    return Values.Row.newBuilder().addAllValues(List.of(values)).build();
  }

  @Test
  void broadcastAndSingleEdgesWriteOnePartitionWithEveryRow() {
    List<List<Object>> rows = ShuffleTestData.rows(3, 1000);
    for (Partitioning partitioning : List.of(
        Partitioning.newBuilder().setBroadcast(Partitioning.Broadcast.getDefaultInstance()).build(),
        Partitioning.newBuilder().setSingle(Partitioning.Single.getDefaultInstance()).build())) {
      List<TaskResult> winners = writeMaps(output("one-" + partitioning.getKindCase(), partitioning, Compression.ZSTD),
          rows, 3, 128, ShuffleWriterOptions.DEFAULT);
      for (TaskResult result : winners) {
        assertThat(result.getPartitionsList()).extracting(PartitionRange::getPartition).containsOnly(0);
      }
      // Every consumer task of a broadcast reads partition 0 whole; two readers here.
      for (int consumer = 0; consumer < 2; consumer++) {
        assertThat(ShuffleTestData.multiset(readPartition(winners, 0))).isEqualTo(ShuffleTestData.multiset(rows));
      }
    }
  }

  @Test
  void coalescedPartitionsAreReadWithOneGetPerMapOutputUpToTheChunkSize() {
    List<List<Object>> rows = ShuffleTestData.rows(8, 3000);
    List<TaskResult> winners = writeMaps(output("coalesced", hash(8, ShuffleTestData.I64), Compression.LZ4_FRAME), rows, 3,
        500, ShuffleWriterOptions.DEFAULT);
    ShuffleInput input = ShuffleSegments.input(Schema.getDefaultInstance(), BUCKET, winners, 0, 8);
    assertThat(input.getSegmentsCount()).as("one segment per map output and partition").isGreaterThan(3);
    int smallest = input.getSegmentsList().stream().mapToInt(sg -> (int) sg.getLength()).min().orElseThrow();
    for (ShuffleReaderOptions options : List.of(ShuffleReaderOptions.DEFAULT, ShuffleReaderOptions.DEFAULT.withChunkBytes(smallest))) {
      List<List<Object>> readBack = new ArrayList<>();
      try (ShuffleReader reader = ShuffleReader.open(s3, allocator, input, options)) {
        while (reader.hasNext()) {
          readBack.addAll(ShuffleTestData.read(reader.next()));
        }
        if (options == ShuffleReaderOptions.DEFAULT) {
          assertThat(reader.metrics().getRequests()).as("adjacent ranges of a map output in one GET").isEqualTo(3);
        } else {
          assertThat(reader.metrics().getRequests()).as("no GET longer than the chunk size").isGreaterThan(3);
        }
      }
      assertThat(ShuffleTestData.multiset(readBack)).isEqualTo(ShuffleTestData.multiset(rows));
    }
  }

  @Test
  void aSmallOutputIsKeptInMemoryAndReadFromItsBytesWithoutAnObject() {
    List<List<Object>> rows = ShuffleTestData.rows(1, 40);
    ShuffleOutput output = output("inline", Partitioning.newBuilder().setSingle(Partitioning.Single.getDefaultInstance())
        .build(), Compression.LZ4_FRAME);
    MapOutput small = writeMap(output, new MapTaskAttempt(1, 0, 0), rows, 16,
        ShuffleWriterOptions.DEFAULT.withInlineMaxBytes(64 * 1024));
    assertThat(small.inlineBytes()).hasSize((int) small.objectBytes());
    assertThat(small.metrics().putRequests()).isZero();
    assertThatThrownBy(() -> s3.headObject(b -> b.bucket(BUCKET).key(small.key()))).isInstanceOf(NoSuchKeyException.class);
    TaskResult result = small.addTo(TaskResult.newBuilder().setStageId(1).setPartition(0).setAttempt(0)).build();
    List<List<Object>> readBack = new ArrayList<>();
    try (ShuffleReader reader = ShuffleReader.open(s3, allocator, small.segmentsFor(0), ShuffleReaderOptions.DEFAULT,
        Map.of(small.key(), result.getInlineOutput().toByteArray()))) {
      while (reader.hasNext()) {
        readBack.addAll(ShuffleTestData.read(reader.next()));
      }
      assertThat(reader.metrics().getRequests()).isZero();
    }
    assertThat(ShuffleTestData.multiset(readBack)).isEqualTo(ShuffleTestData.multiset(rows));

    // Past the limit the object is written as any other.
    MapOutput large = writeMap(output, new MapTaskAttempt(1, 0, 1), rows, 16,
        ShuffleWriterOptions.DEFAULT.withInlineMaxBytes(small.objectBytes() - 1));
    assertThat(large.inlineBytes()).isNull();
    assertThat(large.metrics().putRequests()).isEqualTo(1);
    assertThat(s3.headObject(b -> b.bucket(BUCKET).key(large.key())).contentLength()).isEqualTo(large.objectBytes());
  }

  @Test
  void emptyPartitionsHaveZeroLengthRangesAndAreReadWithoutRequests() {
    List<List<Object>> rows = ShuffleTestData.rows(5, 3);
    List<TaskResult> winners = writeMaps(output("sparse", hash(200, ShuffleTestData.I64), Compression.LZ4_FRAME), rows, 1,
        10, ShuffleWriterOptions.DEFAULT);
    List<PartitionRange> ranges = winners.get(0).getPartitionsList();
    assertThat(ranges).extracting(PartitionRange::getPartition).containsExactlyElementsOf(
        IntStream.range(0, 200).boxed().toList());
    long empty = ranges.stream().filter(r -> r.getLength() == 0 && r.getRows() == 0).count();
    assertThat(empty).isGreaterThanOrEqualTo(197);
    List<List<Object>> readBack = new ArrayList<>();
    for (PartitionRange range : ranges) {
      ShuffleInput input = ShuffleSegments.input(Schema.getDefaultInstance(), BUCKET, winners, range.getPartition());
      try (ShuffleReader reader = ShuffleReader.open(s3, allocator, input, ShuffleReaderOptions.DEFAULT)) {
        while (reader.hasNext()) {
          readBack.addAll(ShuffleTestData.read(reader.next()));
        }
        if (range.getLength() == 0) {
          assertThat(reader.metrics().getRequests()).isZero();
        }
      }
    }
    assertThat(ShuffleTestData.multiset(readBack)).isEqualTo(ShuffleTestData.multiset(rows));
  }

  @Test
  void zeroRowOutputStillWritesASelfDescribingObject() {
    ShuffleOutput output = output("nothing", hash(4, 0), Compression.LZ4_FRAME);
    ShuffleWriter writer = ShuffleWriter.open(s3, allocator, output, new MapTaskAttempt(2, 0, 0), ShuffleWriterOptions.DEFAULT);
    try (VectorSchemaRoot empty = ShuffleTestData.batch(allocator, List.of())) {
      writer.write(empty);
    }
    MapOutput out = writer.close();
    assertThat(out.rows()).isZero();
    assertThat(out.ranges()).hasSize(4).allSatisfy(r -> assertThat(r.getLength()).isZero());
    assertThat(out.metrics().putRequests()).isEqualTo(1);
    assertThat(out.metrics().objectsWritten()).isEqualTo(1);
    ShuffleIndex index = ShuffleReader.readIndex(s3, BUCKET, out.key());
    assertThat(index.partitionCount()).isEqualTo(4);
    assertThat(index.ranges()).isEqualTo(out.ranges());
    for (int p = 0; p < 4; p++) {
      try (ShuffleReader reader = ShuffleReader.open(s3, allocator, out.segmentsFor(p), ShuffleReaderOptions.DEFAULT)) {
        assertThat(reader.hasNext()).isFalse();
      }
    }
  }

  @Test
  void footerIndexMatchesTheTaskResultsIndex() {
    List<List<Object>> rows = ShuffleTestData.rows(9, 2000);
    MapOutput out = writeMap(output("footer", hash(13, ShuffleTestData.STR), Compression.LZ4_FRAME),
        new MapTaskAttempt(4, 2, 1), rows, 256, ShuffleWriterOptions.DEFAULT);
    assertThat(out.key()).isEqualTo(ShuffleKeys.mapOutputKey("shuffle/footer", 4, 2, 1));
    assertThat(s3.headObject(b -> b.bucket(BUCKET).key(out.key())).contentLength()).isEqualTo(out.objectBytes());
    ShuffleIndex index = ShuffleReader.readIndex(s3, BUCKET, out.key());
    assertThat(index.partitionCount()).isEqualTo(13);
    assertThat(index.ranges()).isEqualTo(out.ranges());
    assertThat(out.rows()).isEqualTo(2000);
    assertThat(out.metrics().rowsWritten()).isEqualTo(2000);
    assertThat(out.metrics().bytesWritten()).isEqualTo(out.objectBytes());
  }

  @Test
  void retriedAttemptDoesNotClobberFirstAttemptsOutput() {
    ShuffleOutput output = output("retry", hash(3, ShuffleTestData.I32), Compression.LZ4_FRAME);
    List<List<Object>> first = ShuffleTestData.rows(100, 500);
    List<List<Object>> second = ShuffleTestData.rows(200, 700);
    MapOutput a0 = writeMap(output, new MapTaskAttempt(1, 4, 0), first, 100, ShuffleWriterOptions.DEFAULT);
    MapOutput a1 = writeMap(output, new MapTaskAttempt(1, 4, 1), second, 100, ShuffleWriterOptions.DEFAULT);
    assertThat(a1.key()).isNotEqualTo(a0.key());
    for (var pair : List.of(Map.entry(a0, first), Map.entry(a1, second))) {
      List<List<Object>> readBack = new ArrayList<>();
      for (int p = 0; p < 3; p++) {
        try (ShuffleReader reader = ShuffleReader.open(s3, allocator, pair.getKey().segmentsFor(p), ShuffleReaderOptions.DEFAULT)) {
          reader.forEachRemaining(batch -> readBack.addAll(ShuffleTestData.read(batch)));
        }
      }
      assertThat(ShuffleTestData.multiset(readBack)).isEqualTo(ShuffleTestData.multiset(pair.getValue()));
    }
  }

  @Test
  void missingMapOutputIsReportedByName() {
    ShuffleOutput output = output("missing", hash(2, ShuffleTestData.I32), Compression.LZ4_FRAME);
    MapOutput out = writeMap(output, new MapTaskAttempt(3, 7, 2), ShuffleTestData.rows(1, 300), 100,
        ShuffleWriterOptions.DEFAULT);
    s3.deleteObject(b -> b.bucket(BUCKET).key(out.key()));
    int p = out.segmentsFor(0).isEmpty() ? 1 : 0;
    try (ShuffleReader reader = ShuffleReader.open(s3, allocator, out.segmentsFor(p), ShuffleReaderOptions.DEFAULT)) {
      assertThatThrownBy(reader::hasNext)
          .isInstanceOfSatisfying(MissingShuffleOutputException.class, e -> {
            assertThat(e.stageId()).isEqualTo(3);
            assertThat(e.partition()).isEqualTo(7);
            assertThat(e.attempt()).isEqualTo(2);
            assertThat(e.toTaskError().getCode()).isEqualTo(ErrorCode.MISSING_SHUFFLE_OUTPUT);
            assertThat(e.toTaskError().getMissing().getObjectKey()).isEqualTo(out.key());
          })
          .hasMessageContaining("stage 3, partition 7, attempt 2")
          .hasMessageContaining(out.key());
    }
  }

  @Test
  void largeOutputSpillsThroughMultipartUploadInBoundedMemory() {
    // Incompressible rows (random bytes) so that the object really exceeds two 5 MiB parts.
    List<List<Object>> rows = new ArrayList<>();
    java.util.Random random = new java.util.Random(1);
    for (List<Object> row : ShuffleTestData.rows(12, 12_000)) {
      List<Object> copy = new ArrayList<>(row);
      byte[] bytes = new byte[1024];
      random.nextBytes(bytes);
      copy.set(ShuffleTestData.BIN, java.util.HexFormat.of().formatHex(bytes));
      rows.add(copy);
    }
    ShuffleWriterOptions lowThreshold = ShuffleWriterOptions.DEFAULT.withSpillThreshold(512 * 1024)
        .withPartSize(ObjectUploadSizes.MIN_PART);
    ShuffleOutput output = output("multipart", hash(4, ShuffleTestData.I64), Compression.LZ4_FRAME);
    MapOutput out = writeMap(output, new MapTaskAttempt(1, 0, 0), rows, 1000, lowThreshold);

    assertThat(out.objectBytes()).isGreaterThan(2 * ObjectUploadSizes.MIN_PART);
    // CreateMultipartUpload + at least 2 UploadPart + CompleteMultipartUpload.
    assertThat(out.metrics().putRequests()).isGreaterThanOrEqualTo(4);
    assertThat(s3.headObject(b -> b.bucket(BUCKET).key(out.key())).contentLength()).isEqualTo(out.objectBytes());
    // Spilled runs: partitions have several ranges each.
    assertThat(out.ranges().size()).isGreaterThan(4);
    List<List<Object>> readBack = new ArrayList<>();
    for (int p = 0; p < 4; p++) {
      try (ShuffleReader reader = ShuffleReader.open(s3, allocator, out.segmentsFor(p),
          ShuffleReaderOptions.DEFAULT.withChunkBytes(256 * 1024))) {
        reader.forEachRemaining(batch -> readBack.addAll(ShuffleTestData.read(batch)));
      }
    }
    assertThat(ShuffleTestData.multiset(readBack)).isEqualTo(ShuffleTestData.multiset(rows));
    assertThat(ShuffleReader.readIndex(s3, BUCKET, out.key()).ranges()).isEqualTo(out.ranges());
  }

  @Test
  void abortedWriterLeavesNoObjectBehind() {
    List<List<Object>> rows = new ArrayList<>();
    java.util.Random random = new java.util.Random(2);
    for (List<Object> row : ShuffleTestData.rows(13, 7_000)) {
      List<Object> copy = new ArrayList<>(row);
      byte[] bytes = new byte[1024];
      random.nextBytes(bytes);
      copy.set(ShuffleTestData.BIN, java.util.HexFormat.of().formatHex(bytes));
      rows.add(copy);
    }
    ShuffleOutput output = output("aborted", hash(2, ShuffleTestData.I64), Compression.LZ4_FRAME);
    ShuffleWriter writer = ShuffleWriter.open(s3, allocator, output, new MapTaskAttempt(1, 0, 0),
        ShuffleWriterOptions.DEFAULT.withSpillThreshold(256 * 1024).withPartSize(ObjectUploadSizes.MIN_PART));
    for (int from = 0; from < rows.size(); from += 1000) {
      try (VectorSchemaRoot batch = ShuffleTestData.batch(allocator, rows.subList(from, from + 1000))) {
        writer.write(batch);
      }
    }
    assertThat(writer.metrics().putRequests()).as("a multipart upload was under way").isGreaterThanOrEqualTo(2);
    writer.abort();
    writer.abort();
    assertThat(s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("shuffle/aborted/")).contents()).isEmpty();
    try (VectorSchemaRoot late = ShuffleTestData.batch(allocator, List.of())) {
      assertThatThrownBy(() -> writer.write(late)).isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void taskMetricsCountBytesRowsObjectsAndRequests() {
    List<List<Object>> rows = ShuffleTestData.rows(17, 1200);
    TaskSpec spec = TaskSpec.newBuilder().setJobId("j").setStageId(6).setPartition(3).setAttempt(0)
        .setMemoryBudgetBytes(256L << 20)
        .setOutput(TaskOutput.newBuilder().setShuffle(output("metrics", hash(4, ShuffleTestData.STR), Compression.ZSTD)))
        .build();
    ShuffleWriter writer = ShuffleWriter.open(s3, allocator, spec);
    for (int from = 0; from < rows.size(); from += 300) {
      try (VectorSchemaRoot batch = ShuffleTestData.batch(allocator, rows.subList(from, from + 300))) {
        writer.write(batch);
      }
    }
    MapOutput out = writer.close();
    assertThat(out.key()).isEqualTo(ShuffleKeys.mapOutputKey("shuffle/metrics", 6, 3, 0));
    TaskResult result = out.addTo(TaskResult.newBuilder().setStageId(6).setPartition(3).setAttempt(0)).build();
    TaskMetrics written = result.getMetrics();
    long size = s3.headObject(b -> b.bucket(BUCKET).key(out.key())).contentLength();
    assertThat(written.getBytesShuffleWritten()).isEqualTo(size);
    assertThat(written.getRowsWritten()).isEqualTo(1200);
    assertThat(written.getObjectsWritten()).isEqualTo(1);
    assertThat(written.getS3PutRequests()).isEqualTo(1);
    assertThat(result.getOutputObjectKey()).isEqualTo(out.key());

    TaskMetrics.Builder read = TaskMetrics.newBuilder().setRowsRead(5); // e.g. rows from another input
    long segmentBytes = 0;
    long segments = 0;
    for (int p = 0; p < 4; p++) {
      ShuffleInput input = ShuffleSegments.input(Schema.getDefaultInstance(), BUCKET, List.of(result), p);
      segmentBytes += input.getSegmentsList().stream().mapToLong(ShuffleSegment::getLength).sum();
      segments += input.getSegmentsCount();
      try (ShuffleReader reader = ShuffleReader.open(s3, allocator, input, ShuffleReaderOptions.DEFAULT)) {
        reader.forEachRemaining(batch -> { });
        reader.metrics().addTo(read);
      }
    }
    assertThat(read.getRowsRead()).isEqualTo(5 + 1200);
    assertThat(read.getBytesShuffleRead()).isEqualTo(segmentBytes);
    assertThat(read.getS3GetRequests()).isEqualTo(segments);
    assertThat(segmentBytes).isLessThan(size); // the footer is not read
  }

  /** S3's part-size floor, restated so the test does not depend on the writer's constant. */
  static final class ObjectUploadSizes {
    static final long MIN_PART = 5L * 1024 * 1024;
  }
}

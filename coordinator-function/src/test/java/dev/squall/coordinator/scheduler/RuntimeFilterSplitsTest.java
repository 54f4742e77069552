package dev.squall.coordinator.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.engine.runtimefilter.RuntimeKeys;
import dev.squall.planner.split.KeyBounds;
import dev.squall.proto.v1.KeyFilter;
import dev.squall.proto.v1.KeySummary;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.RuntimeFilter;
import dev.squall.proto.v1.Scan;
import dev.squall.proto.v1.ScanInput;
import dev.squall.proto.v1.ScanSplit;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import dev.squall.proto.v1.TaskResult;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * File skipping by runtime filters: a split is left out only when its data file's Iceberg bounds
 * (carried from the manifest, {@link KeyBounds}) rule out every key of a filter; missing bounds,
 * NULL bounds and missing counts always keep it.
 */
class RuntimeFilterSplitsTest {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.optional(1, "k_long", Types.LongType.get()),
      Types.NestedField.optional(2, "k_int", Types.IntegerType.get()),
      Types.NestedField.optional(3, "k_date", Types.DateType.get()),
      Types.NestedField.optional(4, "k_str", Types.StringType.get()),
      Types.NestedField.optional(5, "k_dec", Types.DecimalType.of(15, 2)));
  private static final Scan SCAN = Scan.newBuilder().setInputIndex(0).setTable("t")
      .setIcebergSchemaJson(SchemaParser.toJson(SCHEMA)).addAllProjectedFieldIds(List.of(1, 2, 3, 4, 5)).build();

  /** A filter listing {@code keys} (canonical: Long, String, BigDecimal) on scan column {@code column}. */
  private static KeyFilter listed(int column, Object... keys) {
    Object[] sorted = keys.clone();
    Arrays.sort(sorted, RuntimeKeys.ORDER);
    KeyFilter.Builder f = KeyFilter.newBuilder().setColumn(column).setHasValues(true)
        .setMin(RuntimeKeys.toLiteral(sorted[0])).setMax(RuntimeKeys.toLiteral(sorted[sorted.length - 1]));
    for (Object k : sorted) {
      f.addValues(RuntimeKeys.toLiteral(k));
    }
    return f.build();
  }

  /** A filter of the range only (too many keys to list, no Bloom filter). */
  private static KeyFilter range(int column, Object lo, Object hi) {
    return KeyFilter.newBuilder().setColumn(column).setMin(RuntimeKeys.toLiteral(lo)).setMax(RuntimeKeys.toLiteral(hi))
        .build();
  }

  /** A whole-file split of 1,000 bytes whose data file has {@code lo..hi} as field {@code id}'s bounds. */
  private static ScanSplit file(int id, Type type, Object lo, Object hi) {
    Map<Integer, ByteBuffer> lower = new HashMap<>();
    Map<Integer, ByteBuffer> upper = new HashMap<>();
    if (lo != null) {
      lower.put(id, Conversions.toByteBuffer(type, lo));
    }
    if (hi != null) {
      upper.put(id, Conversions.toByteBuffer(type, hi));
    }
    return split(0, new Metrics(100L, null, Map.of(id, 100L), Map.of(id, 0L), null, lower, upper), id);
  }

  private static ScanSplit split(long start, Metrics metrics, int... keyFields) {
    var data = DataFiles.builder(PartitionSpec.unpartitioned()).withPath("s3://b/t/f.parquet")
        .withFormat(FileFormat.PARQUET).withFileSizeInBytes(1_000).withMetrics(metrics).build();
    Set<Integer> ids = new java.util.TreeSet<>();
    Arrays.stream(keyFields).forEach(ids::add);
    return ScanSplit.newBuilder().setDataFilePath(data.location()).setStart(start).setLength(1_000)
        .setRecordCount(data.recordCount()).addAllKeyBounds(KeyBounds.of(data, ids)).build();
  }

  private static boolean kept(ScanSplit split, KeyFilter... filters) {
    return new RuntimeFilterSplits(SCAN, List.of(filters)).mightMatch(split);
  }

  private static int day(String date) {
    return (int) LocalDate.parse(date).toEpochDay();
  }

  @Test
  void bigintFilesOutsideTheRangeOrHoldingNoListedKeyAreSkipped() {
    ScanSplit f = file(1, Types.LongType.get(), 100L, 200L);
    assertThat(kept(f, range(0, 300L, 400L))).isFalse();
    assertThat(kept(f, range(0, 10L, 99L))).isFalse();
    assertThat(kept(f, range(0, 150L, 400L))).isTrue();
    assertThat(kept(f, range(0, 200L, 200L))).isTrue();
    assertThat(kept(f, listed(0, 50L, 250L, 300L))).as("range overlaps, no key inside").isFalse();
    assertThat(kept(f, listed(0, 50L, 100L, 300L))).isTrue();
  }

  @Test
  void integerAndDateKeysCompareAsTheirIcebergTypes() {
    ScanSplit ints = file(2, Types.IntegerType.get(), -5, 5);
    assertThat(kept(ints, listed(1, 6L, 7L))).isFalse();
    assertThat(kept(ints, listed(1, -5L))).isTrue();
    assertThat(kept(ints, range(1, -100L, -6L))).isFalse();
    ScanSplit dates = file(3, Types.DateType.get(), day("1995-01-01"), day("1995-12-31"));
    assertThat(kept(dates, listed(2, (long) day("1996-03-15")))).isFalse();
    assertThat(kept(dates, listed(2, (long) day("1994-12-31"), (long) day("1995-03-15")))).isTrue();
    assertThat(kept(dates, range(2, (long) day("1996-01-01"), (long) day("1997-01-01")))).isFalse();
  }

  @Test
  void varcharKeysCompareInCodePointOrderWithTruncatedBounds() {
    // Iceberg truncates string bounds (16 characters): a lower bound is a prefix, an upper one rounded up.
    ScanSplit f = file(4, Types.StringType.get(), "apple", "banana");
    assertThat(kept(f, listed(3, "cherry", "date"))).isFalse();
    assertThat(kept(f, listed(3, "b", "zebra"))).isTrue();
    assertThat(kept(f, listed(3, "apple"))).isTrue();
    assertThat(kept(f, listed(3, "Zebra"))).as("upper case sorts before lower case").isFalse();
    ScanSplit truncated = file(4, Types.StringType.get(), "Customer#0000000", "Customer#0000001");
    assertThat(kept(truncated, listed(3, "Customer#000000099"))).isTrue();
    assertThat(kept(truncated, listed(3, "Customer#000000200"))).isFalse();
  }

  @Test
  void decimalKeysMatchBoundsOfTheColumnsScale() {
    ScanSplit f = file(5, Types.DecimalType.of(15, 2), new BigDecimal("10.00"), new BigDecimal("20.00"));
    assertThat(kept(f, listed(4, new BigDecimal("25.5")))).isFalse();
    assertThat(kept(f, listed(4, new BigDecimal("12.5"), new BigDecimal("99")))).isTrue();
    assertThat(kept(f, listed(4, new BigDecimal("20")))).isTrue();
    assertThat(kept(f, range(4, new BigDecimal("0.01"), new BigDecimal("9.99")))).isFalse();
    // A key the column's scale cannot hold exactly states no predicate: never a skip on it.
    assertThat(kept(f, listed(4, new BigDecimal("30.125")))).isTrue();
  }

  @Test
  void missingOrNullBoundsAndCountsNeverSkip() {
    KeyFilter far = range(0, 1_000L, 2_000L);
    assertThat(kept(file(1, Types.LongType.get(), null, null), far)).isTrue();
    assertThat(kept(file(1, Types.LongType.get(), null, 200L), listed(0, 5L))).isTrue();
    assertThat(kept(file(1, Types.LongType.get(), 100L, null), listed(0, 5_000L))).isTrue();
    assertThat(kept(split(0, new Metrics(100L, null, null, null, null), 1), far)).as("metrics mode none").isTrue();
    assertThat(kept(ScanSplit.newBuilder().setDataFilePath("f").setLength(10).build(), far))
        .as("split planned without key bounds").isTrue();
    assertThat(kept(split(0, new Metrics(100L, null, Map.of(1, 100L), Map.of(1, 40L), null), 1), far))
        .as("nulls counted, no bounds").isTrue();
    // Another column's bounds say nothing of this one.
    assertThat(kept(file(2, Types.IntegerType.get(), 1, 2), far)).isTrue();
  }

  @Test
  void aKeyColumnNullInEveryRowIsSkippedSinceNullNeverJoins() {
    ScanSplit allNull = split(0, new Metrics(100L, null, Map.of(1, 100L), Map.of(1, 100L), null), 1);
    assertThat(kept(allNull, range(0, Long.MIN_VALUE, Long.MAX_VALUE))).isFalse();
  }

  @Test
  void anEmptyBuildSideSkipsEveryFileAndEveryFilterMustAdmitAFile() {
    ScanSplit f = file(1, Types.LongType.get(), 100L, 200L);
    assertThat(kept(f, KeyFilter.newBuilder().setColumn(0).setEmpty(true).setHasValues(true).build())).isFalse();
    assertThat(kept(f, range(0, 100L, 200L), listed(1, 7L))).as("column 1 has no bounds here").isTrue();
    ScanSplit two = split(0, new Metrics(100L, null, null, null, null,
        Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), 100L), 2, Conversions.toByteBuffer(Types.IntegerType.get(), 1)),
        Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), 200L), 2, Conversions.toByteBuffer(Types.IntegerType.get(), 9))), 1, 2);
    assertThat(kept(two, range(0, 100L, 200L), listed(1, 7L))).isTrue();
    assertThat(kept(two, range(0, 100L, 200L), listed(1, 70L))).isFalse();
  }

  @Test
  void skippedPiecesCountTheirFileOnceAndTheirBytes() {
    ScanSplit in = file(1, Types.LongType.get(), 100L, 200L);
    ScanSplit out = file(1, Types.LongType.get(), 300L, 400L);
    ScanSplit outTail = out.toBuilder().setStart(1_000).build();
    RuntimeFilterSplits.Result r = new RuntimeFilterSplits(SCAN, List.of(listed(0, 150L)))
        .apply(ScanInput.newBuilder().addSplits(in).addSplits(out).addSplits(outTail).build());
    assertThat(r.kept().getSplitsList()).containsExactly(in);
    assertThat(r.filesSkipped()).isEqualTo(1);
    assertThat(r.bytesSkipped()).isEqualTo(2_000);
  }

  @Test
  void theProbeTaskSpecLosesTheRuledOutSplitsAndItsScanCountsThem() {
    RuntimeFilter filter = RuntimeFilter.newBuilder().setFilterId(0).setBuildStageId(0).addBuildColumns(0)
        .setProbeStageId(1).setProbeScanInputIndex(0).addProbeColumns(0).setMaxKeys(1_000).build();
    Operator fragment = Operator.newBuilder().setScan(SCAN).build();
    StageGraph graph = StageGraph.newBuilder().addStages(Stage.newBuilder().setStageId(1).setFragment(fragment))
        .addRuntimeFilters(filter).build();
    TaskResult build = TaskResult.newBuilder().addKeySummaries(KeySummary.newBuilder().setFilterId(0)
        .addColumns(listed(0, 150L).toBuilder().setFilterId(0))).build();
    ScanSplit in = file(1, Types.LongType.get(), 100L, 200L);
    ScanSplit out = file(1, Types.LongType.get(), 300L, 400L);
    RuntimeFilters filters = new RuntimeFilters(graph);

    RuntimeFilters.Applied waiting = filters.apply(1, fragment, Map.of(0, ScanInput.newBuilder().addSplits(out).build()),
        Map.of(0, new TaskResult[] {null}));
    assertThat(waiting.fragment()).as("build stage not finished: unfiltered").isEqualTo(fragment);
    assertThat(waiting.scans().get(0).getSplitsList()).containsExactly(out);

    RuntimeFilters.Applied all = filters.apply(1, fragment, Map.of(0, ScanInput.newBuilder().addSplits(out).build()),
        Map.of(0, new TaskResult[] {build}));
    assertThat(all.scans().get(0).getSplitsList()).as("a task whose files are all ruled out reads nothing").isEmpty();
    assertThat(all.fragment().getScan().getRuntimeFiltersCount()).isEqualTo(1);
    assertThat(all.fragment().getScan().getRuntimeFilterFilesSkipped()).isEqualTo(1);
    assertThat(all.fragment().getScan().getRuntimeFilterFileBytesSkipped()).isEqualTo(1_000);

    RuntimeFilters.Applied some = filters.apply(1, fragment,
        Map.of(0, ScanInput.newBuilder().addSplits(in).addSplits(out).build()), Map.of(0, new TaskResult[] {build}));
    assertThat(some.scans().get(0).getSplitsList()).containsExactly(in);
  }
}

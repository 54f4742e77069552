package dev.squall.planner.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.planner.meta.ColumnStatistics;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.datasketches.memory.Memory;
import org.apache.datasketches.theta.CompactSketch;
import org.apache.datasketches.theta.UpdateSketch;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.puffin.BlobMetadata;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinReader;
import org.apache.iceberg.puffin.StandardBlobTypes;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.Pair;
import org.junit.jupiter.api.Test;

/** The Puffin statistics file as Iceberg's own reader and the planner's {@link ColumnNdvs} see it. */
class ThetaStatisticsFileTest {
  @Test
  void writtenStatisticsFileReadsBackThroughIcebergsPuffinReader() throws Exception {
    InMemoryCatalog catalog = new InMemoryCatalog();
    catalog.initialize("stats", Map.of());
    catalog.createNamespace(Namespace.of("ns"));
    Schema schema = new Schema(Types.NestedField.required(1, "k", Types.LongType.get()),
        Types.NestedField.optional(2, "s", Types.StringType.get()));
    Table table = catalog.createTable(TableIdentifier.of("ns", "t"), schema, PartitionSpec.unpartitioned());
    table.newAppend().appendFile(DataFiles.builder(PartitionSpec.unpartitioned()).withPath("memory://ns/t/a.parquet")
        .withFormat(FileFormat.PARQUET).withFileSizeInBytes(10).withRecordCount(3000).build()).commit();
    assertThat(ColumnNdvs.of(table, table.currentSnapshot()).isEmpty()).isTrue();

    UpdateSketch keys = UpdateSketch.builder().build();
    UpdateSketch strings = UpdateSketch.builder().build();
    for (long k = 0; k < 3000; k++) {
      ThetaStatisticsFile.update(keys, Types.LongType.get(), k);
      ThetaStatisticsFile.update(strings, Types.StringType.get(), "v" + (k % 7));
    }
    TreeMap<Integer, CompactSketch> sketches = new TreeMap<>(Map.of(1, keys.compact(), 2, strings.compact()));
    StatisticsFile written = ThetaStatisticsFile.write(table, table.currentSnapshot(), sketches);
    table.updateStatistics().setStatistics(written).commit();

    table.refresh();
    assertThat(table.statisticsFiles()).hasSize(1);
    StatisticsFile file = table.statisticsFiles().get(0);
    assertThat(file.snapshotId()).isEqualTo(table.currentSnapshot().snapshotId());
    try (PuffinReader reader = Puffin.read(table.io().newInputFile(file.path()))
        .withFileSize(file.fileSizeInBytes()).withFooterSize(file.fileFooterSizeInBytes()).build()) {
      List<BlobMetadata> blobs = reader.fileMetadata().blobs();
      assertThat(blobs).extracting(BlobMetadata::type).containsOnly(StandardBlobTypes.APACHE_DATASKETCHES_THETA_V1);
      assertThat(blobs).extracting(BlobMetadata::inputFields).containsExactly(List.of(1), List.of(2));
      assertThat(blobs).extracting(BlobMetadata::snapshotId).containsOnly(file.snapshotId());
      for (Pair<BlobMetadata, ByteBuffer> blob : reader.readAll(blobs)) {
        byte[] bytes = new byte[blob.second().remaining()];
        blob.second().duplicate().get(bytes);
        CompactSketch sketch = CompactSketch.wrap(Memory.wrap(bytes));
        long expected = blob.first().inputFields().get(0) == 1 ? 3000 : 7;
        // Below the sketch's nominal 4096 entries the count is exact.
        assertThat(Math.round(sketch.getEstimate())).isEqualTo(expected);
        assertThat(blob.first().properties()).containsEntry("ndv", Long.toString(expected));
      }
    }
    ColumnNdvs ndvs = ColumnNdvs.of(table, table.currentSnapshot());
    assertThat(ndvs.ndv(1)).isEqualTo(3000L);
    assertThat(ndvs.ndv(2)).isEqualTo(7L);
    // SHOW STATS FOR t: distinct_values_count (column 2) from the same figures.
    List<List<Object>> stats = ColumnStatistics.of(table, table.currentSnapshot(), table.schema()).rows();
    assertThat(stats.get(0)).containsSequence("k", null, 3000.0);
    assertThat(stats.get(1)).containsSequence("s", null, 7.0);
  }

  @Test
  void laterSnapshotsUseTheirNearestAnalyzedAncestorsStatisticsAndEarlierOnesNone() {
    InMemoryCatalog catalog = new InMemoryCatalog();
    catalog.initialize("stats", Map.of());
    catalog.createNamespace(Namespace.of("ns"));
    Schema schema = new Schema(Types.NestedField.required(1, "k", Types.LongType.get()));
    Table table = catalog.createTable(TableIdentifier.of("ns", "t"), schema, PartitionSpec.unpartitioned());
    table.newAppend().appendFile(DataFiles.builder(PartitionSpec.unpartitioned()).withPath("memory://ns/t/a.parquet")
        .withFormat(FileFormat.PARQUET).withFileSizeInBytes(10).withRecordCount(5).build()).commit();
    Snapshot first = table.currentSnapshot();
    table.newAppend().appendFile(DataFiles.builder(PartitionSpec.unpartitioned()).withPath("memory://ns/t/a2.parquet")
        .withFormat(FileFormat.PARQUET).withFileSizeInBytes(10).withRecordCount(5).build()).commit();
    UpdateSketch keys = UpdateSketch.builder().build();
    ThetaStatisticsFile.update(keys, Types.LongType.get(), 1L);
    table.updateStatistics().setStatistics(ThetaStatisticsFile.write(table, table.currentSnapshot(),
        new TreeMap<>(Map.of(1, keys.compact())))).commit();
    assertThat(ColumnNdvs.of(table, table.currentSnapshot()).ndv(1)).isEqualTo(1L);
    for (String file : List.of("b", "c")) {
      table.newAppend().appendFile(DataFiles.builder(PartitionSpec.unpartitioned()).withPath("memory://ns/t/" + file
          + ".parquet").withFormat(FileFormat.PARQUET).withFileSizeInBytes(10).withRecordCount(5).build()).commit();
      assertThat(ColumnNdvs.of(table, table.currentSnapshot()).ndv(1)).as("after appending " + file).isEqualTo(1L);
    }
    // A snapshot from before the analyzed one (read by time travel) has none.
    assertThat(ColumnNdvs.of(table, first).ndv(1)).isNull();
  }
}

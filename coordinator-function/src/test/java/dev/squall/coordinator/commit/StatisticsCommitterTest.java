package dev.squall.coordinator.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.squall.planner.catalog.ColumnNdvs;
import dev.squall.planner.catalog.ThetaStatisticsFile;
import dev.squall.proto.v1.AnalyzeRecord;
import java.util.List;
import java.util.Map;
import org.apache.datasketches.theta.UpdateSketch;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * ANALYZE's final step: a re-run of a job's commit commits nothing more, the statistics of a
 * snapshot the table has moved on from are still recorded against it, a job whose file the table
 * does not reference leaves no file behind, and a dropped table is the user's conflict.
 */
class StatisticsCommitterTest {
  private InMemoryCatalog catalog;
  private Table table;

  @BeforeEach
  void createTable() {
    catalog = new InMemoryCatalog();
    catalog.initialize("stats", Map.of());
    catalog.createNamespace(Namespace.of("ns"));
    table = catalog.createTable(TableIdentifier.of("ns", "t"),
        new Schema(Types.NestedField.required(1, "k", Types.LongType.get())), PartitionSpec.unpartitioned());
    append("a");
  }

  private void append(String name) {
    table.newAppend().appendFile(DataFiles.builder(PartitionSpec.unpartitioned()).withPath("memory://ns/t/" + name)
        .withFormat(FileFormat.PARQUET).withFileSizeInBytes(10).withRecordCount(100).build()).commit();
  }

  private AnalyzeRecord record(long snapshotId) {
    return AnalyzeRecord.newBuilder().addNamespace("ns").setTable("t").setSnapshotId(snapshotId).addFieldIds(1).build();
  }

  private static StatisticsCommitter.AnalyzedRow row(int distinct) {
    UpdateSketch sketch = UpdateSketch.builder().build();
    for (long v = 0; v < distinct; v++) {
      ThetaStatisticsFile.update(sketch, Types.LongType.get(), v);
    }
    return new StatisticsCommitter.AnalyzedRow(100, List.of(sketch.compact().toByteArray()));
  }

  private List<StatisticsFile> files() {
    table.refresh();
    return table.statisticsFiles();
  }

  private boolean exists(String location) {
    return ((org.apache.iceberg.inmemory.InMemoryFileIO) table.io()).fileExists(location);
  }

  @Test
  void aRerunOfTheCommitFindsItsFileAndCommitsNothingMore() {
    long scanned = table.currentSnapshot().snapshotId();
    StatisticsCommitter committer = new StatisticsCommitter(catalog);
    committer.commit("job-1", record(scanned), row(42));
    List<StatisticsFile> first = files();
    assertThat(first).hasSize(1);
    assertThat(first.get(0).path()).endsWith(scanned + "-analyze-job-1.stats");
    committer.commit("job-1", record(scanned), row(7));
    assertThat(files()).extracting(StatisticsFile::path).containsExactly(first.get(0).path());
    assertThat(ColumnNdvs.of(table, table.currentSnapshot()).ndv(1)).isEqualTo(42L);
  }

  @Test
  void statisticsOfTheScannedSnapshotAreRecordedAfterTheTableMovedOn() {
    long scanned = table.currentSnapshot().snapshotId();
    append("b");
    new StatisticsCommitter(catalog).commit("job-2", record(scanned), row(5));
    assertThat(files()).extracting(StatisticsFile::snapshotId).containsExactly(scanned);
    assertThat(ColumnNdvs.of(table, table.snapshot(scanned)).ndv(1)).isEqualTo(5L);
    // The later snapshot reads its nearest analyzed ancestor's figures (ColumnNdvs).
    assertThat(ColumnNdvs.of(table, table.currentSnapshot()).ndv(1)).isEqualTo(5L);
  }

  @Test
  void aJobsFileTheTableDoesNotReferenceIsDeletedAndACommittedOneKept() {
    long scanned = table.currentSnapshot().snapshotId();
    StatisticsCommitter committer = new StatisticsCommitter(catalog);
    committer.commit("job-3", record(scanned), row(3));
    String replaced = files().get(0).path();
    // A later ANALYZE of the same snapshot replaces the statistics (one file per snapshot).
    committer.commit("job-4", record(scanned), row(4));
    String current = files().get(0).path();
    assertThat(current).isNotEqualTo(replaced);
    committer.discard("job-3", record(scanned));
    committer.discard("job-4", record(scanned));
    assertThat(exists(replaced)).isFalse();
    assertThat(exists(current)).isTrue();
  }

  @Test
  void aDroppedTableIsTheUsersConflict() {
    long scanned = table.currentSnapshot().snapshotId();
    catalog.dropTable(TableIdentifier.of("ns", "t"));
    WriteCommitException e = catchThrowableOfType(WriteCommitException.class,
        () -> new StatisticsCommitter(catalog).commit("job-5", record(scanned), row(1)));
    assertThat(e.targetConflict()).isTrue();
    assertThat(e.getMessage()).contains("ns.t").contains("dropped");
  }
}

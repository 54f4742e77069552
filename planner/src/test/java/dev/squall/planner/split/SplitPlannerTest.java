package dev.squall.planner.split;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.planner.DistributedPlanner;
import dev.squall.planner.PlannedQuery;
import dev.squall.planner.testing.Planning;
import dev.squall.planner.testing.StageGraphs;
import dev.squall.planner.testing.TpchCatalog;
import dev.squall.proto.v1.ScanInput;
import dev.squall.proto.v1.ScanSplit;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.ScanTaskParser;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.junit.jupiter.api.Test;

/**
 * Split planning against real Iceberg metadata: lineitem of the test catalog has one data file per
 * ship year (1992..1998), each about 25.7 MB at SF1, with l_shipdate bounds.
 */
class SplitPlannerTest {
  private static final long MB = 1 << 20;

  private static List<ScanSplit> allSplits(ScanAssignment assignment, int stageId) {
    return assignment.tasks(stageId).stream()
        .flatMap(t -> t.values().stream())
        .flatMap(i -> i.getSplitsList().stream())
        .toList();
  }

  private static Stage leaf(StageGraph graph) {
    return StageGraphs.stagesScanning(graph, "tpch.lineitem").get(0);
  }

  @Test
  void minMaxPruningKeepsOnlyTheFileOfTheFilteredYear() {
    PlannedQuery planned = Planning.sf1(
        "select sum(l_extendedprice) from lineitem where l_shipdate >= date '1994-01-01' and l_shipdate < date '1995-01-01'");
    ScanAssignment assignment = new SplitPlanner(Planning.SF1, 128 * MB).plan(planned.stageGraph());
    List<ScanSplit> splits = allSplits(assignment, leaf(planned.stageGraph()).getStageId());
    assertThat(splits).isNotEmpty().allMatch(s -> s.getDataFilePath().endsWith("shipyear-1994.parquet"));
  }

  @Test
  void smallFilesArePackedAndLargeFilesSplitToTheTargetSize() {
    PlannedQuery planned = Planning.sf1("select sum(l_quantity) from lineitem");
    int stageId = leaf(planned.stageGraph()).getStageId();

    // 7 files of ~25.7 MB packed into 128 MB tasks: 2 tasks.
    ScanAssignment packed = new SplitPlanner(Planning.SF1, 128 * MB).plan(planned.stageGraph());
    assertThat(packed.tasks(stageId)).hasSize(2);
    assertThat(allSplits(packed, stageId)).extracting(ScanSplit::getDataFilePath).hasSize(7);

    // 8 MB target: each ~25.7 MB file is cut into pieces of at most 8 MB (Iceberg folds a small
    // tail into the previous piece), and the pieces of every file cover it exactly.
    ScanAssignment split = new SplitPlanner(Planning.SF1, 8 * MB).plan(planned.stageGraph());
    List<ScanSplit> splits = allSplits(split, stageId);
    long fileBytes = 180_000_000L / 7;
    Map<String, List<ScanSplit>> byFile = splits.stream().collect(java.util.stream.Collectors.groupingBy(ScanSplit::getDataFilePath));
    assertThat(byFile).hasSize(7);
    for (List<ScanSplit> pieces : byFile.values()) {
      assertThat(pieces).hasSizeGreaterThanOrEqualTo(3);
      List<ScanSplit> sorted = pieces.stream().sorted(java.util.Comparator.comparingLong(ScanSplit::getStart)).toList();
      long next = 0;
      for (ScanSplit piece : sorted) {
        assertThat(piece.getStart()).isEqualTo(next);
        assertThat(piece.getLength()).isLessThanOrEqualTo(9 * MB);
        next += piece.getLength();
      }
      assertThat(next).isEqualTo(fileBytes);
    }
    int tasks = split.tasks(stageId).size();
    assertThat(tasks).isGreaterThan(packed.tasks(stageId).size() * 5);
    assertThat(split.applyTo(planned.stageGraph()).getStagesList())
        .filteredOn(s -> s.getStageId() == stageId).singleElement()
        .extracting(Stage::getTaskCount).isEqualTo(tasks);
  }

  @Test
  void splitsCarryIcebergScanTaskJsonThatParsesBack() {
    PlannedQuery planned = Planning.sf1("select l_orderkey from lineitem where l_shipdate < date '1993-01-01'");
    ScanAssignment assignment = new SplitPlanner(Planning.SF1, 128 * MB).plan(planned.stageGraph());
    ScanSplit split = allSplits(assignment, leaf(planned.stageGraph()).getStageId()).get(0);
    FileScanTask task = ScanTaskParser.fromJson(split.getFileScanTaskJson(), true);
    assertThat(task.file().location()).isEqualTo(split.getDataFilePath()).endsWith("shipyear-1992.parquet");
    assertThat(task.start()).isEqualTo(split.getStart());
    assertThat(task.length()).isEqualTo(split.getLength());
    assertThat(task.residual().toString()).contains("l_shipdate");
  }

  @Test
  void probeScansOfRuntimeFiltersCarryTheirKeyColumnsBoundsAndNoOtherScanDoes() {
    PlannedQuery planned = Planning.sf1("select count(*) from lineitem join"
        + " (select o_orderdate from orders where o_orderkey < 100) o on l_shipdate = o.o_orderdate");
    StageGraph graph = planned.stageGraph();
    assertThat(graph.getRuntimeFiltersCount()).isEqualTo(1);
    ScanAssignment assignment = new SplitPlanner(Planning.SF1, 128 * MB).plan(graph);
    int shipdate = Planning.SF1.loadTable(TableIdentifier.of("tpch", "lineitem")).schema().findField("l_shipdate").fieldId();
    List<ScanSplit> probe = allSplits(assignment, graph.getRuntimeFilters(0).getProbeStageId());
    assertThat(probe).hasSizeGreaterThanOrEqualTo(7).allSatisfy(s -> {
      assertThat(s.getRecordCount()).isPositive();
      assertThat(s.getKeyBoundsList()).singleElement().satisfies(b -> {
        assertThat(b.getFieldId()).isEqualTo(shipdate);
        assertThat(b.hasLowerBound()).isTrue();
        assertThat(b.hasUpperBound()).isTrue();
        assertThat(b.getNullCount()).isZero();
        assertThat(b.hasValueCount()).as("the manifest has no value counts").isFalse();
      });
    });
    ScanSplit first = probe.stream().filter(s -> s.getDataFilePath().endsWith("shipyear-1992.parquet")).findFirst()
        .orElseThrow();
    java.nio.ByteBuffer lower = KeyBounds.dataFile(first).lowerBounds().get(shipdate);
    assertThat((int) org.apache.iceberg.types.Conversions.<Integer>fromByteBuffer(org.apache.iceberg.types.Types.DateType.get(), lower))
        .isEqualTo((int) java.time.LocalDate.of(1992, 1, 1).toEpochDay());
    assertThat(allSplits(assignment, graph.getRuntimeFilters(0).getBuildStageId()))
        .isNotEmpty().allSatisfy(s -> assertThat(s.getKeyBoundsCount()).isZero());
  }

  @Test
  void splitsCarryTheDeleteFilesOfTheirDataFileIncludingDeletionVectors() {
    InMemoryCatalog catalog = TpchCatalog.create(1);
    Table region = catalog.loadTable(TableIdentifier.of("tpch", "region"));
    String dataFile = "memory://tpch/region/part-0.parquet";
    region.newRowDelta()
        .addDeletes(FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned()).ofPositionDeletes()
            .withPath("memory://tpch/region/pos-deletes.parquet").withFormat(FileFormat.PARQUET)
            .withRecordCount(2).withFileSizeInBytes(300).build())
        .addDeletes(FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned()).ofEqualityDeletes(1)
            .withPath("memory://tpch/region/eq-deletes.parquet").withFormat(FileFormat.PARQUET)
            .withRecordCount(1).withFileSizeInBytes(200).build())
        .commit();
    Table v3 = catalog.buildTable(TableIdentifier.of("tpch", "region_v3"), TpchCatalog.regionSchema())
        .withProperty("format-version", "3").create();
    String v3File = "memory://tpch/region_v3/part-0.parquet";
    v3.newAppend().appendFile(DataFiles.builder(PartitionSpec.unpartitioned()).withPath(v3File)
        .withFormat(FileFormat.PARQUET).withRecordCount(5).withFileSizeInBytes(1000).build()).commit();
    v3.newRowDelta().addDeletes(FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned()).ofPositionDeletes()
        .withPath("memory://tpch/region_v3/dv.puffin").withFormat(FileFormat.PUFFIN).withRecordCount(1)
        .withFileSizeInBytes(120).withReferencedDataFile(v3File).withContentOffset(4).withContentSizeInBytes(40).build()).commit();

    PlannedQuery planned = new DistributedPlanner(catalog)
        .plan("select r_name from region union all select r_name from region_v3", Planning.SETTINGS);
    ScanAssignment assignment = new SplitPlanner(catalog, 128 * MB).plan(planned.stageGraph());
    List<FileScanTask> tasks = planned.stageGraph().getStagesList().stream()
        .filter(s -> assignment.isLeaf(s.getStageId()))
        .flatMap(s -> allSplits(assignment, s.getStageId()).stream())
        .map(split -> ScanTaskParser.fromJson(split.getFileScanTaskJson(), true))
        .toList();
    FileScanTask v2Task = tasks.stream().filter(t -> t.file().location().equals(dataFile)).findFirst().orElseThrow();
    assertThat(v2Task.deletes()).extracting(DeleteFile::content)
        .containsExactlyInAnyOrder(FileContent.POSITION_DELETES, FileContent.EQUALITY_DELETES);
    assertThat(v2Task.deletes()).filteredOn(d -> d.content() == FileContent.EQUALITY_DELETES).singleElement()
        .extracting(DeleteFile::equalityFieldIds).isEqualTo(List.of(1));
    FileScanTask v3Task = tasks.stream().filter(t -> t.file().location().equals(v3File)).findFirst().orElseThrow();
    assertThat(v3Task.deletes()).singleElement().satisfies(dv -> {
      assertThat(dv.format()).isEqualTo(FileFormat.PUFFIN);
      assertThat(dv.referencedDataFile()).isEqualTo(v3File);
      assertThat(dv.contentOffset()).isEqualTo(4L);
      assertThat(dv.contentSizeInBytes()).isEqualTo(40L);
    });
  }

  @Test
  void partitionPruningSkipsFilesOfOtherPartitions() {
    InMemoryCatalog catalog = TpchCatalog.create(0.01);
    org.apache.iceberg.Schema schema = TpchCatalog.nationSchema();
    PartitionSpec byRegion = PartitionSpec.builderFor(schema).identity("n_regionkey").build();
    Table nations = catalog.createTable(TableIdentifier.of("tpch", "nation_by_region"), schema, byRegion);
    var append = nations.newAppend();
    for (long region = 0; region < 5; region++) {
      append.appendFile(DataFiles.builder(byRegion)
          .withPath("memory://tpch/nation_by_region/r" + region + ".parquet").withFormat(FileFormat.PARQUET)
          .withPartitionPath("n_regionkey=" + region).withRecordCount(5).withFileSizeInBytes(500).build());
    }
    append.commit();
    PlannedQuery planned = new DistributedPlanner(catalog)
        .plan("select n_name from nation_by_region where n_regionkey in (1, 3)", Planning.SETTINGS);
    ScanAssignment assignment = new SplitPlanner(catalog, 128 * MB).plan(planned.stageGraph());
    assertThat(allSplits(assignment, planned.stageGraph().getRootStageId())).extracting(ScanSplit::getDataFilePath)
        .containsExactlyInAnyOrder("memory://tpch/nation_by_region/r1.parquet", "memory://tpch/nation_by_region/r3.parquet");
  }

  /**
   * lineitem's 7 files in 8 MB pieces make many tasks; nation, scanned replicated in the same
   * stage, goes whole to every one of them and does not add a task of its own.
   */
  @Test
  void aReplicatedScanGoesWholeToEveryTaskAndDecidesNoTaskCount() {
    // A LEFT join plans no runtime filter, which would keep nation in a stage of its own.
    PlannedQuery planned = Planning.sf1("select l_orderkey, n_name from lineitem left join nation on l_suppkey = n_nationkey");
    Stage stage = leaf(planned.stageGraph());
    List<dev.squall.proto.v1.Operator> scans = StageGraphs.operators(stage.getFragment(), dev.squall.proto.v1.Operator.OpCase.SCAN);
    int lineitem = scans.stream().filter(o -> o.getScan().getTable().equals("tpch.lineitem")).findFirst().orElseThrow()
        .getScan().getInputIndex();
    List<Integer> replicated = scans.stream().filter(o -> o.getScan().getReplicated())
        .map(o -> o.getScan().getInputIndex()).toList();
    assertThat(replicated).isNotEmpty();

    SplitPlanner planner = new SplitPlanner(Planning.SF1, 8 * MB);
    ScanAssignment assignment = planner.plan(planned.stageGraph());
    List<Map<Integer, ScanInput>> tasks = assignment.tasks(stage.getStageId());
    int lineitemGroups = planner.splitGroups(scans.stream().filter(o -> o.getScan().getInputIndex() == lineitem)
        .findFirst().orElseThrow().getScan(), planned.stageGraph().getTableSnapshotIdsMap().get("tpch.lineitem")).size();
    assertThat(tasks).hasSize(lineitemGroups).hasSizeGreaterThan(1);
    for (int index : replicated) {
      List<ScanSplit> whole = tasks.get(0).get(index).getSplitsList();
      assertThat(whole).isNotEmpty();
      assertThat(tasks).allSatisfy(t -> assertThat(t.get(index).getSplitsList()).isEqualTo(whole));
    }
    assertThat(tasks.stream().mapToInt(t -> t.get(lineitem).getSplitsCount()).sum())
        .isEqualTo(allSplitsOf(planner, planned, "tpch.lineitem"));
  }

  private static int allSplitsOf(SplitPlanner planner, PlannedQuery planned, String table) {
    var scan = StageGraphs.operators(planned.stageGraph(), dev.squall.proto.v1.Operator.OpCase.SCAN).stream()
        .filter(o -> o.getScan().getTable().equals(table)).findFirst().orElseThrow().getScan();
    return planner.splitGroups(scan, planned.stageGraph().getTableSnapshotIdsMap().get(table)).stream()
        .mapToInt(List::size).sum();
  }

  @Test
  void stagesWithoutScansGetNoAssignment() {
    PlannedQuery planned = Planning.sf1("select l_returnflag, count(*) from lineitem group by l_returnflag");
    ScanAssignment assignment = new SplitPlanner(Planning.SF1, 128 * MB).plan(planned.stageGraph());
    assertThat(assignment.isLeaf(planned.stageGraph().getRootStageId())).isFalse();
  }

  @Test
  void splitsComeFromTheSnapshotThePlanWasMadeFor() {
    InMemoryCatalog catalog = TpchCatalog.create(1);
    PlannedQuery planned = new DistributedPlanner(catalog).plan("select r_name from region", Planning.SETTINGS);
    Table region = catalog.loadTable(TableIdentifier.of("tpch", "region"));
    region.newAppend().appendFile(DataFiles.builder(PartitionSpec.unpartitioned())
        .withPath("memory://tpch/region/late.parquet").withFormat(FileFormat.PARQUET)
        .withRecordCount(5).withFileSizeInBytes(1000).build()).commit();

    ScanAssignment assignment = new SplitPlanner(catalog, 128 * MB).plan(planned.stageGraph());
    int stageId = StageGraphs.stagesScanning(planned.stageGraph(), "tpch.region").get(0).getStageId();
    assertThat(allSplits(assignment, stageId)).extracting(ScanSplit::getDataFilePath)
        .containsExactly("memory://tpch/region/part-0.parquet");
  }

  @Test
  void tableWithoutSnapshotGetsOneTaskWithNoSplits() {
    InMemoryCatalog catalog = TpchCatalog.create(1);
    catalog.createTable(TableIdentifier.of("tpch", "vacant"), TpchCatalog.regionSchema(), PartitionSpec.unpartitioned());
    PlannedQuery planned = new DistributedPlanner(catalog).plan("select r_name from vacant", Planning.SETTINGS);
    assertThat(planned.stageGraph().getTableSnapshotIdsMap()).doesNotContainKey("tpch.vacant");
    ScanAssignment assignment = new SplitPlanner(catalog, 128 * MB).plan(planned.stageGraph());
    List<Map<Integer, ScanInput>> tasks = assignment.tasks(planned.stageGraph().getRootStageId());
    assertThat(tasks).hasSize(1);
    assertThat(tasks.get(0).get(0).getSplitsCount()).isZero();
  }

  @Test
  void aLimitWithoutFilterPlansOnlyTheSplitsWhoseFilesHoldItsRows() {
    PlannedQuery limited = Planning.sf1("select l_orderkey, l_comment from lineitem limit 10 offset 5");
    int stageId = leaf(limited.stageGraph()).getStageId();
    int all = new SplitPlanner(Planning.SF1, 8 * MB).plan(Planning.sf1("select l_orderkey, l_comment from lineitem")
        .stageGraph()).tasks(leaf(Planning.sf1("select l_orderkey, l_comment from lineitem").stageGraph())
        .getStageId()).size();

    // 8 MB pieces: the first file (~857,000 rows) counts once all of its pieces are kept.
    ScanAssignment pieces = new SplitPlanner(Planning.SF1, 8 * MB).plan(limited.stageGraph());
    List<ScanSplit> kept = allSplits(pieces, stageId);
    assertThat(kept).extracting(ScanSplit::getDataFilePath).isNotEmpty();
    assertThat(kept.stream().mapToLong(ScanSplit::getLength).sum()).as("the first file, whole")
        .isGreaterThanOrEqualTo(180_000_000L / 7);
    assertThat(pieces.tasks(stageId).size()).isLessThan(all / 3);
    // Whole files packed in 128 MB tasks: one task.
    assertThat(new SplitPlanner(Planning.SF1, 128 * MB).plan(limited.stageGraph()).tasks(stageId)).hasSize(1);

    // A filter (unknown selectivity), ORDER BY or OFFSET alone read every split.
    for (String sql : List.of("select l_orderkey from lineitem where l_quantity > 10 limit 10",
        "select l_orderkey from lineitem order by l_orderkey limit 10",
        "select l_orderkey from lineitem offset 10")) {
      PlannedQuery q = Planning.sf1(sql);
      assertThat(new SplitPlanner(Planning.SF1, 8 * MB).plan(q.stageGraph()).tasks(leaf(q.stageGraph())
          .getStageId())).as(sql).hasSize(all);
    }
  }
}

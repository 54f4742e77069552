package dev.squall.shuffle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.proto.v1.Compression;
import dev.squall.proto.v1.PartitionRange;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.Schema;
import dev.squall.proto.v1.ShuffleInput;
import dev.squall.proto.v1.ShuffleOutput;
import dev.squall.proto.v1.TaskResult;
import dev.squall.shuffle.format.ShuffleIndex;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * Combining exchanges on the embedded S3: what reduce tasks read from combined objects equals what
 * they read from the map outputs themselves (the direct exchange is the oracle), with fewer GETs.
 */
class ShuffleCombinerTest extends ShuffleStoreTest {
  private static final int MAPS = 12;
  private static final int GROUP = 5;
  private static final int PARTITIONS = 16;

  private static ShuffleOutput output(String job) {
    return ShuffleOutput.newBuilder().setBucket(BUCKET).setJobPrefix("shuffle/" + job)
        .setPartitioning(Partitioning.newBuilder().setHash(Partitioning.Hash.newBuilder().setPartitions(PARTITIONS)
            .addKeys(ShuffleTestData.I64)))
        .setCompression(Compression.LZ4_FRAME).build();
  }

  /** Map tasks of stage 1; odd ones spill often, so that a partition has several ranges in one object. */
  private List<TaskResult> writeMaps(ShuffleOutput output) {
    List<TaskResult> results = new ArrayList<>();
    for (int m = 0; m < MAPS; m++) {
      ShuffleWriterOptions options = m % 2 == 1 ? ShuffleWriterOptions.DEFAULT.withSpillThreshold(16 * 1024)
          : ShuffleWriterOptions.DEFAULT;
      ShuffleWriter writer = ShuffleWriter.open(s3, allocator, output, new MapTaskAttempt(1, m, 0), options);
      List<List<Object>> rows = ShuffleTestData.rows(m, 400);
      for (int from = 0; from < rows.size(); from += 100) {
        try (VectorSchemaRoot batch = ShuffleTestData.batch(allocator, rows.subList(from, from + 100))) {
          writer.write(batch);
        }
      }
      results.add(writer.close().addTo(TaskResult.newBuilder().setStageId(1).setPartition(m).setAttempt(0)).build());
    }
    return results;
  }

  /** Combiner tasks of stage 2, each over {@link #GROUP} map outputs. */
  private List<TaskResult> combine(ShuffleOutput output, List<TaskResult> maps, List<Long> combinerGets) {
    List<TaskResult> results = new ArrayList<>();
    for (int c = 0; c * GROUP < maps.size(); c++) {
      List<TaskResult> group = maps.subList(c * GROUP, Math.min(maps.size(), (c + 1) * GROUP));
      ShuffleInput input = ShuffleSegments.wholeOutputs(Schema.getDefaultInstance(), BUCKET, group);
      String key = ShuffleKeys.mapOutputKey(output.getJobPrefix(), 2, c, 0);
      MapOutput out = ShuffleCombiner.combine(s3, input, new ShuffleCombiner.Target(BUCKET, key,
          new MapTaskAttempt(2, c, 0), PARTITIONS, ShuffleWriterOptions.DEFAULT.partSizeBytes()),
          ShuffleReaderOptions.DEFAULT, () -> false);
      combinerGets.add(out.metrics().getRequests());
      results.add(out.addTo(TaskResult.newBuilder().setStageId(2).setPartition(c).setAttempt(0)).build());
    }
    return results;
  }

  private record Read(List<List<Object>> rows, long gets) {}

  private Read readPartition(List<TaskResult> winners, int p) {
    List<List<Object>> rows = new ArrayList<>();
    ShuffleInput input = ShuffleSegments.input(Schema.getDefaultInstance(), BUCKET, winners, p);
    try (ShuffleReader reader = ShuffleReader.open(s3, allocator, input, ShuffleReaderOptions.DEFAULT)) {
      while (reader.hasNext()) {
        rows.addAll(ShuffleTestData.read(reader.next()));
      }
      return new Read(rows, reader.metrics().getRequests());
    }
  }

  @Test
  void reduceTasksReadTheSameRowsFromCombinedObjectsWithOneGetPerCombiner() {
    ShuffleOutput output = output("same-rows");
    List<TaskResult> maps = writeMaps(output);
    assertThat(maps.stream().mapToLong(r -> r.getPartitionsList().stream().filter(x -> x.getPartition() == 0).count())
        .max().orElseThrow()).as("some map output holds several ranges of a partition").isGreaterThan(1);
    List<Long> combinerGets = new ArrayList<>();
    List<TaskResult> combined = combine(output, maps, combinerGets);
    assertThat(combined).hasSize(3);
    assertThat(combinerGets).as("one GET per map output").containsExactly(5L, 5L, 2L);

    long directGets = 0;
    long combinedGets = 0;
    for (int p = 0; p < PARTITIONS; p++) {
      Read direct = readPartition(maps, p);
      Read viaCombiners = readPartition(combined, p);
      assertThat(direct.rows()).isNotEmpty();
      assertThat(ShuffleTestData.multiset(viaCombiners.rows())).isEqualTo(ShuffleTestData.multiset(direct.rows()));
      assertThat(viaCombiners.gets()).isLessThanOrEqualTo(3);
      directGets += direct.gets();
      combinedGets += viaCombiners.gets();
    }
    assertThat(directGets).isGreaterThan((long) PARTITIONS * MAPS);
    assertThat(combinedGets).isLessThanOrEqualTo(3L * PARTITIONS);
  }

  @Test
  void theCombinedObjectDescribesItselfWithOneRangePerPartition() {
    ShuffleOutput output = output("footer");
    List<TaskResult> combined = combine(output, writeMaps(output), new ArrayList<>());
    TaskResult first = combined.get(0);
    ShuffleIndex footer = ShuffleReader.readIndex(s3, BUCKET, first.getOutputObjectKey());
    assertThat(footer.ranges()).isEqualTo(first.getPartitionsList());
    assertThat(footer.ranges()).extracting(PartitionRange::getPartition)
        .containsExactlyElementsOf(java.util.stream.IntStream.range(0, PARTITIONS).boxed().toList());
    assertThat(footer.ranges().stream().mapToLong(PartitionRange::getRows).sum()).isEqualTo(5L * 400);
  }

  @Test
  void aMissingMapOutputIsReportedByNameAndLeavesNoCombinedObject() {
    ShuffleOutput output = output("missing");
    List<TaskResult> maps = writeMaps(output);
    s3.deleteObject(b -> b.bucket(BUCKET).key(maps.get(3).getOutputObjectKey()));
    String key = ShuffleKeys.mapOutputKey(output.getJobPrefix(), 2, 0, 0);
    ShuffleInput input = ShuffleSegments.wholeOutputs(Schema.getDefaultInstance(), BUCKET, maps.subList(0, GROUP));
    assertThatThrownBy(() -> ShuffleCombiner.combine(s3, input, new ShuffleCombiner.Target(BUCKET, key,
        new MapTaskAttempt(2, 0, 0), PARTITIONS, ShuffleWriterOptions.DEFAULT.partSizeBytes()),
        ShuffleReaderOptions.DEFAULT, () -> false))
        .isInstanceOfSatisfying(MissingShuffleOutputException.class, e -> {
          assertThat(e.stageId()).isEqualTo(1);
          assertThat(e.partition()).isEqualTo(3);
        });
    assertThat(s3.listObjectsV2(b -> b.bucket(BUCKET).prefix(key)).contents()).isEmpty();
  }
}

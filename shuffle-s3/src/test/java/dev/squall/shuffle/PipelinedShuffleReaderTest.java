package dev.squall.shuffle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.engine.EngineException;
import dev.squall.proto.v1.Compression;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.Schema;
import dev.squall.proto.v1.ShuffleOutput;
import dev.squall.proto.v1.TaskResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * Publishing winners and reading a pipelined shuffle input over S3Proxy: the reader reads exactly
 * the published attempt of each map task (a loser's output is never read), picks up winners
 * published while it waits, and stops with CANCELLED when its stop signal turns true.
 */
class PipelinedShuffleReaderTest extends ShuffleStoreTest {
  private static final String JOB = "jobs/pipe";
  private static final int PARTITIONS = 4;

  private TaskResult writeMap(String job, int partition, int attempt, List<List<Object>> rows) {
    ShuffleOutput output = ShuffleOutput.newBuilder().setBucket(BUCKET).setJobPrefix(job)
        .setPartitioning(Partitioning.newBuilder().setHash(Partitioning.Hash.newBuilder().setPartitions(PARTITIONS)
            .addKeys(ShuffleTestData.I64))).setCompression(Compression.LZ4_FRAME).build();
    ShuffleWriter writer = ShuffleWriter.open(s3, allocator, output, new MapTaskAttempt(1, partition, attempt),
        ShuffleWriterOptions.DEFAULT);
    try (VectorSchemaRoot batch = ShuffleTestData.batch(allocator, rows)) {
      writer.write(batch);
    }
    return writer.close().addTo(TaskResult.newBuilder().setJobId("pipe").setStageId(1).setPartition(partition)
        .setAttempt(attempt)).build();
  }

  /** Rows of partitions [0, PARTITIONS) of the given winners, read the ordinary way. */
  private List<List<Object>> readStatic(List<TaskResult> winners) {
    List<List<Object>> rows = new ArrayList<>();
    try (ShuffleReader reader = ShuffleReader.open(s3, allocator, ShuffleSegments.input(Schema.getDefaultInstance(),
        BUCKET, winners, 0, PARTITIONS), ShuffleReaderOptions.DEFAULT)) {
      while (reader.hasNext()) {
        rows.addAll(ShuffleTestData.read(reader.next()));
      }
    }
    return rows;
  }

  private List<List<Object>> readPipelined(String job, java.util.function.BooleanSupplier stop) {
    List<List<Object>> rows = new ArrayList<>();
    try (PipelinedShuffleReader reader = PipelinedShuffleReader.open(s3, allocator, Schema.getDefaultInstance(),
        PublishedWinners.input(BUCKET, job, 1, 3, 0, PARTITIONS), ShuffleReaderOptions.DEFAULT, stop)) {
      while (reader.hasNext()) {
        rows.addAll(ShuffleTestData.read(reader.next()));
      }
      assertThat(reader.metrics().rowsRead()).isEqualTo(rows.size());
    }
    return rows;
  }

  @Test
  void readsOnlyThePublishedAttemptOfEachMapTaskIncludingWinnersPublishedWhileItWaits() throws Exception {
    String job = JOB + "-winners";
    List<TaskResult> winners = new ArrayList<>();
    for (int m = 0; m < 3; m++) {
      winners.add(writeMap(job, m, 1, ShuffleTestData.rows(m, 500)));
    }
    // Losers: other attempts of tasks 0 and 2 wrote other rows; their objects exist but never win.
    writeMap(job, 0, 0, ShuffleTestData.rows(100, 300));
    writeMap(job, 2, 2, ShuffleTestData.rows(102, 300));
    PublishedWinners.publish(s3, BUCKET, job, winners.get(0));
    CompletableFuture<Void> later = CompletableFuture.runAsync(() -> {
      pause(300);
      PublishedWinners.publish(s3, BUCKET, job, winners.get(1));
      pause(300);
      PublishedWinners.publish(s3, BUCKET, job, winners.get(2));
    });

    List<List<Object>> read = readPipelined(job, () -> false);
    later.get(30, TimeUnit.SECONDS);

    assertThat(ShuffleTestData.multiset(read)).isEqualTo(ShuffleTestData.multiset(readStatic(winners)));
    assertThat(read).hasSize(1500);
  }

  @Test
  void aRetractedWinnerIsNotRead() {
    String job = JOB + "-retract";
    TaskResult lost = writeMap(job, 0, 0, ShuffleTestData.rows(7, 50));
    PublishedWinners.publish(s3, BUCKET, job, lost);
    PublishedWinners.retract(s3, BUCKET, job, 1, 0);

    assertThatThrownBy(() -> readPipelined(job, () -> true)).isInstanceOf(EngineException.class)
        .hasMessageContaining("0 of 3 map outputs known");
  }

  @Test
  void stopsWithCancelledWhileWaitingForWinners() {
    String job = JOB + "-stop";
    PublishedWinners.publish(s3, BUCKET, job, writeMap(job, 1, 0, ShuffleTestData.rows(3, 50)));
    long start = System.nanoTime();

    assertThatThrownBy(() -> readPipelined(job, () -> System.nanoTime() - start > 200_000_000L))
        .isInstanceOfSatisfying(EngineException.class, e -> assertThat(e.code())
            .isEqualTo(dev.squall.proto.v1.ErrorCode.CANCELLED))
        .hasMessageContaining("1 of 3 map outputs known");
  }

  /** Sleeps without a checked exception. */
  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

package dev.squall.shuffle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.local.s3.EmbeddedS3;
import dev.squall.proto.v1.Compression;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

class ShuffleCleanerTest {
  static final String BUCKET = "squall-shuffle-clean";

  private static long count(S3Client s3, String prefix) {
    return s3.listObjectsV2Paginator(b -> b.bucket(BUCKET).prefix(prefix)).contents().stream().count();
  }

  @Test
  void deleteJobLeavesNothingUnderThePrefixAndSparesOtherJobs() throws Exception {
    try (EmbeddedS3 server = EmbeddedS3.startTransient(BUCKET); S3Client s3 = server.newClient();
        BufferAllocator allocator = new RootAllocator()) {
      List<List<Object>> rows = ShuffleTestData.rows(1, 50);
      for (String job : List.of("jobs/j1", "jobs/j1x")) {
        for (int m = 0; m < 9; m++) {
          for (int attempt = 0; attempt < 2; attempt++) {
            ShuffleWriter writer = ShuffleWriter.open(s3, allocator, ShuffleRoundTripTest.output("x",
                ShuffleRoundTripTest.hash(3, 0), Compression.LZ4_FRAME).toBuilder().setBucket(BUCKET).setJobPrefix(job).build(),
                new MapTaskAttempt(m % 2, m, attempt), ShuffleWriterOptions.DEFAULT);
            try (VectorSchemaRoot batch = ShuffleTestData.batch(allocator, rows)) {
              writer.write(batch);
            }
            writer.close();
          }
        }
      }
      // A stray object of the job (e.g. a result file) goes too.
      s3.putObject(b -> b.bucket(BUCKET).key("jobs/j1/result/part-0"), RequestBody.fromString("r"));
      assertThat(count(s3, "jobs/j1/")).isEqualTo(19);

      // Pages of 4 keys: several listings and DeleteObjects batches.
      long deleted = new ShuffleCleaner(s3, 4).deleteJob(BUCKET, "jobs/j1");
      assertThat(deleted).isEqualTo(19);
      assertThat(count(s3, "jobs/j1/")).isZero();
      assertThat(count(s3, "jobs/j1x/")).isEqualTo(18);
      assertThat(new ShuffleCleaner(s3).deleteJob(BUCKET, "jobs/j1/")).isZero();
      assertThatThrownBy(() -> new ShuffleCleaner(s3).deleteJob(BUCKET, "")).isInstanceOf(IllegalArgumentException.class);
    }
  }
}

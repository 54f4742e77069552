package dev.squall.local.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The disk layout of a filesystem-backed EmbeddedS3: object {@code s3://bucket/a/b/c} is the plain
 * file {@code dataDir/bucket/a/b/c}. Other parts of Squall rely on this to let DuckDB read the
 * Parquet files written to the local stack straight from disk.
 */
class EmbeddedS3FilesystemTest {
  private static final String BUCKET = "squall-warehouse";

  @TempDir
  Path dataDir;

  @Test
  void objectWithSlashesInItsKeyIsAPlainFileAtTheSamePathUnderTheBucketFolder() throws Exception {
    byte[] data = new byte[200_000];
    new Random(7).nextBytes(data);
    String key = "tpch/lineitem/data/l_shipdate=1995-01-01/00000-0-part.parquet";
    try (EmbeddedS3 s3 = EmbeddedS3.start(dataDir, 0, List.of(BUCKET)); var client = s3.newClient()) {
      client.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(data));
    }

    Path file = dataDir.resolve(BUCKET).resolve("tpch").resolve("lineitem").resolve("data")
        .resolve("l_shipdate=1995-01-01").resolve("00000-0-part.parquet");
    assertThat(file).isRegularFile();
    assertThat(Files.readAllBytes(file)).isEqualTo(data);
  }

  @Test
  void multipartObjectIsOnePlainFileOnDisk() throws Exception {
    byte[] part1 = new byte[5 * 1024 * 1024];
    byte[] part2 = new byte[777_777];
    new Random(8).nextBytes(part1);
    new Random(9).nextBytes(part2);
    String key = "tpch/lineitem/data/00001-big.parquet";
    try (EmbeddedS3 s3 = EmbeddedS3.start(dataDir, 0, List.of(BUCKET)); var client = s3.newClient()) {
      String uploadId = client.createMultipartUpload(b -> b.bucket(BUCKET).key(key)).uploadId();
      String etag1 = client.uploadPart(b -> b.bucket(BUCKET).key(key).uploadId(uploadId).partNumber(1),
          RequestBody.fromBytes(part1)).eTag();
      String etag2 = client.uploadPart(b -> b.bucket(BUCKET).key(key).uploadId(uploadId).partNumber(2),
          RequestBody.fromBytes(part2)).eTag();
      client.completeMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(uploadId).multipartUpload(m -> m.parts(
          p -> p.partNumber(1).eTag(etag1), p -> p.partNumber(2).eTag(etag2))));
    }

    byte[] onDisk = Files.readAllBytes(dataDir.resolve(BUCKET).resolve(key));
    byte[] expected = new byte[part1.length + part2.length];
    System.arraycopy(part1, 0, expected, 0, part1.length);
    System.arraycopy(part2, 0, expected, part1.length, part2.length);
    assertThat(onDisk).isEqualTo(expected);
    try (var files = Files.walk(dataDir)) {
      assertThat(files.filter(Files::isRegularFile).map(p -> dataDir.relativize(p).toString()))
          .as("no part files left behind").containsExactly(BUCKET + "/" + key);
    }
  }

  @Test
  void listingShowsObjectsButNotTheFoldersHoldingThem() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.start(dataDir, 0, List.of(BUCKET)); var client = s3.newClient()) {
      client.putObject(b -> b.bucket(BUCKET).key("tpch/orders/data/a.parquet"), RequestBody.fromString("a"));
      client.putObject(b -> b.bucket(BUCKET).key("tpch/orders/metadata/v1.metadata.json"), RequestBody.fromString("{}"));

      assertThat(client.listObjectsV2(b -> b.bucket(BUCKET)).contents()).extracting(S3Object::key)
          .containsExactly("tpch/orders/data/a.parquet", "tpch/orders/metadata/v1.metadata.json");
      assertThat(client.listObjectsV2(b -> b.bucket(BUCKET).prefix("tpch/orders/data/")).contents())
          .extracting(S3Object::key).containsExactly("tpch/orders/data/a.parquet");
    }
  }

  @Test
  void fileWrittenUnderTheBucketFolderCanBeReadByKey() throws Exception {
    Path file = dataDir.resolve(BUCKET).resolve("shuffle/job-1/stage-2/map-3.arrow");
    Files.createDirectories(file.getParent());
    byte[] data = {0, 1, 2, (byte) 0xFF, 10, 13};
    Files.write(file, data);

    try (EmbeddedS3 s3 = EmbeddedS3.start(dataDir, 0, List.of(BUCKET)); var client = s3.newClient()) {
      assertThat(client.getObjectAsBytes(b -> b.bucket(BUCKET).key("shuffle/job-1/stage-2/map-3.arrow")).asByteArray())
          .isEqualTo(data);
    }
  }

  @Test
  void objectsSurviveARestartOnTheSameDirectory() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.start(dataDir, 0, List.of(BUCKET)); var client = s3.newClient()) {
      client.putObject(b -> b.bucket(BUCKET).key("metadata/v1.metadata.json"), RequestBody.fromString("{\"format-version\":2}"));
    }
    try (EmbeddedS3 s3 = EmbeddedS3.start(dataDir, 0, List.of(BUCKET)); var client = s3.newClient()) {
      assertThat(client.getObjectAsBytes(b -> b.bucket(BUCKET).key("metadata/v1.metadata.json")).asUtf8String())
          .isEqualTo("{\"format-version\":2}");
    }
  }
}

package dev.squall.local.s3;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import software.amazon.awssdk.services.s3.S3Client;

/** The S3 contract against S3Proxy storing objects as files, as {@code squall local} does. */
class EmbeddedFilesystemS3ApiTest extends S3ApiContract {
  private EmbeddedS3 embedded;
  private Path dataDir;

  @Override
  protected S3Client newClient() throws Exception {
    dataDir = Files.createTempDirectory("squall-s3-contract");
    embedded = EmbeddedS3.start(dataDir, 0, List.of());
    return embedded.newClient();
  }

  @AfterAll
  void stopS3() throws Exception {
    if (embedded != null) {
      embedded.close();
    }
    if (dataDir != null) {
      try (var paths = Files.walk(dataDir)) {
        paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}

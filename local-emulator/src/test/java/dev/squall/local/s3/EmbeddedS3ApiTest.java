package dev.squall.local.s3;

import org.junit.jupiter.api.AfterAll;
import software.amazon.awssdk.services.s3.S3Client;

/** The S3 contract against the in-process S3Proxy (in-memory blob store). */
class EmbeddedS3ApiTest extends S3ApiContract {
  private EmbeddedS3 embedded;

  @Override
  protected S3Client newClient() throws Exception {
    embedded = EmbeddedS3.startTransient();
    return embedded.newClient();
  }

  @AfterAll
  void stopS3() throws Exception {
    if (embedded != null) {
      embedded.close();
    }
  }
}

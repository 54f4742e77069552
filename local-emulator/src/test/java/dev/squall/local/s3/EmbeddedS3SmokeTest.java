package dev.squall.local.s3;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;

class EmbeddedS3SmokeTest {
  @Test
  void putThenGetRoundTrips() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.startTransient("squall-smoke"); var client = s3.newClient()) {
      client.putObject(b -> b.bucket("squall-smoke").key("a/b"), RequestBody.fromString("hello"));
      assertThat(client.getObjectAsBytes(b -> b.bucket("squall-smoke").key("a/b")).asUtf8String()).isEqualTo("hello");
    }
  }
}

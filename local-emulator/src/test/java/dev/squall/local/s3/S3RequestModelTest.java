package dev.squall.local.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The embedded S3's model of S3 at scale ({@link S3RequestModel}): requests over a prefix's rate
 * are answered 503 SlowDown, other prefixes are not affected, and every request is delayed by the
 * modeled latency; the server's request log shows the 503s.
 */
class S3RequestModelTest {
  @Test
  void readsOverAPrefixRateAreAnsweredSlowDownAndOtherPrefixesAreNot() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.start(null, 0, List.of("model-bucket"), new S3RequestModel(Duration.ZERO, 0, 5));
        S3Client client = S3Client.builder()
            .endpointOverride(s3.endpoint()).region(EmbeddedS3.REGION).forcePathStyle(true)
            .credentialsProvider(() -> software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(
                EmbeddedS3.ACCESS_KEY, EmbeddedS3.SECRET_KEY))
            .requestChecksumCalculation(software.amazon.awssdk.core.checksums.RequestChecksumCalculation.WHEN_REQUIRED)
            .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()))
            .build()) {
      client.putObject(b -> b.bucket("model-bucket").key("hot/a"), RequestBody.fromString("x"));
      client.putObject(b -> b.bucket("model-bucket").key("cold/a"), RequestBody.fromString("y"));
      int slowDowns = 0;
      for (int i = 0; i < 30; i++) {
        try {
          client.getObjectAsBytes(b -> b.bucket("model-bucket").key("hot/a"));
        } catch (S3Exception e) {
          assertThat(e.statusCode()).isEqualTo(503);
          assertThat(e.awsErrorDetails().errorCode()).isEqualTo("SlowDown");
          slowDowns++;
        }
      }
      // A bucket of 5 reads refilling at 5/s: most of 30 back-to-back reads are refused.
      assertThat(slowDowns).isGreaterThanOrEqualTo(15);
      assertThat(client.getObjectAsBytes(b -> b.bucket("model-bucket").key("cold/a")).asUtf8String()).isEqualTo("y");
      long logged503 = s3.requestLog().entries(e -> e.status() == 503 && e.key().equals("hot/a")).size();
      assertThat(logged503).isEqualTo(slowDowns);
    }
  }

  @Test
  void everyRequestWaitsForTheModeledLatency() throws Exception {
    Duration latency = Duration.ofMillis(150);
    try (EmbeddedS3 s3 = EmbeddedS3.start(null, 0, List.of("latency-bucket"), new S3RequestModel(latency, 0, 0));
        S3Client client = s3.newClient()) {
      client.putObject(b -> b.bucket("latency-bucket").key("k"), RequestBody.fromString("x"));
      long start = System.nanoTime();
      client.headObject(b -> b.bucket("latency-bucket").key("k"));
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(latency);
    }
  }

  @Test
  void prefixIsTheKeyUpToItsLastSlash() {
    assertThat(S3RequestThrottle.prefixOf("/b/jobs/j1/s1/m0/a0.arrows")).isEqualTo("b/jobs/j1/s1/m0/");
    assertThat(S3RequestThrottle.prefixOf("/b/key")).isEqualTo("b/");
    assertThat(S3RequestThrottle.prefixOf("/b")).isEqualTo("b/");
  }
}

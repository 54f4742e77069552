package dev.squall.shuffle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.local.s3.EmbeddedS3;
import dev.squall.proto.v1.ShuffleSegment;
import dev.squall.shuffle.s3.RetryPolicy;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** The reader against S3 behind a real HTTP proxy that throttles GETs with 503 SlowDown. */
class ShuffleReaderRetryTest {
  static final String BUCKET = "squall-shuffle-retry";

  /** A client through the proxy with the SDK's own retries off, so only the reader retries. */
  static S3Client clientVia(FaultInjectingProxy proxy) {
    return S3Client.builder()
        .endpointOverride(URI.create("http://127.0.0.1:" + proxy.port()))
        .region(EmbeddedS3.REGION)
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(EmbeddedS3.ACCESS_KEY, EmbeddedS3.SECRET_KEY)))
        .forcePathStyle(true)
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()))
        .httpClientBuilder(UrlConnectionHttpClient.builder())
        .build();
  }

  private static List<ShuffleSegment> writeThreeMapOutputs(S3Client s3, BufferAllocator allocator, List<List<Object>> rows) {
    return ShuffleTestData.writeMapOutputs(s3, allocator, BUCKET, "throttled", rows, rows.size() / 3);
  }

  @Test
  void readerSurvivesInjectedSlowDownAnswers() throws Exception {
    List<List<Object>> rows = ShuffleTestData.rows(21, 600);
    try (EmbeddedS3 server = EmbeddedS3.startTransient(BUCKET);
        S3Client direct = server.newClient();
        FaultInjectingProxy proxy = new FaultInjectingProxy(server.port(), 7);
        S3Client throttled = clientVia(proxy);
        BufferAllocator allocator = new RootAllocator()) {
      List<ShuffleSegment> segments = writeThreeMapOutputs(direct, allocator, rows);

      ShuffleReaderOptions options = ShuffleReaderOptions.DEFAULT.withMaxInFlight(2)
          .withRetry(new RetryPolicy(10, Duration.ofMillis(5), Duration.ofMillis(100)));
      List<List<Object>> readBack = new ArrayList<>();
      try (ShuffleReader reader = ShuffleReader.open(throttled, allocator, segments, options)) {
        reader.forEachRemaining(batch -> readBack.addAll(ShuffleTestData.read(batch)));
        assertThat(reader.metrics().getRequests()).isEqualTo(3 + 7);
      }
      assertThat(proxy.injected()).isEqualTo(7);
      assertThat(proxy.relayedGets()).isEqualTo(3);
      assertThat(ShuffleTestData.multiset(readBack)).isEqualTo(ShuffleTestData.multiset(rows));
    }
  }

  @Test
  void readerGivesUpWithTheS3ErrorWhenThrottlingOutlastsItsRetries() throws Exception {
    List<List<Object>> rows = ShuffleTestData.rows(22, 600);
    try (EmbeddedS3 server = EmbeddedS3.startTransient(BUCKET);
        S3Client direct = server.newClient();
        FaultInjectingProxy proxy = new FaultInjectingProxy(server.port(), 1000);
        S3Client throttled = clientVia(proxy);
        BufferAllocator allocator = new RootAllocator()) {
      List<ShuffleSegment> segments = writeThreeMapOutputs(direct, allocator, rows);
      ShuffleReaderOptions options = ShuffleReaderOptions.DEFAULT
          .withRetry(new RetryPolicy(3, Duration.ofMillis(1), Duration.ofMillis(10)));
      try (ShuffleReader reader = ShuffleReader.open(throttled, allocator, segments, options)) {
        assertThatThrownBy(reader::hasNext)
            .isInstanceOfSatisfying(S3Exception.class, e -> {
              assertThat(e.statusCode()).isEqualTo(503);
              assertThat(e.awsErrorDetails().errorCode()).isEqualTo("SlowDown");
            });
      }
    }
  }
}

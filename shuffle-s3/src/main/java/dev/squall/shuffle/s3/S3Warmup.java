package dev.squall.shuffle.s3;

import java.net.URI;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Runs an S3 request through the SDK's whole client pipeline (marshalling, interceptors, the
 * URL-connection HTTP client) before a SnapStart snapshot, against a loopback port where nothing
 * listens, so it fails at once. No credentials are resolved: the client is anonymous and is closed
 * afterwards; nothing of it is kept.
 */
public final class S3Warmup {
  /** A loopback port nobody may listen on (TCP port 1 is reserved). */
  private static final URI NOWHERE = URI.create("http://127.0.0.1:1");

  private S3Warmup() {}

  /** Sends {@code rounds} GetObject requests that fail to connect; returns how many failed so. */
  public static int getObject(int rounds) {
    int failed = 0;
    try (S3Client s3 = S3Client.builder()
        .region(Region.US_EAST_1)
        .endpointOverride(NOWHERE)
        .forcePathStyle(true)
        .credentialsProvider(AnonymousCredentialsProvider.create())
        .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()))
        .httpClientBuilder(UrlConnectionHttpClient.builder())
        .build()) {
      for (int i = 0; i < rounds; i++) {
        try {
          s3.getObjectAsBytes(b -> b.bucket("squall-warmup").key("jobs/warmup").range("bytes=0-1"));
        } catch (SdkException expected) {
          failed++;
        }
      }
    }
    return failed;
  }
}

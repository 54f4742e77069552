package dev.squall.local.lambda;

import java.net.URI;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.lambda.LambdaClient;

/** Builds the stock AWS SDK client for a local Invoke endpoint. */
final class LocalLambdaClients {
  private LocalLambdaClients() {}

  /** A client without retries, so that a 429 reaches the test as TooManyRequestsException. */
  static LambdaClient withoutRetries(URI endpoint) {
    return LambdaClient.builder()
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
        .httpClientBuilder(UrlConnectionHttpClient.builder())
        .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()).apiCallTimeout(Duration.ofSeconds(60)))
        .build();
  }
}

package dev.squall.local.lambda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.lambda.model.TooManyRequestsException;

/**
 * The emulator's model of Lambda at scale ({@link ScaleModel}), through the AWS SDK: cold starts
 * only for new execution environments, the scaling rate and the account concurrency answered with
 * 429 as Lambda does, and Invoke requests counted per signing caller.
 */
class ScaleModelTest {
  private static final SdkBytes PAYLOAD = SdkBytes.fromUtf8String("{}");

  private static LambdaClient client(LambdaEmulator emulator, String accessKey) {
    return LambdaClient.builder()
        .endpointOverride(emulator.endpoint())
        .region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, "secret")))
        .httpClientBuilder(UrlConnectionHttpClient.builder())
        .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()))
        .build();
  }

  @Test
  void onlyANewExecutionEnvironmentPaysTheColdStart() throws Exception {
    Duration coldStart = Duration.ofMillis(400);
    try (LambdaEmulator emulator = LambdaEmulator.start(0, List.of(FunctionDefinition.of("f", (p, c) -> p)), 10,
            new ScaleModel(coldStart, Duration.ZERO, 0, Duration.ofSeconds(10)));
        LambdaClient lambda = client(emulator, "caller")) {
      long start = System.nanoTime();
      lambda.invoke(b -> b.functionName("f").payload(PAYLOAD));
      long first = System.nanoTime() - start;
      assertThat(Duration.ofNanos(first)).isGreaterThanOrEqualTo(coldStart);
      for (int i = 0; i < 5; i++) {
        lambda.invoke(b -> b.functionName("f").payload(PAYLOAD));
      }
      // One after another, every later invocation found the first environment idle.
      assertThat(emulator.environmentsCreated("f")).isEqualTo(1);
    }
  }

  @Test
  void scalingFasterThanTheRateIsThrottledAndAnIdleEnvironmentIsNot() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    LambdaHandler blocking = (p, c) -> {
      release.await(30, TimeUnit.SECONDS);
      return p;
    };
    // Two new environments per minute: a third concurrent invocation finds none.
    ScaleModel model = new ScaleModel(Duration.ZERO, Duration.ZERO, 2, Duration.ofMinutes(1));
    ExecutorService callers = Executors.newFixedThreadPool(2);
    try (LambdaEmulator emulator = LambdaEmulator.start(0, List.of(FunctionDefinition.of("f", blocking)
            .withTimeout(Duration.ofSeconds(60))), 100, model);
        LambdaClient lambda = client(emulator, "caller")) {
      Future<?> a = callers.submit(() -> lambda.invoke(b -> b.functionName("f").payload(PAYLOAD)));
      Future<?> b = callers.submit(() -> lambda.invoke(r -> r.functionName("f").payload(PAYLOAD)));
      long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (emulator.environmentsCreated("f") < 2 && System.nanoTime() < until) {
        Thread.sleep(10);
      }
      assertThatThrownBy(() -> lambda.invoke(r -> r.functionName("f").payload(PAYLOAD)))
          .isInstanceOf(TooManyRequestsException.class)
          .satisfies(e -> assertThat(((TooManyRequestsException) e).statusCode()).isEqualTo(429));
      release.countDown();
      a.get(30, TimeUnit.SECONDS);
      b.get(30, TimeUnit.SECONDS);
      // Both environments are idle now: reusing one needs no new environment.
      lambda.invoke(r -> r.functionName("f").payload(PAYLOAD));
      assertThat(emulator.environmentsCreated("f")).isEqualTo(2);
    } finally {
      release.countDown();
      callers.shutdownNow();
    }
  }

  @Test
  void accountConcurrencyBeyondTheLimitIsThrottled() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    LambdaHandler blocking = (p, c) -> {
      release.await(30, TimeUnit.SECONDS);
      return p;
    };
    ExecutorService callers = Executors.newSingleThreadExecutor();
    try (LambdaEmulator emulator = LambdaEmulator.start(0, List.of(FunctionDefinition.of("f", blocking)
            .withTimeout(Duration.ofSeconds(60))), 1, ScaleModel.lambdaLike(Duration.ZERO, Duration.ofMillis(5)));
        LambdaClient lambda = client(emulator, "caller")) {
      Future<?> running = callers.submit(() -> lambda.invoke(b -> b.functionName("f").payload(PAYLOAD)));
      long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (emulator.environmentsCreated("f") < 1 && System.nanoTime() < until) {
        Thread.sleep(10);
      }
      assertThatThrownBy(() -> lambda.invoke(r -> r.functionName("f").payload(PAYLOAD)))
          .isInstanceOf(TooManyRequestsException.class);
      release.countDown();
      running.get(30, TimeUnit.SECONDS);
    } finally {
      release.countDown();
      callers.shutdownNow();
    }
  }

  @Test
  void invokeRequestsAreCountedPerSigningCaller() throws Exception {
    try (LambdaEmulator emulator = LambdaEmulator.start(0, List.of(FunctionDefinition.of("f", (p, c) -> p)));
        LambdaClient coordinator = client(emulator, "coordinator-key");
        LambdaClient task = client(emulator, "task-key")) {
      for (int i = 0; i < 3; i++) {
        coordinator.invoke(b -> b.functionName("f").payload(PAYLOAD));
      }
      task.invoke(b -> b.functionName("f").payload(PAYLOAD));
      assertThatThrownBy(() -> task.invoke(b -> b.functionName("missing").payload(PAYLOAD)));
      assertThat(emulator.invokeCounts().of("coordinator-key", "f")).isEqualTo(3);
      assertThat(emulator.invokeCounts().of("task-key", "f")).isEqualTo(1);
      assertThat(emulator.invokeCounts().snapshot()).containsEntry("task-key missing", 1L).hasSize(3);
    }
  }
}

package dev.squall.coordinator.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.invoke.TaskLambdaClients;
import dev.squall.local.lambda.FunctionDefinition;
import dev.squall.local.lambda.LambdaEmulator;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.lambda.model.TooManyRequestsException;

/** The task invoke client against the Lambda Invoke emulator. */
class TaskLambdaClientsTest {

  /** Counts HTTP requests the client sends (each SDK retry is one more). */
  private static final class Transmissions implements ExecutionInterceptor {
    final AtomicInteger count = new AtomicInteger();

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
      count.incrementAndGet();
    }
  }

  @Test
  void aThrottledTaskInvokeIsSentOnceSoNoTwoInvocationsShareAnAttempt() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger invocations = new AtomicInteger();
    try (LambdaEmulator lambda = LambdaEmulator.start(0, List.of(FunctionDefinition.of("task", (payload, ctx) -> {
      invocations.incrementAndGet();
      release.await(30, TimeUnit.SECONDS);
      return payload;
    }).withReservedConcurrency(1)))) {
      Transmissions sent = new Transmissions();
      // No retry setting but configure()'s: the one under test.
      try (LambdaClient plain = TaskLambdaClients.configure(LambdaClient.builder()
          .endpointOverride(lambda.endpoint())
          .region(Region.US_EAST_1)
          .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
          .overrideConfiguration(c -> c.addExecutionInterceptor(sent)), Duration.ofSeconds(60))
          .build()) {
        CompletableFuture<?> busy = CompletableFuture.runAsync(() -> plain.invoke(b -> b.functionName("task")
            .payload(SdkBytes.fromString("{\"a\":1}", StandardCharsets.UTF_8))));
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (invocations.get() == 0 && System.nanoTime() < until) {
          Thread.sleep(10);
        }
        int before = sent.count.get();
        assertThatThrownBy(() -> plain.invoke(b -> b.functionName("task")
            .payload(SdkBytes.fromString("{\"a\":2}", StandardCharsets.UTF_8))))
            .isInstanceOf(TooManyRequestsException.class);
        assertThat(sent.count.get() - before).as("HTTP requests for one throttled invoke").isEqualTo(1);
        release.countDown();
        busy.get(30, TimeUnit.SECONDS);
        assertThat(invocations.get()).isEqualTo(1);
      }
    }
  }

  @Test
  void theReadTimeoutLiesAboveTheTaskFunctionsTimeout() {
    assertThat(TaskLambdaClients.readTimeout(Duration.ofMinutes(15))).isGreaterThan(Duration.ofMinutes(15));
    assertThat(TaskLambdaClients.readTimeout(Duration.ofSeconds(45))).isGreaterThan(Duration.ofSeconds(45));
    assertThatThrownBy(() -> TaskLambdaClients.readTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
  }
}

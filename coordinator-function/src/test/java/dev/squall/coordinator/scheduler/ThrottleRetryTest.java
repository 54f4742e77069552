package dev.squall.coordinator.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.invoke.TaskLambdaClients;
import dev.squall.invoke.ThrottleRetry;
import dev.squall.local.lambda.FunctionDefinition;
import dev.squall.local.lambda.LambdaEmulator;
import dev.squall.local.lambda.LambdaHandler;
import dev.squall.local.s3.EmbeddedS3;
import dev.squall.proto.TaskPayloads;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.lambda.LambdaClient;

/**
 * A task Invoke that Lambda throttles (429, here the emulator's account concurrency of 1) is sent
 * again after a backoff, and counted; once the re-sends are spent the attempt fails as EXTERNAL,
 * for the scheduler's retry policy to decide.
 */
class ThrottleRetryTest {
  /** Answers each task; the first invocation holds the only concurrency slot until released. */
  private static LambdaHandler answering(CountDownLatch firstRelease) {
    AtomicLong calls = new AtomicLong();
    return (payload, ctx) -> {
      TaskSpec spec = TaskPayloads.decodeSpec(payload);
      if (calls.getAndIncrement() == 0) {
        firstRelease.await(30, TimeUnit.SECONDS);
      }
      return TaskPayloads.encodeResult(TaskResult.newBuilder().setJobId(spec.getJobId())
          .setStageId(spec.getStageId()).setPartition(spec.getPartition()).setAttempt(spec.getAttempt()).build());
    };
  }

  private static TaskSpec spec(int partition) {
    return TaskSpec.newBuilder().setJobId("job-t").setStageId(1).setPartition(partition).setAttempt(0).build();
  }

  private static LambdaClient client(LambdaEmulator lambda) {
    return TaskLambdaClients.configure(LambdaClient.builder().endpointOverride(lambda.endpoint())
        .region(EmbeddedS3.REGION)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("coordinator", "s"))),
        Duration.ofMinutes(1)).build();
  }

  @Test
  void aThrottledInvokeIsSentAgainAndItsTaskSucceeds() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    ThrottleRetry throttling = new ThrottleRetry(20, Duration.ofMillis(20), Duration.ofMillis(200), new AtomicLong());
    try (LambdaEmulator lambda = LambdaEmulator.start(0, List.of(FunctionDefinition.of("task", answering(release))
            .withTimeout(Duration.ofMinutes(1))), 1);
        LambdaClient client = client(lambda);
        LambdaTaskInvoker invoker = new LambdaTaskInvoker(client, "task", 2, null, throttling)) {
      CompletableFuture<TaskResult> first = invoker.invoke(spec(0), s -> true);
      while (lambda.environmentsCreated("task") < 1) {
        Thread.sleep(5);
      }
      CompletableFuture<TaskResult> second = invoker.invoke(spec(1), s -> true);
      // The second is throttled while the first holds the account's only slot.
      while (throttling.throttled() < 1) {
        Thread.sleep(5);
      }
      release.countDown();
      assertThat(first.get(30, TimeUnit.SECONDS).hasError()).isFalse();
      TaskResult r = second.get(30, TimeUnit.SECONDS);
      assertThat(r.hasError()).as(r.toString()).isFalse();
      assertThat(r.getPartition()).isEqualTo(1);
      assertThat(lambda.invokeCounts().of("coordinator", "task")).isEqualTo(2 + throttling.throttled());
    }
  }

  @Test
  void throttlingPastTheResendsFailsTheAttemptAsExternal() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    ThrottleRetry throttling = new ThrottleRetry(3, Duration.ofMillis(10), Duration.ofMillis(50), new AtomicLong());
    try (LambdaEmulator lambda = LambdaEmulator.start(0, List.of(FunctionDefinition.of("task", answering(release))
            .withTimeout(Duration.ofMinutes(1))), 1);
        LambdaClient client = client(lambda);
        LambdaTaskInvoker invoker = new LambdaTaskInvoker(client, "task", 2, null, throttling)) {
      CompletableFuture<TaskResult> first = invoker.invoke(spec(0), s -> true);
      while (lambda.environmentsCreated("task") < 1) {
        Thread.sleep(5);
      }
      TaskResult throttled = invoker.invoke(spec(1), s -> true).get(30, TimeUnit.SECONDS);
      assertThat(throttled.getError().getCode()).isEqualTo(ErrorCode.EXTERNAL);
      assertThat(throttled.getError().getMessage()).startsWith("task function throttled");
      // One send and three re-sends, all counted.
      assertThat(throttling.throttled()).isEqualTo(4);
      release.countDown();
      assertThat(first.get(30, TimeUnit.SECONDS).hasError()).isFalse();
    }
  }
}

package dev.squall.coordinator.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.invoke.TaskLambdaClients;
import dev.squall.local.lambda.FunctionDefinition;
import dev.squall.local.lambda.LambdaEmulator;
import dev.squall.local.s3.EmbeddedS3;
import dev.squall.proto.v1.CancelMarker;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import dev.squall.task.TaskFunction;
import dev.squall.task.TaskRunner;
import dev.squall.task.fanout.TaskFanOut;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Two-level invocation through the Invoke emulator and the real task function in both roles (its
 * tasks are specs of another build, which it refuses at once with INCOMPATIBLE_PLAN: cheap tasks
 * whose answers still name their task). The emulator counts Invoke requests per signing identity.
 */
class FanOutTaskInvokerTest {
  private static final String COORDINATOR = "coordinator-role";
  private static final String TASK_ROLE = "task-role";

  private EmbeddedS3 s3;
  private S3Client s3Client;
  private LambdaEmulator lambda;
  private LambdaClient coordinatorClient;
  private LambdaClient taskRoleClient;
  private FanOutTaskInvoker invoker;

  private LambdaClient client(String keyId) {
    return TaskLambdaClients.configure(LambdaClient.builder().endpointOverride(lambda.endpoint())
        .region(EmbeddedS3.REGION)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(keyId, "s"))),
        Duration.ofMinutes(1)).build();
  }

  @BeforeEach
  void start() throws Exception {
    s3 = EmbeddedS3.startTransient("squall-shuffle");
    s3Client = s3.newClient();
    TaskFunction task = new TaskFunction(new TaskRunner(s3Client, null, null), s3Client)
        .withFanOut(() -> new TaskFanOut(taskRoleClient, "task"));
    lambda = LambdaEmulator.start(0, List.of(FunctionDefinition.of("task", (p, c) -> task.handle(p, c::isCancelled))
        .withTimeout(Duration.ofMinutes(1))));
    coordinatorClient = client(COORDINATOR);
    taskRoleClient = client(TASK_ROLE);
    invoker = new FanOutTaskInvoker(new LambdaTaskInvoker(coordinatorClient, "task", 4, null), coordinatorClient, "task",
        null, new FanOutSettings(100, 128));
  }

  @AfterEach
  void stop() throws Exception {
    invoker.close();
    coordinatorClient.close();
    taskRoleClient.close();
    lambda.close();
    s3Client.close();
    s3.close();
  }

  private static TaskSpec spec(int stage, int partition) {
    return TaskSpec.newBuilder().setSchemaFingerprint("0000000000000000").setJobId("job-f").setStageId(stage)
        .setPartition(partition).setAttempt(2)
        .setCancelMarker(CancelMarker.newBuilder().setBucket("squall-shuffle").setObjectKey("jobs/job-f/cancelled"))
        .build();
  }

  @Test
  void aWideStageGoesThroughSquareRootManyInvokersAndEveryTaskAnswers() throws Exception {
    int n = 300;
    Set<Integer> admitted = ConcurrentHashMap.newKeySet();
    List<CompletableFuture<TaskResult>> results = new ArrayList<>();
    invoker.stageStarting("job-f", 1, n);
    for (int p = 0; p < n; p++) {
      // The gate refuses partition 7: it must never be sent.
      results.add(invoker.invoke(spec(1, p), s -> s.getPartition() != 7 && admitted.add(s.getPartition())));
    }
    int invokersSeen = 0;
    for (int p = 0; p < n; p++) {
      TaskResult r = results.get(p).get(60, TimeUnit.SECONDS);
      if (p == 7) {
        assertThat(r).isNull();
        continue;
      }
      assertThat(r.getPartition()).isEqualTo(p);
      assertThat(r.getAttempt()).isEqualTo(2);
      assertThat(r.getError().getCode()).as(r.toString()).isEqualTo(ErrorCode.INCOMPATIBLE_PLAN);
      if (r.getMetrics().getInvokerMillis() > 0) {
        invokersSeen++;
      }
    }
    int invokers = (int) Math.ceil(Math.sqrt(n));
    assertThat(admitted).hasSize(n - 1);
    assertThat(invoker.invokerInvocations()).isEqualTo(invokers);
    assertThat(invokersSeen).as("one result per invoker carries its time").isEqualTo(invokers);
    assertThat(lambda.invokeCounts().of(COORDINATOR, "task")).isEqualTo(invokers);
    assertThat(lambda.invokeCounts().of(TASK_ROLE, "task")).isEqualTo(n - 1);

    // A retry of the started stage goes straight to the task function.
    assertThat(invoker.invoke(spec(1, 7).toBuilder().setAttempt(3).build(), s -> true).get(60, TimeUnit.SECONDS)
        .getAttempt()).isEqualTo(3);
    assertThat(lambda.invokeCounts().of(COORDINATOR, "task")).isEqualTo(invokers + 1);
  }

  @Test
  void aStageAtTheThresholdIsInvokedDirectly() throws Exception {
    List<CompletableFuture<TaskResult>> results = new ArrayList<>();
    invoker.stageStarting("job-f", 3, 100);
    for (int p = 0; p < 100; p++) {
      results.add(invoker.invoke(spec(3, p), s -> true));
    }
    for (int p = 0; p < 100; p++) {
      assertThat(results.get(p).get(60, TimeUnit.SECONDS).getPartition()).isEqualTo(p);
    }
    assertThat(invoker.invokerInvocations()).isZero();
    assertThat(lambda.invokeCounts().of(COORDINATOR, "task")).isEqualTo(100);
    assertThat(lambda.invokeCounts().of(TASK_ROLE, "task")).isZero();
  }
}

package dev.squall.coordinator.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.invoke.TaskLambdaClients;
import dev.squall.local.lambda.FunctionDefinition;
import dev.squall.local.lambda.LambdaEmulator;
import dev.squall.local.s3.EmbeddedS3;
import dev.squall.proto.TaskPayloads;
import dev.squall.proto.v1.CancelMarker;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.ScanInput;
import dev.squall.proto.v1.ScanSplit;
import dev.squall.proto.v1.TaskInput;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import dev.squall.task.TaskFunction;
import dev.squall.task.TaskRunner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Specs and answers over Lambda's payload limit, through the Invoke emulator (which answers 413
 * to a request over 6 MB, as Lambda does) and the real task function.
 */
class TaskPayloadStoreTest {
  private static final String BUCKET = "squall-shuffle";

  /** A spec of about 8 MB: a task with 20,000 splits. Its fingerprint is another build's, so the task answers at once. */
  private static TaskSpec hugeSpec() {
    ScanInput.Builder scan = ScanInput.newBuilder();
    String path = "s3://warehouse/db/t/data/" + "x".repeat(360);
    for (int i = 0; i < 20_000; i++) {
      scan.addSplits(ScanSplit.newBuilder().setDataFilePath(path + i + ".parquet").setStart(0).setLength(1 << 20));
    }
    return TaskSpec.newBuilder().setSchemaFingerprint("0000000000000000").setJobId("job-big").setStageId(1)
        .setPartition(2).setAttempt(3).addInputs(TaskInput.newBuilder().setScan(scan))
        .setCancelMarker(CancelMarker.newBuilder().setBucket(BUCKET).setObjectKey("jobs/job-big/cancelled")).build();
  }

  @Test
  void aSpecOverThePayloadLimitReachesTheTaskThroughS3(@TempDir Path dir) throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.start(dir, 0, List.of(BUCKET)); S3Client client = s3.newClient()) {
      TaskFunction task = new TaskFunction(new TaskRunner(client, null, null), client);
      try (LambdaEmulator lambda = LambdaEmulator.start(0, List.of(FunctionDefinition.of("task",
              (payload, ctx) -> task.handle(payload, ctx::isCancelled))));
          LambdaClient invokeClient = TaskLambdaClients.configure(LambdaClient.builder()
              .endpointOverride(lambda.endpoint()).region(EmbeddedS3.REGION)
              .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("k", "s"))),
              Duration.ofMinutes(1)).build();
          LambdaTaskInvoker invoker = new LambdaTaskInvoker(invokeClient, "task", 1, new TaskPayloadStore(client))) {
        TaskSpec spec = hugeSpec();
        assertThat(TaskPayloads.encodeSpec(spec).length).isGreaterThan(TaskPayloads.MAX_INLINE_PAYLOAD_BYTES);

        TaskResult result = invoker.invoke(spec, s -> true).get();

        // The task read the stored spec: it answers for this very task (and refuses the foreign build).
        assertThat(result.getError().getCode()).as(result.toString()).isEqualTo(ErrorCode.INCOMPATIBLE_PLAN);
        assertThat(result.getJobId()).isEqualTo("job-big");
        assertThat(result.getAttempt()).isEqualTo(3);
        assertThat(client.listObjectsV2(b -> b.bucket(BUCKET).prefix("jobs/job-big/specs/")).contents())
            .singleElement().satisfies(o -> assertThat(o.key()).isEqualTo("jobs/job-big/specs/s1-p2-a3.pb"));
      }
    }
  }

  @Test
  void anAnswerNamingAStoredResultIsReadFromS3(@TempDir Path dir) throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.start(dir, 0, List.of(BUCKET)); S3Client client = s3.newClient()) {
      TaskResult big = TaskResult.newBuilder().setJobId("job-a").setStageId(4)
          .addCommitMessages("{\"file\": \"" + "y".repeat(7_000_000) + "\"}").build();
      client.putObject(b -> b.bucket(BUCKET).key("jobs/job-a/answers/s4-p0-a0.pb"),
          RequestBody.fromBytes(big.toByteArray()));
      byte[] answer = TaskPayloads.encodeResultRef(new TaskPayloads.ObjectRef(BUCKET, "jobs/job-a/answers/s4-p0-a0.pb"));
      assertThat(new TaskPayloadStore(client).answer(answer)).isEqualTo(big);
    }
  }
}

package dev.squall.task;

import dev.squall.proto.TaskPayloads;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The task function's request handling, free of any Lambda framework: payload
 * {@code {"taskSpec":"<base64>"}} in, {@code {"taskResult":"<base64>"}} out ({@link TaskPayloads}).
 * The Quarkus handler on AWS and the local emulator both call {@link #handle}.
 *
 * <p>A payload that is not a task spec throws {@link IllegalArgumentException} (a function error
 * for the caller); every failure of the task itself is answered as a TaskResult with an error.
 * Logs name the task, never the spec's contents.
 */
public final class TaskFunction {
  private static final Logger LOG = LoggerFactory.getLogger(TaskFunction.class);

  private final TaskRunner runner;
  private final S3Client s3;

  /**
   * @param s3 reads specs and stores answers too large for a Lambda payload ({@link TaskPayloads#specRef})
   */
  public TaskFunction(TaskRunner runner, S3Client s3) {
    this.runner = runner;
    this.s3 = s3;
  }

  /**
   * Runs the task attempt in the payload.
   *
   * @param cancelled true once the invocation should stop (its deadline passed, or it was cancelled)
   * @throws IllegalArgumentException when the payload does not hold a TaskSpec
   */
  public byte[] handle(byte[] payload, BooleanSupplier cancelled) {
    Optional<TaskPayloads.ObjectRef> stored = TaskPayloads.specRef(payload);
    TaskSpec spec = stored.isPresent()
        ? TaskPayloads.parseSpec(s3.getObjectAsBytes(b -> b.bucket(stored.get().bucket()).key(stored.get().key()))
            .asByteArray())
        : TaskPayloads.decodeSpec(payload);
    TaskResult result = runner.run(spec, cancelled);
    if (result.hasError()) {
      LOG.info("job {} task {}.{} attempt {} failed: {} {}", spec.getJobId(), spec.getStageId(), spec.getPartition(),
          spec.getAttempt(), result.getError().getCode(), result.getError().getMessage());
    }
    byte[] answer = TaskPayloads.encodeResult(result);
    if (answer.length > TaskPayloads.MAX_INLINE_PAYLOAD_BYTES) {
      // Too large for Lambda's answer: stored beside the job's data, the answer names it.
      String marker = spec.getCancelMarker().getObjectKey();
      TaskPayloads.ObjectRef ref = new TaskPayloads.ObjectRef(spec.getCancelMarker().getBucket(),
          marker.substring(0, marker.lastIndexOf('/') + 1) + "answers/s" + spec.getStageId() + "-p"
              + spec.getPartition() + "-a" + spec.getAttempt() + ".pb");
      s3.putObject(b -> b.bucket(ref.bucket()).key(ref.key()), RequestBody.fromBytes(result.toByteArray()));
      return TaskPayloads.encodeResultRef(ref);
    }
    return answer;
  }
}

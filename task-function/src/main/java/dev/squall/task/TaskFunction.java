package dev.squall.task;

import dev.squall.proto.TaskPayloads;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

  public TaskFunction(TaskRunner runner) {
    this.runner = runner;
  }

  /**
   * Runs the task attempt in the payload.
   *
   * @param cancelled true once the invocation should stop (its deadline passed, or it was cancelled)
   * @throws IllegalArgumentException when the payload does not hold a TaskSpec
   */
  public byte[] handle(byte[] payload, BooleanSupplier cancelled) {
    TaskSpec spec = TaskPayloads.decodeSpec(payload);
    TaskResult result = runner.run(spec, cancelled);
    if (result.hasError()) {
      LOG.info("job {} task {}.{} attempt {} failed: {} {}", spec.getJobId(), spec.getStageId(), spec.getPartition(),
          spec.getAttempt(), result.getError().getCode(), result.getError().getMessage());
    }
    return TaskPayloads.encodeResult(result);
  }
}

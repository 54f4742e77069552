package dev.squall.task;

import dev.squall.proto.FanOutPayloads;
import dev.squall.proto.TaskPayloads;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import dev.squall.shuffle.requests.CountingS3Client;
import dev.squall.shuffle.requests.S3RequestCounter;
import dev.squall.task.fanout.TaskFanOut;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
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
  private final int memoryMb;
  private final AtomicLong initMillis;
  private Supplier<TaskFanOut> fanOutFactory;
  /** The most Arrow memory a task of this function may hold (its memory's budget); 0: as its spec says. */
  private long memoryBudgetCapBytes;
  private TaskFanOut fanOut;

  /**
   * @param s3 reads specs and stores answers too large for a Lambda payload ({@link TaskPayloads#specRef})
   */
  public TaskFunction(TaskRunner runner, S3Client s3) {
    this(runner, s3, 0, 0);
  }

  /**
   * @param memoryMb the memory the function is configured with (reported for GB-seconds; 0 unknown)
   * @param initMillis how long this function instance took to start; the first invocation reports it
   */
  public TaskFunction(TaskRunner runner, S3Client s3, int memoryMb, long initMillis) {
    this.runner = runner;
    this.s3 = s3;
    this.memoryMb = memoryMb;
    this.initMillis = new AtomicLong(initMillis);
  }

  /**
   * Lets this function play the invoker in two-level invocation ({@link FanOutPayloads}): without
   * it an invoker payload is refused. The invoker is built on the first invoker payload, so that a
   * function that only runs tasks never builds its Lambda client.
   *
   * @return this
   */
  public TaskFunction withFanOut(Supplier<TaskFanOut> factory) {
    this.fanOutFactory = factory;
    return this;
  }

  /**
   * Caps each task's memory budget at {@code bytes}, this function's own (60% of its memory), so that
   * a task's budget follows the memory of the function it runs on (task-size tiers) whatever its
   * spec asks; a spec without a budget gets this one. 0: the spec's budget as it is.
   *
   * @return this
   */
  public TaskFunction withMemoryBudgetCap(long bytes) {
    this.memoryBudgetCapBytes = bytes;
    return this;
  }

  /** The budget a task runs with: its spec's, at most this function's own. */
  long budgetFor(TaskSpec spec) {
    long asked = spec.getMemoryBudgetBytes();
    if (memoryBudgetCapBytes <= 0) {
      return asked;
    }
    return asked <= 0 ? memoryBudgetCapBytes : Math.min(asked, memoryBudgetCapBytes);
  }

  private synchronized TaskFanOut fanOut() {
    if (fanOut == null && fanOutFactory != null) {
      fanOut = fanOutFactory.get();
    }
    return fanOut;
  }

  /**
   * Runs the task attempt in the payload, or, in the invoker role, invokes the tasks it lists.
   *
   * @param cancelled true once the invocation should stop (its deadline passed, or it was cancelled)
   * @throws IllegalArgumentException when the payload does not hold a TaskSpec
   */
  public byte[] handle(byte[] payload, BooleanSupplier cancelled) {
    Optional<List<byte[]>> tasks = FanOutPayloads.decodeRequest(payload);
    if (tasks.isPresent()) {
      TaskFanOut invoker = fanOut();
      if (invoker == null) {
        throw new IllegalArgumentException("this task function is not set up to invoke tasks (no Lambda client)");
      }
      try {
        return invoker.invokeAll(tasks.get());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while invoking tasks", e);
      }
    }
    long start = System.nanoTime();
    S3RequestCounter requests = new S3RequestCounter();
    Optional<TaskPayloads.ObjectRef> stored = TaskPayloads.specRef(payload);
    TaskSpec spec = stored.isPresent()
        ? TaskPayloads.parseSpec(CountingS3Client.wrap(s3, requests)
            .getObjectAsBytes(b -> b.bucket(stored.get().bucket()).key(stored.get().key())).asByteArray())
        : TaskPayloads.decodeSpec(payload);
    if (budgetFor(spec) != spec.getMemoryBudgetBytes()) {
      spec = spec.toBuilder().setMemoryBudgetBytes(budgetFor(spec)).build();
    }
    TaskResult.Builder run = runner.run(spec, cancelled, requests).toBuilder();
    // The answer's own PUT (an answer over Lambda's payload limit) is not in the figures it carries.
    run.getMetricsBuilder().setFunctionMemoryMb(memoryMb).setInitMillis(initMillis.getAndSet(0))
        .setInvocationMillis((System.nanoTime() - start) / 1_000_000);
    TaskResult result = run.build();
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

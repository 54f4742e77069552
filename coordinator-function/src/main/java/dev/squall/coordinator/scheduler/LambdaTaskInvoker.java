package dev.squall.coordinator.scheduler;

import dev.squall.invoke.ThrottleRetry;
import dev.squall.proto.TaskPayloads;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.TaskError;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.lambda.model.InvocationType;
import software.amazon.awssdk.services.lambda.model.InvokeResponse;
import software.amazon.awssdk.services.lambda.model.TooManyRequestsException;

/**
 * Invokes the task function through the Lambda Invoke API (RequestResponse) with at most
 * {@code maxConcurrent} invocations in flight; further tasks queue on the coordinator. The payload
 * is the task spec ({@link TaskPayloads}); a throttled Invoke is sent again ({@link ThrottleRetry});
 * a function error, throttling past those re-sends or a transport failure becomes a TaskResult with
 * an EXTERNAL error naming what happened.
 */
public final class LambdaTaskInvoker implements TaskInvoker, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LambdaTaskInvoker.class);
  private final LambdaClient lambda;
  private final String functionName;
  private final ExecutorService pool;
  private final TaskPayloadStore payloads;
  private final ThrottleRetry throttling;
  private final int maxConcurrent;
  /** Task-size tiers, or null: every attempt goes to {@link #functionName}. */
  private TaskTiers tiers;

  /**
   * @param lambda a client for the Lambda service (the emulator locally); not closed by this
   * @param functionName the task function's name or ARN
   * @param maxConcurrent cap on concurrent invocations, at least 1
   */
  public LambdaTaskInvoker(LambdaClient lambda, String functionName, int maxConcurrent) {
    this(lambda, functionName, maxConcurrent, null);
  }

  /**
   * @param payloads passes specs and answers over Lambda's payload limit through S3; null: every
   *     payload inline (an oversized one then fails its attempt)
   */
  public LambdaTaskInvoker(LambdaClient lambda, String functionName, int maxConcurrent, TaskPayloadStore payloads) {
    this(lambda, functionName, maxConcurrent, payloads, ThrottleRetry.defaults());
  }

  /** @param throttling how a throttled (429) Invoke is sent again before its attempt counts as failed */
  public LambdaTaskInvoker(LambdaClient lambda, String functionName, int maxConcurrent, TaskPayloadStore payloads,
      ThrottleRetry throttling) {
    this.payloads = payloads;
    this.throttling = throttling;
    if (maxConcurrent < 1) {
      throw new IllegalArgumentException("Invalid max concurrent invocations: " + maxConcurrent);
    }
    this.lambda = lambda;
    this.functionName = functionName;
    AtomicInteger n = new AtomicInteger();
    this.maxConcurrent = maxConcurrent;
    this.pool = Executors.newFixedThreadPool(maxConcurrent, r -> {
      Thread t = new Thread(r, "squall-invoke-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Sends each attempt to the function of the tier its spec names ({@link TaskSpec#getFunctionMemoryMb()});
   * a spec naming none goes to the smallest tier.
   *
   * @return this
   */
  public LambdaTaskInvoker withTiers(TaskTiers tiers) {
    this.tiers = tiers;
    return this;
  }

  @Override
  public TaskTiers tiers() {
    return tiers;
  }

  /** The function an attempt is invoked on: its tier's, or the only one. */
  String functionFor(TaskSpec spec) {
    return tiers == null ? functionName : tiers.byMemory(spec.getFunctionMemoryMb()).function();
  }

  @Override
  public CompletableFuture<TaskResult> invoke(TaskSpec spec, StartGate gate) {
    return CompletableFuture.supplyAsync(() -> gate.admit(spec) ? invokeNow(spec) : null, pool);
  }

  private TaskResult invokeNow(TaskSpec spec) {
    try {
      SdkBytes request = SdkBytes.fromByteArray(payloads != null ? payloads.request(spec) : TaskPayloads.encodeSpec(spec));
      String function = functionFor(spec);
      InvokeResponse response = throttling.invoke(() -> lambda.invoke(b -> b.functionName(function)
          .invocationType(InvocationType.REQUEST_RESPONSE).payload(request)));
      byte[] payload = response.payload() == null ? new byte[0] : response.payload().asByteArray();
      if (response.functionError() != null) {
        LOG.warn("job {} task {}.{} attempt {}: the task function failed ({}): {}", spec.getJobId(), spec.getStageId(),
            spec.getPartition(), spec.getAttempt(), response.functionError(), FunctionErrors.summary(payload));
        return failed(spec, ErrorCode.EXTERNAL, "task function failed: " + FunctionErrors.forUsers(payload));
      }
      return payloads != null ? payloads.answer(payload) : TaskPayloads.decodeResult(payload);
    } catch (TooManyRequestsException e) {
      return failed(spec, ErrorCode.EXTERNAL, "task function throttled: " + e.awsErrorDetails().errorMessage());
    } catch (RuntimeException e) {
      return failed(spec, ErrorCode.EXTERNAL, "task invocation failed: " + e.getMessage());
    }
  }

  /** How throttled Invokes are sent again (and counted). */
  ThrottleRetry throttling() {
    return throttling;
  }

  static TaskResult failed(TaskSpec spec, ErrorCode code, String message) {
    return TaskResult.newBuilder()
        .setJobId(spec.getJobId()).setStageId(spec.getStageId())
        .setPartition(spec.getPartition()).setAttempt(spec.getAttempt())
        .setError(TaskError.newBuilder().setCode(code).setMessage(message))
        .build();
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }

  @Override
  public int maxConcurrent() {
    return maxConcurrent;
  }
}

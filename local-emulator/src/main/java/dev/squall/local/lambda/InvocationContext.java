package dev.squall.local.lambda;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * What a handler knows about its invocation: the counterpart of the AWS Lambda runtime's
 * {@code Context} (function name, request id, memory limit, remaining time).
 *
 * <p>Cancellation: when the function's timeout passes, the emulator marks the context cancelled and
 * interrupts the worker thread. Handlers doing long CPU work without blocking calls should check
 * {@link #isCancelled()} or call {@link #throwIfCancelled()} between batches.
 */
public final class InvocationContext {
  private final String functionName;
  private final String invokedFunctionArn;
  private final String awsRequestId;
  private final int memoryLimitMb;
  private final Instant deadline;
  private final long deadlineNanos;
  private volatile boolean cancelled;

  /**
   * @param functionName the function's name (no qualifier)
   * @param invokedFunctionArn the ARN the caller invoked, with qualifier if one was given
   * @param awsRequestId the request id, also returned to the caller as {@code x-amzn-RequestId}
   * @param memoryLimitMb the configured memory in MB
   * @param timeout how long the invocation may run, counted from now
   */
  public InvocationContext(
      String functionName, String invokedFunctionArn, String awsRequestId, int memoryLimitMb, Duration timeout) {
    this.functionName = Objects.requireNonNull(functionName, "functionName");
    this.invokedFunctionArn = Objects.requireNonNull(invokedFunctionArn, "invokedFunctionArn");
    this.awsRequestId = Objects.requireNonNull(awsRequestId, "awsRequestId");
    this.memoryLimitMb = memoryLimitMb;
    this.deadline = Instant.now().plus(timeout);
    this.deadlineNanos = System.nanoTime() + timeout.toNanos();
  }

  /** The function's name, without qualifier. */
  public String functionName() {
    return functionName;
  }

  /** The ARN used to invoke the function, e.g. {@code arn:aws:lambda:us-east-1:000000000000:function:f}. */
  public String invokedFunctionArn() {
    return invokedFunctionArn;
  }

  /** The invocation's request id (a UUID). */
  public String awsRequestId() {
    return awsRequestId;
  }

  /** The function's configured memory in MB. */
  public int memoryLimitMb() {
    return memoryLimitMb;
  }

  /** The wall-clock instant at which the invocation times out. */
  public Instant deadline() {
    return deadline;
  }

  /** Milliseconds left before the timeout, 0 once it has passed. */
  public long remainingTimeMillis() {
    return Math.max(0, Duration.ofNanos(deadlineNanos - System.nanoTime()).toMillis());
  }

  /** True once the invocation timed out or the worker thread was interrupted. */
  public boolean isCancelled() {
    return cancelled || Thread.currentThread().isInterrupted() || System.nanoTime() - deadlineNanos >= 0;
  }

  /**
   * Stops the handler if the invocation was cancelled.
   *
   * @throws InterruptedException naming the request id, if {@link #isCancelled()}
   */
  public void throwIfCancelled() throws InterruptedException {
    if (isCancelled()) {
      throw new InterruptedException("Invocation " + awsRequestId + " of " + functionName + " was cancelled");
    }
  }

  void cancel() {
    cancelled = true;
  }
}

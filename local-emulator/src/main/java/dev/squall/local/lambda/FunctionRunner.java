package dev.squall.local.lambda;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one invocation of a handler on a worker thread and enforces its timeout: at the deadline the
 * invocation is cancelled, the worker interrupted and the caller answered with a timeout error.
 *
 * <p>The concurrency permit is released when the handler's thread actually finishes, not at the
 * timeout: a handler that ignores interruption still occupies a slot, as it still uses a thread.
 */
final class FunctionRunner implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FunctionRunner.class);
  /** The Invoke API's response payload limit (synchronous invocations). */
  static final int MAX_RESPONSE_BYTES = 6_291_456;

  private final ExecutorService workers = Executors.newCachedThreadPool(new WorkerThreads());

  /**
   * Runs the handler and waits for it, at most the function's timeout.
   *
   * @param permit the invocation's concurrency slot, released when the handler returns
   */
  InvocationResult run(FunctionDefinition function, String invokedArn, byte[] payload, String requestId,
      ConcurrencyLimiter.Permit permit) {
    InvocationContext context =
        new InvocationContext(function.name(), invokedArn, requestId, function.memoryMb(), function.timeout());
    AtomicBoolean started = new AtomicBoolean();
    Future<byte[]> future;
    try {
      future = workers.submit(() -> {
        if (!started.compareAndSet(false, true)) {
          return null; // cancelled before it began
        }
        try {
          if (!permit.startDelay().isZero()) {
            Thread.sleep(permit.startDelay().toMillis()); // modeled cold start and invocation latency
          }
          return function.handler().handle(payload, context);
        } finally {
          permit.close();
        }
      });
    } catch (RuntimeException e) {
      permit.close();
      throw InvokeApiException.service("Could not start " + function.name() + ": " + e.getMessage());
    }
    try {
      byte[] response = future.get(function.timeout().toNanos(), TimeUnit.NANOSECONDS);
      byte[] body = response != null ? response : "null".getBytes(java.nio.charset.StandardCharsets.UTF_8);
      if (body.length > MAX_RESPONSE_BYTES) {
        return InvocationResult.unhandled(FunctionErrorPayload.forResponseTooLarge(body.length, MAX_RESPONSE_BYTES));
      }
      return InvocationResult.success(body);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      LOG.info("Function {} request {} failed: {}", function.name(), requestId, cause.toString());
      return InvocationResult.unhandled(FunctionErrorPayload.forException(cause));
    } catch (TimeoutException e) {
      stop(future, context, started, permit);
      LOG.info("Function {} request {} timed out after {}", function.name(), requestId, function.timeout());
      return InvocationResult.unhandled(FunctionErrorPayload.forTimeout(requestId, function.timeout()));
    } catch (InterruptedException e) {
      stop(future, context, started, permit);
      Thread.currentThread().interrupt();
      throw InvokeApiException.service("Emulator interrupted while " + function.name() + " was running");
    }
  }

  private static void stop(Future<?> future, InvocationContext context, AtomicBoolean started,
      ConcurrencyLimiter.Permit permit) {
    context.cancel();
    if (started.compareAndSet(false, true)) {
      permit.close(); // never ran, so never will release it
    }
    future.cancel(true);
  }

  @Override
  public void close() {
    workers.shutdownNow();
  }

  /** Waits up to the given time for running handlers to finish after {@link #close()}. */
  boolean awaitTermination(Duration timeout) throws InterruptedException {
    return workers.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  private static final class WorkerThreads implements ThreadFactory {
    private final AtomicInteger count = new AtomicInteger();

    @Override
    public Thread newThread(Runnable r) {
      Thread t = new Thread(r, "lambda-worker-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    }
  }
}

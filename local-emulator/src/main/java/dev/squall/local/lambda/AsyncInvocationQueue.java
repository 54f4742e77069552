package dev.squall.local.lambda;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@code Event} (asynchronous) invocations the way AWS Lambda's internal queue does: the caller
 * has its 202 already; a throttled event waits and is tried again (never dropped for throttling);
 * a failed event is retried twice, then logged as dropped.
 *
 * <p>AWS waits about 1 and 2 minutes between attempts after a function error; here the delays are
 * 1 and 2 seconds so that a local run does not stall. Throttled events are retried after 50 ms,
 * doubling up to 1 s. Events still queued at {@link #close()} are dropped with a warning.
 */
final class AsyncInvocationQueue implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AsyncInvocationQueue.class);
  /** AWS's limit on an asynchronous invocation's payload (raised from 256 KB to 1 MB in 2025). */
  static final int MAX_EVENT_PAYLOAD_BYTES = 1_048_576;
  private static final long[] ERROR_RETRY_DELAYS_MS = {1_000, 2_000};
  private static final long MAX_THROTTLE_DELAY_MS = 1_000;

  private final FunctionRegistry registry;
  private final ConcurrencyLimiter limiter;
  private final FunctionRunner runner;
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "lambda-event-queue");
    t.setDaemon(true);
    return t;
  });
  private final ExecutorService dispatchers = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "lambda-event-dispatch");
    t.setDaemon(true);
    return t;
  });
  private final Object idle = new Object();
  private int pending;

  AsyncInvocationQueue(FunctionRegistry registry, ConcurrencyLimiter limiter, FunctionRunner runner) {
    this.registry = registry;
    this.limiter = limiter;
    this.runner = runner;
  }

  /** Queues one event; it runs as soon as the function has a free concurrency slot. */
  void submit(FunctionName name, byte[] payload, String requestId) {
    synchronized (idle) {
      pending++;
    }
    schedule(new Event(name, payload, requestId, 0, 0), 0);
  }

  /**
   * Waits until every queued event has finished (succeeded, or failed its last attempt).
   *
   * @return false if events were still pending at the timeout
   */
  boolean awaitIdle(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (idle) {
      while (pending > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(idle, left);
      }
      return true;
    }
  }

  private void schedule(Event event, long delayMs) {
    try {
      scheduler.schedule(() -> attempt(event), delayMs, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      LOG.warn("Event {} for {} dropped: emulator closed", event.requestId, event.name.name());
      finished();
    }
  }

  private void attempt(Event event) {
    FunctionDefinition function = registry.find(event.name.name()).orElse(null);
    if (function == null) {
      LOG.error("Event {} dropped: function {} no longer exists", event.requestId, event.name.name());
      finished();
      return;
    }
    ConcurrencyLimiter.Permit permit;
    try {
      permit = limiter.acquire(function);
    } catch (InvokeApiException throttled) {
      long delay = Math.min(MAX_THROTTLE_DELAY_MS, 50L << Math.min(event.throttles, 5));
      LOG.debug("Event {} for {} throttled, retrying in {} ms", event.requestId, function.name(), delay);
      schedule(event.throttled(), delay);
      return;
    }
    try {
      dispatchers.execute(() -> dispatch(function, event, permit));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      permit.close();
      LOG.warn("Event {} for {} dropped: emulator closed", event.requestId, function.name());
      finished();
    }
  }

  private void dispatch(FunctionDefinition function, Event event, ConcurrencyLimiter.Permit permit) {
    InvocationResult result;
    try {
      result = runner.run(function, event.name.arn(), event.payload, event.requestId, permit);
    } catch (InvokeApiException e) {
      LOG.error("Event {} for {} dropped: {}", event.requestId, function.name(), e.getMessage());
      finished();
      return;
    }
    if (!result.failed()) {
      finished();
      return;
    }
    String error = FunctionErrorPayload.summary(result.payload());
    if (event.failures < ERROR_RETRY_DELAYS_MS.length) {
      long delay = ERROR_RETRY_DELAYS_MS[event.failures];
      LOG.warn("Event {} for {} failed (attempt {}), retrying in {} ms: {}",
          event.requestId, function.name(), event.failures + 1, delay, error);
      schedule(event.failed(), delay);
    } else {
      LOG.error("Event {} for {} failed {} times, dropped: {}",
          event.requestId, function.name(), event.failures + 1, error);
      finished();
    }
  }

  private void finished() {
    synchronized (idle) {
      pending--;
      idle.notifyAll();
    }
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
    dispatchers.shutdownNow();
  }

  private record Event(FunctionName name, byte[] payload, String requestId, int failures, int throttles) {
    Event throttled() {
      return new Event(name, payload, requestId, failures, throttles + 1);
    }

    Event failed() {
      return new Event(name, payload, requestId, failures + 1, 0);
    }
  }
}

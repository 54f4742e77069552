package dev.squall.local.lambda;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Counts concurrent invocations the way AWS Lambda throttles them: a function with reserved
 * concurrency may run at most that many invocations at once; functions without a reservation share
 * the account limit. Acquisition never waits: a caller over the limit is throttled (HTTP 429).
 *
 * <p>Simplification: AWS also subtracts all reservations from the shared pool; here the shared pool
 * is the whole account limit.
 */
final class ConcurrencyLimiter {
  private final Semaphore account;
  private final Map<String, Semaphore> reserved = new ConcurrentHashMap<>();
  private final ExecutionEnvironments environments;

  /** @param accountLimit concurrent invocations shared by functions without a reservation */
  ConcurrencyLimiter(int accountLimit) {
    this(accountLimit, ScaleModel.OFF);
  }

  /**
   * @param accountLimit concurrent invocations shared by functions without a reservation
   * @param model cold starts, invocation latency and scaling rate of execution environments
   */
  ConcurrencyLimiter(int accountLimit, ScaleModel model) {
    this.environments = new ExecutionEnvironments(model);
    if (accountLimit < 1) {
      throw new IllegalArgumentException("Account concurrency limit must be at least 1: " + accountLimit);
    }
    this.account = new Semaphore(accountLimit);
  }

  /** Sets up the counters for a (re)registered function. */
  void configure(FunctionDefinition function) {
    if (function.reservedConcurrency() == FunctionDefinition.UNRESERVED) {
      reserved.remove(function.name());
    } else {
      reserved.put(function.name(), new Semaphore(function.reservedConcurrency()));
    }
  }

  /**
   * Takes a slot for one invocation.
   *
   * @throws InvokeApiException 429 {@code TooManyRequestsException} if the function is at its limit
   */
  Permit acquire(FunctionDefinition function) {
    Semaphore semaphore = function.reservedConcurrency() == FunctionDefinition.UNRESERVED
        ? account : reserved.computeIfAbsent(function.name(), n -> new Semaphore(function.reservedConcurrency()));
    if (!semaphore.tryAcquire()) {
      throw InvokeApiException.tooManyRequests(semaphore == account
          ? "ConcurrentInvocationLimitExceeded" : "ReservedFunctionConcurrentInvocationLimitExceeded");
    }
    Duration startDelay;
    try {
      startDelay = environments.take(function.name());
    } catch (InvokeApiException e) {
      semaphore.release();
      throw e;
    }
    return new Permit(semaphore, environments, function.name(), startDelay);
  }

  /** Environments {@code function} has created so far under the scale model's scaling limit. */
  int environmentsCreated(String function) {
    return environments.created(function);
  }

  /**
   * One invocation's slot and execution environment; closing it (any number of times) frees both
   * once.
   */
  static final class Permit implements AutoCloseable {
    private final Semaphore semaphore;
    private final ExecutionEnvironments environments;
    private final String function;
    private final Duration startDelay;
    private final AtomicBoolean released = new AtomicBoolean();

    private Permit(Semaphore semaphore, ExecutionEnvironments environments, String function, Duration startDelay) {
      this.semaphore = semaphore;
      this.environments = environments;
      this.function = function;
      this.startDelay = startDelay;
    }

    /** How long the invocation waits before its handler runs (invocation latency, cold start). */
    Duration startDelay() {
      return startDelay;
    }

    @Override
    public void close() {
      if (released.compareAndSet(false, true)) {
        environments.release(function);
        semaphore.release();
      }
    }
  }
}

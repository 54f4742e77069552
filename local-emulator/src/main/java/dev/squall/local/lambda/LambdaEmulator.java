package dev.squall.local.lambda;

import dev.squall.local.http.LoopbackHttpServer;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * The AWS Lambda Invoke API on 127.0.0.1, running functions in this JVM on worker threads.
 *
 * <p>The AWS SDK v2 {@code LambdaClient} works against it unchanged with
 * {@code endpointOverride(emulator.endpoint())} and any credentials (requests are not
 * authenticated: the server only listens on the loopback interface). Behaviour follows the Invoke
 * API reference: see {@link InvokeApiHandler} for status codes, {@link FunctionRunner} for timeouts,
 * {@link ConcurrencyLimiter} for throttling and {@link AsyncInvocationQueue} for {@code Event}
 * invocations.
 *
 * <p>As with AWS, a caller of a long-running function must give its HTTP client a socket/read
 * timeout above the function's timeout (the SDK's default is 30 s). Not emulated: versions and
 * aliases other than {@code $LATEST}, {@code X-Amz-Log-Type: Tail} log results, client context,
 * memory limits (reported to the handler, not enforced), request signatures.
 *
 * <pre>{@code
 * try (LambdaEmulator lambda = LambdaEmulator.start(0, List.of(FunctionDefinition.of("echo", (p, c) -> p)))) {
 *   LambdaClient client = LambdaClient.builder().endpointOverride(lambda.endpoint())...build();
 * }
 * }</pre>
 */
public final class LambdaEmulator implements AutoCloseable {
  /** AWS's default account concurrency limit. */
  public static final int DEFAULT_ACCOUNT_CONCURRENCY = 1000;

  private final LoopbackHttpServer server;
  private final FunctionRegistry registry;
  private final FunctionRunner runner;
  private final AsyncInvocationQueue events;
  private final URI endpoint;
  private final InvokeCounts counts;
  private final ConcurrencyLimiter limiter;

  private LambdaEmulator(LoopbackHttpServer server, FunctionRegistry registry, FunctionRunner runner,
      AsyncInvocationQueue events, InvokeCounts counts, ConcurrencyLimiter limiter) {
    this.counts = counts;
    this.limiter = limiter;
    this.server = server;
    this.registry = registry;
    this.runner = runner;
    this.events = events;
    this.endpoint = server.endpoint();
  }

  /**
   * Starts the emulator with the default account concurrency limit (1000).
   *
   * @param port TCP port on 127.0.0.1, or 0 for any free port
   * @param functions functions to register at start
   * @throws IOException if the port cannot be bound
   */
  public static LambdaEmulator start(int port, List<FunctionDefinition> functions) throws IOException {
    return start(port, functions, DEFAULT_ACCOUNT_CONCURRENCY);
  }

  /**
   * Starts the emulator.
   *
   * @param port TCP port on 127.0.0.1, or 0 for any free port
   * @param functions functions to register at start
   * @param accountConcurrency concurrent invocations shared by functions without reserved concurrency
   * @throws IOException if the port cannot be bound
   */
  public static LambdaEmulator start(int port, List<FunctionDefinition> functions, int accountConcurrency)
      throws IOException {
    return start(port, functions, accountConcurrency, ScaleModel.OFF);
  }

  /**
   * Starts the emulator with a model of Lambda at scale: cold starts, invocation latency and the
   * scaling rate of execution environments ({@link ScaleModel}; beyond the account concurrency or
   * the scaling rate Invoke answers 429 {@code TooManyRequestsException}).
   *
   * @param accountConcurrency concurrent invocations shared by functions without reserved concurrency
   */
  public static LambdaEmulator start(int port, List<FunctionDefinition> functions, int accountConcurrency,
      ScaleModel model) throws IOException {
    ConcurrencyLimiter limiter = new ConcurrencyLimiter(accountConcurrency, model);
    InvokeCounts counts = new InvokeCounts();
    FunctionRegistry registry = new FunctionRegistry(limiter);
    functions.forEach(registry::register);
    FunctionRunner runner = new FunctionRunner();
    AsyncInvocationQueue events = new AsyncInvocationQueue(registry, limiter, runner);
    LoopbackHttpServer server;
    try {
      server = LoopbackHttpServer.start(port, "lambda-invoke-http", new InvokeApiHandler(registry, limiter, runner, events, counts));
    } catch (IOException e) {
      events.close();
      runner.close();
      throw e;
    }
    return new LambdaEmulator(server, registry, runner, events, counts, limiter);
  }

  /** The endpoint for {@code LambdaClient.builder().endpointOverride(...)}: {@code http://127.0.0.1:PORT}. */
  public URI endpoint() {
    return endpoint;
  }

  /** Invoke requests so far per caller (the access key id that signed them) and function. */
  public InvokeCounts invokeCounts() {
    return counts;
  }

  /** Execution environments {@code function} has created so far (each new one was a cold start). */
  public int environmentsCreated(String function) {
    return limiter.environmentsCreated(function);
  }

  /** The bound TCP port. */
  public int port() {
    return server.port();
  }

  /** Adds a function, or replaces the one with the same name (running invocations finish as they were). */
  public void register(FunctionDefinition function) {
    registry.register(function);
  }

  /**
   * Waits until all accepted {@code Event} invocations have finished, retries included.
   *
   * @return false if some were still pending at the timeout
   */
  public boolean awaitEventsDone(Duration timeout) throws InterruptedException {
    return events.awaitIdle(timeout);
  }

  /** Stops accepting requests, drops queued events and interrupts running handlers. */
  @Override
  public void close() {
    server.close();
    events.close();
    runner.close();
  }
}

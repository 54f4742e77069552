package dev.squall.local.gateway;

import dev.squall.local.http.LoopbackHttpServer;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * A local stand-in for an API Gateway HTTP API with one {@code $default} route and a Lambda proxy
 * integration (payload format 2.0): every request on 127.0.0.1 becomes an event (see
 * {@link HttpApiEventBuilder}), the function is invoked through the Lambda Invoke API at
 * {@code lambdaEndpoint} with the AWS SDK, and its response becomes the HTTP response (see
 * {@link HttpApiResponseMapper}).
 *
 * <p>Answers of the gateway itself: 400 unreadable body or text body not in its charset, 413 body
 * over 10 MB (or event over the Invoke limit), 429 function throttled, 502 function error, timeout
 * or malformed response, 503 integration timeout (default 30 s, API Gateway's maximum).
 */
public final class Gateway implements AutoCloseable {
  /** API Gateway HTTP APIs' maximum integration timeout. */
  /**
   * The header a local request names its caller with; the function sees it as the IAM authorizer's
   * {@code requestContext.authorizer.iam.userArn}. Local only: on AWS the authorizer alone says who
   * called.
   */
  public static final String IDENTITY_HEADER = "x-squall-identity";
  public static final Duration DEFAULT_INTEGRATION_TIMEOUT = Duration.ofSeconds(30);

  private final LoopbackHttpServer server;
  private final FunctionIntegration integration;

  private Gateway(LoopbackHttpServer server, FunctionIntegration integration) {
    this.server = server;
    this.integration = integration;
  }

  /**
   * Starts the gateway with a 30 s integration timeout.
   *
   * @param port TCP port on 127.0.0.1, or 0 for any free port
   * @param lambdaEndpoint the Invoke API endpoint, e.g. {@code LambdaEmulator.endpoint()}
   * @param functionName the function every request goes to (name or ARN)
   * @throws IOException if the port cannot be bound
   */
  public static Gateway start(int port, URI lambdaEndpoint, String functionName) throws IOException {
    return start(port, lambdaEndpoint, functionName, DEFAULT_INTEGRATION_TIMEOUT);
  }

  /**
   * Starts the gateway.
   *
   * @param integrationTimeout how long one Invoke call may take before the client gets 503
   * @see #start(int, URI, String)
   */
  public static Gateway start(int port, URI lambdaEndpoint, String functionName, Duration integrationTimeout)
      throws IOException {
    return start(port, lambdaEndpoint, functionName, integrationTimeout, null);
  }

  /**
   * As {@link #start(int, URI, String, Duration)}, answering {@code /_local/...} requests with
   * {@code localRoute} first (null: none).
   */
  public static Gateway start(int port, URI lambdaEndpoint, String functionName, Duration integrationTimeout,
      LocalRoute localRoute) throws IOException {
    Objects.requireNonNull(lambdaEndpoint, "lambdaEndpoint");
    Objects.requireNonNull(functionName, "functionName");
    FunctionIntegration integration = new FunctionIntegration(lambdaEndpoint, functionName, integrationTimeout);
    try {
      return new Gateway(LoopbackHttpServer.start(port, "gateway-http", new GatewayHandler(integration, localRoute)), integration);
    } catch (IOException e) {
      integration.close();
      throw e;
    }
  }

  /** The base URI clients send requests to: {@code http://127.0.0.1:PORT}. */
  public URI endpoint() {
    return server.endpoint();
  }

  /** The bound TCP port. */
  public int port() {
    return server.port();
  }

  /** Stops serving; requests in flight are cut off. */
  @Override
  public void close() {
    server.close();
    integration.close();
  }
}

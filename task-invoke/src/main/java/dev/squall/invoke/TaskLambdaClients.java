package dev.squall.invoke;

import java.time.Duration;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.lambda.LambdaClientBuilder;

/**
 * How the coordinator's Lambda client for task invocations must be set up. A task is invoked
 * synchronously ({@code RequestResponse}) and answers only when it ends, so:
 *
 * <ul>
 *   <li>the socket read timeout and the API call timeouts lie above the task function's own
 *       timeout (the SDK's default 30 s read timeout would fail every task longer than that);
 *   <li>the SDK does not retry: its retry would send the identical TaskSpec again, so that two
 *       invocations share one attempt number and write the same shuffle keys. The scheduler
 *       retries instead, as a new attempt with its own number.
 * </ul>
 */
public final class TaskLambdaClients {
  /** Added to the task function's timeout: the function's own time-out answer must still arrive. */
  public static final Duration MARGIN = Duration.ofSeconds(30);
  /**
   * Connecting to the Invoke endpoint: above the SDK's 2 s, since a thousand-task stage opens that
   * many connections at once.
   */
  public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

  private TaskLambdaClients() {}

  /**
   * Applies the HTTP client, timeouts and retry setting to {@code builder}, keeping any override
   * configuration given before; call it last.
   *
   * @param taskFunctionTimeout the task function's configured timeout (Lambda allows at most 15 min)
   * @return the builder
   */
  public static LambdaClientBuilder configure(LambdaClientBuilder builder, Duration taskFunctionTimeout) {
    Duration wait = readTimeout(taskFunctionTimeout);
    // Keeps what the builder was given already (interceptors, ...): a Consumer would replace it.
    ClientOverrideConfiguration given = builder.overrideConfiguration();
    return builder
        .httpClientBuilder(UrlConnectionHttpClient.builder().socketTimeout(wait).connectionTimeout(CONNECT_TIMEOUT))
        .overrideConfiguration(given.toBuilder().retryStrategy(AwsRetryStrategy.doNotRetry())
            .apiCallAttemptTimeout(wait)
            .apiCallTimeout(wait)
            .build());
  }

  /** The read timeout for a task function with this timeout. */
  public static Duration readTimeout(Duration taskFunctionTimeout) {
    if (taskFunctionTimeout.isNegative() || taskFunctionTimeout.isZero()) {
      throw new IllegalArgumentException("Invalid task function timeout: " + taskFunctionTimeout);
    }
    return taskFunctionTimeout.plus(MARGIN);
  }
}

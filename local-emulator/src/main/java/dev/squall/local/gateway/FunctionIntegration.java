package dev.squall.local.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.lambda.model.InvokeResponse;
import software.amazon.awssdk.services.lambda.model.RequestTooLargeException;
import software.amazon.awssdk.services.lambda.model.TooManyRequestsException;

/**
 * The gateway's Lambda integration: invokes the target function through the Invoke API with the
 * AWS SDK's {@link LambdaClient}, as API Gateway does, and turns Invoke failures into the answers
 * API Gateway gives: function error 502, throttled 429, payload too large 413, integration timeout
 * 503, anything else 502.
 */
final class FunctionIntegration implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FunctionIntegration.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final LambdaClient client;
  private final String functionName;

  FunctionIntegration(URI lambdaEndpoint, String functionName, Duration integrationTimeout) {
    this.functionName = functionName;
    // The local Invoke API does not check signatures; these fixed keys only satisfy the signer.
    this.client = LambdaClient.builder()
        .endpointOverride(lambdaEndpoint)
        .region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("squall-local", "squall-local")))
        .httpClientBuilder(UrlConnectionHttpClient.builder().socketTimeout(integrationTimeout))
        .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()).apiCallTimeout(integrationTimeout))
        .build();
  }

  /**
   * Invokes the function synchronously with the event and maps its answer.
   *
   * @param requestId for log lines
   */
  HttpApiResponse invoke(byte[] event, String requestId) {
    InvokeResponse response;
    try {
      response = client.invoke(b -> b.functionName(functionName).payload(SdkBytes.fromByteArrayUnsafe(event)));
    } catch (TooManyRequestsException e) {
      LOG.info("Request {}: function {} throttled", requestId, functionName);
      return HttpApiResponse.message(429, "Too Many Requests");
    } catch (RequestTooLargeException e) {
      LOG.info("Request {}: event of {} bytes too large for {}", requestId, event.length, functionName);
      return HttpApiResponse.message(413, "Request Entity Too Large");
    } catch (ApiCallTimeoutException e) {
      LOG.warn("Request {}: integration timed out calling {}", requestId, functionName);
      return HttpApiResponse.message(503, "Service Unavailable");
    } catch (SdkException e) {
      LOG.warn("Request {}: invoking {} failed: {}", requestId, functionName, e.getMessage());
      return HttpApiResponse.message(502, "Internal Server Error");
    }
    if (response.functionError() != null) {
      LOG.warn("Request {}: function {} failed ({}): {}", requestId, functionName, response.functionError(),
          response.payload() == null ? "" : errorSummary(response.payload().asByteArray()));
      return HttpApiResponse.message(502, "Internal Server Error");
    }
    try {
      return HttpApiResponseMapper.map(response.payload() == null ? new byte[0] : response.payload().asByteArray());
    } catch (GatewayException e) {
      LOG.warn("Request {}: malformed response from {}: {}", requestId, functionName, e.getMessage());
      return HttpApiResponse.message(502, "Internal Server Error");
    }
  }

  private static String errorSummary(byte[] payload) {
    try {
      JsonNode error = JSON.readTree(payload);
      return error.path("errorType").asText("?") + ": " + error.path("errorMessage").asText("");
    } catch (java.io.IOException | RuntimeException e) {
      return payload.length + " bytes, not JSON";
    }
  }

  @Override
  public void close() {
    client.close();
  }
}

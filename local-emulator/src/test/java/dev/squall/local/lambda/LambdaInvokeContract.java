package dev.squall.local.lambda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.lambda.model.InvalidRequestContentException;
import software.amazon.awssdk.services.lambda.model.InvocationType;
import software.amazon.awssdk.services.lambda.model.InvokeResponse;
import software.amazon.awssdk.services.lambda.model.LambdaException;
import software.amazon.awssdk.services.lambda.model.ResourceNotFoundException;
import software.amazon.awssdk.services.lambda.model.TooManyRequestsException;

/**
 * The Invoke API behaviour Squall relies on, driven by the stock AWS SDK v2 LambdaClient against an
 * endpoint a subclass provides with these functions deployed:
 * <ul>
 *   <li>{@value #ECHO}: returns its event unchanged;
 *   <li>{@value #FAIL}: throws an error with message {@value #FAIL_MESSAGE};
 *   <li>{@value #SLOW}: 1 s timeout, sleeps 5 s;
 *   <li>{@value #THROTTLED}: reserved concurrency 0, so every invocation is throttled.
 * </ul>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class LambdaInvokeContract {
  static final String ECHO = "contract-echo";
  static final String FAIL = "contract-fail";
  static final String SLOW = "contract-slow";
  static final String THROTTLED = "contract-throttled";
  static final String FAIL_MESSAGE = "partition 7 has no data file";
  /** The Invoke API's synchronous payload limit (AWS Lambda quotas). */
  static final int MAX_PAYLOAD_BYTES = 6_291_456;
  private static final ObjectMapper JSON = new ObjectMapper();

  private LambdaClient client;

  /** Deploys the contract's functions and returns a client without retries for their endpoint. */
  protected abstract LambdaClient deployFunctions() throws Exception;

  // Per test rather than @BeforeAll so that a skipped endpoint shows each test as skipped, with the reason.
  @BeforeEach
  void connect() throws Exception {
    if (client == null) {
      client = deployFunctions();
    }
  }

  @AfterAll
  void closeClient() {
    if (client != null) {
      client.close();
    }
  }

  private InvokeResponse invoke(String function, byte[] payload) {
    return client.invoke(b -> b.functionName(function).payload(SdkBytes.fromByteArray(payload)));
  }

  private InvokeResponse invoke(String function, String payload) {
    return client.invoke(b -> b.functionName(function).payload(SdkBytes.fromUtf8String(payload)));
  }

  private void assertStillServing() throws Exception {
    InvokeResponse response = invoke(ECHO, "{\"after\":\"bad input\"}");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(response.payload().asByteArray())).isEqualTo(JSON.readTree("{\"after\":\"bad input\"}"));
  }

  @Test
  void requestResponseAnswers200WithTheFunctionsPayload() throws Exception {
    InvokeResponse response = invoke(ECHO, "{\"stage\":3,\"partitions\":[0,1,2]}");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.executedVersion()).isEqualTo("$LATEST");
    assertThat(response.functionError()).isNull();
    assertThat(JSON.readTree(response.payload().asByteArray()))
        .isEqualTo(JSON.readTree("{\"stage\":3,\"partitions\":[0,1,2]}"));
  }

  @Test
  void eventInvocationIsAcceptedWith202() {
    InvokeResponse response = client.invoke(b -> b.functionName(ECHO).invocationType(InvocationType.EVENT)
        .payload(SdkBytes.fromUtf8String("{\"async\":true}")));

    assertThat(response.statusCode()).isEqualTo(202);
    assertThat(response.payload().asByteArray()).isEmpty();
  }

  @Test
  void dryRunAnswers204() {
    InvokeResponse response = client.invoke(b -> b.functionName(ECHO).invocationType(InvocationType.DRY_RUN)
        .payload(SdkBytes.fromUtf8String("{}")));

    assertThat(response.statusCode()).isEqualTo(204);
  }

  @Test
  void handlerErrorAnswers200WithUnhandledFunctionErrorAndTheMessage() throws Exception {
    InvokeResponse response = invoke(FAIL, "{}");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.functionError()).isEqualTo("Unhandled");
    JsonNode error = JSON.readTree(response.payload().asByteArray());
    assertThat(error.path("errorMessage").asText()).isEqualTo(FAIL_MESSAGE);
    assertThat(error.path("errorType").asText()).isNotEmpty();
    assertStillServing();
  }

  @Test
  void invocationOverTheConcurrencyLimitIsThrottledWith429() throws Exception {
    assertThatThrownBy(() -> invoke(THROTTLED, "{}"))
        .isInstanceOfSatisfying(TooManyRequestsException.class, e -> assertThat(e.statusCode()).isEqualTo(429));
    assertStillServing();
  }

  @Test
  void unknownFunctionIs404ResourceNotFound() throws Exception {
    assertThatThrownBy(() -> invoke("contract-no-such-function", "{}"))
        .isInstanceOfSatisfying(ResourceNotFoundException.class, e -> {
          assertThat(e.statusCode()).isEqualTo(404);
          assertThat(e.getMessage()).contains("contract-no-such-function");
        });
    assertStillServing();
  }

  @Test
  void payloadOverSixMegabytesIs413() throws Exception {
    byte[] payload = new byte[MAX_PAYLOAD_BYTES + 1];
    Arrays.fill(payload, (byte) 'a');
    payload[0] = '"';
    payload[payload.length - 1] = '"';

    assertThatThrownBy(() -> invoke(ECHO, payload))
        .isInstanceOfSatisfying(LambdaException.class, e -> assertThat(e.statusCode()).isEqualTo(413));
    assertStillServing();
  }

  @Test
  void functionPastItsTimeoutIsReportedAsTimedOut() throws Exception {
    InvokeResponse response = invoke(SLOW, "{}");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.functionError()).isEqualTo("Unhandled");
    assertThat(JSON.readTree(response.payload().asByteArray()).path("errorMessage").asText())
        .contains("Task timed out after 1.00 seconds");
    assertStillServing();
  }

  @Test
  void malformedJsonPayloadIs400InvalidRequestContent() throws Exception {
    assertThatThrownBy(() -> invoke(ECHO, "{\"stage\": 3,"))
        .isInstanceOfSatisfying(InvalidRequestContentException.class, e -> {
          assertThat(e.statusCode()).isEqualTo(400);
          assertThat(e.getMessage()).contains("Could not parse request body into json");
        });
    assertStillServing();
  }
}

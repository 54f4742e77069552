package dev.squall.local.lambda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.lambda.model.InvalidParameterValueException;
import software.amazon.awssdk.services.lambda.model.InvalidRequestContentException;
import software.amazon.awssdk.services.lambda.model.InvocationType;
import software.amazon.awssdk.services.lambda.model.InvokeResponse;
import software.amazon.awssdk.services.lambda.model.RequestTooLargeException;
import software.amazon.awssdk.services.lambda.model.ResourceNotFoundException;
import software.amazon.awssdk.services.lambda.model.ThrottleReason;
import software.amazon.awssdk.services.lambda.model.TooManyRequestsException;

/**
 * Behaviour of the in-process Invoke API emulator beyond the shared {@link LambdaInvokeContract}:
 * invocation context, name forms, asynchronous queueing and retries, throttling of a busy function,
 * interruption at the timeout, payload edge cases.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LambdaEmulatorInvokeTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final AtomicInteger dryRunTarget = new AtomicInteger();
  private final AtomicInteger failedEventAttempts = new AtomicInteger();
  private final ConcurrentLinkedQueue<String> eventsSeen = new ConcurrentLinkedQueue<>();
  private volatile CountDownLatch gateStarted = new CountDownLatch(1);
  private volatile CountDownLatch gateRelease = new CountDownLatch(1);
  private final CountDownLatch slowInterrupted = new CountDownLatch(1);

  private LambdaEmulator lambda;
  private LambdaClient client;

  @BeforeAll
  void start() throws Exception {
    lambda = LambdaEmulator.start(0, List.of(
        FunctionDefinition.of("echo", (payload, ctx) -> JSON.writeValueAsBytes(JSON.createObjectNode()
                .put("function", ctx.functionName())
                .put("requestId", ctx.awsRequestId())
                .put("memoryMb", ctx.memoryLimitMb())
                .put("remainingMs", ctx.remainingTimeMillis())
                .put("arn", ctx.invokedFunctionArn())
                .set("event", JSON.readTree(payload))))
            .withMemoryMb(512).withTimeout(Duration.ofSeconds(20)),
        FunctionDefinition.of("size", (payload, ctx) -> Integer.toString(payload.length).getBytes(StandardCharsets.UTF_8))
            .withTimeout(Duration.ofSeconds(20)),
        FunctionDefinition.of("raw", (payload, ctx) -> payload).withPayloadFormat(PayloadFormat.BINARY),
        FunctionDefinition.of("fail", (payload, ctx) -> {
          throw new IllegalStateException("partition 7 has no data file", new java.io.IOException("disk gone"));
        }),
        FunctionDefinition.of("huge-answer", (payload, ctx) -> new byte[FunctionRunner.MAX_RESPONSE_BYTES + 1]),
        FunctionDefinition.of("dry-run-target", (payload, ctx) -> {
          dryRunTarget.incrementAndGet();
          return payload;
        }),
        FunctionDefinition.of("slow", (payload, ctx) -> {
          try {
            Thread.sleep(30_000);
          } catch (InterruptedException e) {
            slowInterrupted.countDown();
            throw e;
          }
          return payload;
        }).withTimeout(Duration.ofMillis(300)),
        FunctionDefinition.of("gated", (payload, ctx) -> {
          eventsSeen.add(new String(payload, StandardCharsets.UTF_8));
          gateStarted.countDown();
          if (!gateRelease.await(20, TimeUnit.SECONDS)) {
            throw new IllegalStateException("gate never released");
          }
          return payload;
        }).withTimeout(Duration.ofSeconds(30)).withReservedConcurrency(1),
        FunctionDefinition.of("flaky-event", (payload, ctx) -> {
          failedEventAttempts.incrementAndGet();
          throw new IllegalStateException("always fails");
        })));
    client = LocalLambdaClients.withoutRetries(lambda.endpoint());
  }

  @AfterAll
  void stop() {
    client.close();
    lambda.close();
  }

  @AfterEach
  void openGate() {
    gateRelease.countDown();
  }

  private InvokeResponse invoke(String function, String payload) {
    return client.invoke(b -> b.functionName(function).payload(SdkBytes.fromUtf8String(payload)));
  }

  private void assertStillServing() throws Exception {
    InvokeResponse response = invoke("echo", "{\"after\":\"bad input\"}");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(response.payload().asByteArray()).path("event").path("after").asText()).isEqualTo("bad input");
  }

  @Test
  void handlerSeesItsInvocationContext() throws Exception {
    InvokeResponse response = invoke("echo", "{\"stage\":3,\"partition\":[1,2]}");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.executedVersion()).isEqualTo("$LATEST");
    assertThat(response.functionError()).isNull();
    JsonNode answer = JSON.readTree(response.payload().asByteArray());
    assertThat(answer.path("function").asText()).isEqualTo("echo");
    assertThat(answer.path("event")).isEqualTo(JSON.readTree("{\"stage\":3,\"partition\":[1,2]}"));
    assertThat(answer.path("memoryMb").asInt()).isEqualTo(512);
    assertThat(answer.path("remainingMs").asLong()).isBetween(1L, 20_000L);
    assertThat(answer.path("requestId").asText()).isEqualTo(response.responseMetadata().requestId());
  }

  @Test
  void functionMayBeNamedByArnPartialArnOrQualifier() throws Exception {
    for (String name : List.of("arn:aws:lambda:us-east-1:000000000000:function:echo",
        "000000000000:function:echo", "echo:$LATEST", "arn:aws:lambda:us-east-1:000000000000:function:echo:$LATEST")) {
      InvokeResponse response = invoke(name, "{}");
      assertThat(response.statusCode()).as(name).isEqualTo(200);
      assertThat(JSON.readTree(response.payload().asByteArray()).path("function").asText()).isEqualTo("echo");
    }
    InvokeResponse viaQuery = client.invoke(b -> b.functionName("echo").qualifier("$LATEST").payload(SdkBytes.fromUtf8String("{}")));
    assertThat(viaQuery.statusCode()).isEqualTo(200);
    assertThatThrownBy(() -> invoke("echo:prod", "{}"))
        .isInstanceOf(ResourceNotFoundException.class)
        .hasMessageContaining("function:echo:prod");
  }

  @Test
  void emptyPayloadReachesJsonFunctionAsEmptyObject() throws Exception {
    InvokeResponse response = client.invoke(b -> b.functionName("echo"));
    assertThat(JSON.readTree(response.payload().asByteArray()).path("event")).isEqualTo(JSON.createObjectNode());
  }

  @Test
  void eventInvocationAnswers202BeforeTheFunctionFinishes() throws Exception {
    gateStarted = new CountDownLatch(1);
    gateRelease = new CountDownLatch(1);
    eventsSeen.clear();

    InvokeResponse response = client.invoke(b -> b.functionName("gated").invocationType(InvocationType.EVENT)
        .payload(SdkBytes.fromUtf8String("\"event-1\"")));

    assertThat(response.statusCode()).isEqualTo(202);
    assertThat(gateStarted.await(10, TimeUnit.SECONDS)).as("event ran").isTrue();
    gateRelease.countDown();
    assertThat(lambda.awaitEventsDone(Duration.ofSeconds(10))).isTrue();
    assertThat(eventsSeen).containsExactly("\"event-1\"");
  }

  @Test
  void throttledEventWaitsForAFreeSlotInsteadOfBeingDropped() throws Exception {
    gateStarted = new CountDownLatch(1);
    gateRelease = new CountDownLatch(1);
    eventsSeen.clear();
    CompletableFuture<InvokeResponse> holder = CompletableFuture.supplyAsync(() -> invoke("gated", "\"sync\""));
    assertThat(gateStarted.await(10, TimeUnit.SECONDS)).isTrue();

    InvokeResponse event = client.invoke(b -> b.functionName("gated").invocationType(InvocationType.EVENT)
        .payload(SdkBytes.fromUtf8String("\"queued\"")));
    assertThat(event.statusCode()).isEqualTo(202);
    Thread.sleep(300);
    assertThat(eventsSeen).as("the only slot is taken, so the event must wait").containsExactly("\"sync\"");

    gateRelease.countDown();
    assertThat(holder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    assertThat(lambda.awaitEventsDone(Duration.ofSeconds(10))).isTrue();
    assertThat(eventsSeen).containsExactly("\"sync\"", "\"queued\"");
  }

  @Test
  void failedEventIsRetriedTwiceThenDropped() throws Exception {
    InvokeResponse response = client.invoke(b -> b.functionName("flaky-event").invocationType(InvocationType.EVENT)
        .payload(SdkBytes.fromUtf8String("{}")));

    assertThat(response.statusCode()).isEqualTo(202);
    assertThat(lambda.awaitEventsDone(Duration.ofSeconds(15))).isTrue();
    assertThat(failedEventAttempts.get()).isEqualTo(3);
  }

  @Test
  void dryRunAnswers204WithoutRunningTheFunction() throws Exception {
    InvokeResponse response = client.invoke(b -> b.functionName("dry-run-target").invocationType(InvocationType.DRY_RUN)
        .payload(SdkBytes.fromUtf8String("{}")));

    assertThat(response.statusCode()).isEqualTo(204);
    assertThat(dryRunTarget.get()).isZero();
    assertThatThrownBy(() -> client.invoke(b -> b.functionName("no-such").invocationType(InvocationType.DRY_RUN)))
        .isInstanceOf(ResourceNotFoundException.class);
  }

  @Test
  void errorPayloadCarriesStackTraceAndCauseLikeTheJavaRuntime() throws Exception {
    InvokeResponse response = invoke("fail", "{}");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.functionError()).isEqualTo("Unhandled");
    JsonNode error = JSON.readTree(response.payload().asByteArray());
    assertThat(error.path("errorMessage").asText()).isEqualTo("partition 7 has no data file");
    assertThat(error.path("errorType").asText()).isEqualTo("java.lang.IllegalStateException");
    assertThat(error.path("stackTrace").isArray()).isTrue();
    assertThat(error.path("stackTrace").get(0).asText()).contains("LambdaEmulatorInvokeTest");
    assertThat(error.path("cause").path("errorMessage").asText()).isEqualTo("disk gone");
    assertStillServing();
  }

  @Test
  void responseAboveSixMegabytesIsAFunctionError() throws Exception {
    InvokeResponse response = invoke("huge-answer", "{}");

    assertThat(response.functionError()).isEqualTo("Unhandled");
    assertThat(JSON.readTree(response.payload().asByteArray()).path("errorType").asText())
        .isEqualTo("Function.ResponseSizeTooLarge");
  }

  @Test
  void invocationOverReservedConcurrencyIsThrottledWith429() throws Exception {
    gateStarted = new CountDownLatch(1);
    gateRelease = new CountDownLatch(1);
    CompletableFuture<InvokeResponse> holder = CompletableFuture.supplyAsync(() -> invoke("gated", "\"first\""));
    assertThat(gateStarted.await(10, TimeUnit.SECONDS)).isTrue();

    assertThatThrownBy(() -> invoke("gated", "\"second\""))
        .isInstanceOfSatisfying(TooManyRequestsException.class, e -> {
          assertThat(e.statusCode()).isEqualTo(429);
          assertThat(e.reason()).isEqualTo(ThrottleReason.RESERVED_FUNCTION_CONCURRENT_INVOCATION_LIMIT_EXCEEDED);
        });

    gateRelease.countDown();
    assertThat(holder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    gateStarted = new CountDownLatch(1);
    assertThat(invoke("gated", "\"third\"").statusCode()).as("slot freed after the first finished").isEqualTo(200);
  }

  @Test
  void payloadOfExactlySixMegabytesIsAcceptedAndOneByteMoreIsNot() throws Exception {
    byte[] atLimit = jsonString(InvokeRequestBody.MAX_REQUEST_BYTES);
    InvokeResponse accepted = client.invoke(b -> b.functionName("size").payload(SdkBytes.fromByteArray(atLimit)));
    assertThat(accepted.payload().asUtf8String()).isEqualTo(Integer.toString(6_291_456));

    byte[] overLimit = jsonString(InvokeRequestBody.MAX_REQUEST_BYTES + 1);
    assertThatThrownBy(() -> client.invoke(b -> b.functionName("size").payload(SdkBytes.fromByteArray(overLimit))))
        .isInstanceOfSatisfying(RequestTooLargeException.class, e -> assertThat(e.statusCode()).isEqualTo(413));
    assertStillServing();
  }

  @Test
  void timedOutHandlerIsInterruptedAndAnsweredAtTheTimeout() throws Exception {
    long start = System.nanoTime();
    InvokeResponse response = invoke("slow", "{}");
    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.functionError()).isEqualTo("Unhandled");
    JsonNode error = JSON.readTree(response.payload().asByteArray());
    assertThat(error.path("errorMessage").asText())
        .contains(response.responseMetadata().requestId())
        .endsWith("Task timed out after 0.30 seconds");
    assertThat(elapsedMs).as("answered at the timeout, not when the handler would have ended").isLessThan(10_000);
    assertThat(slowInterrupted.await(5, TimeUnit.SECONDS)).as("worker thread interrupted").isTrue();
    assertStillServing();
  }

  @Test
  void jsonWithTrailingGarbageOrInvalidUtf8Is400InvalidRequestContent() throws Exception {
    assertThatThrownBy(() -> invoke("echo", "{} trailing"))
        .isInstanceOf(InvalidRequestContentException.class);
    byte[] invalidUtf8 = {'"', (byte) 0xC3, (byte) 0x28, '"'};
    assertThatThrownBy(() -> client.invoke(b -> b.functionName("echo").payload(SdkBytes.fromByteArray(invalidUtf8))))
        .isInstanceOf(InvalidRequestContentException.class);
    assertStillServing();
  }

  @Test
  void binaryFunctionReceivesAnyBytesUnchanged() {
    byte[] all = new byte[256];
    for (int i = 0; i < all.length; i++) {
      all[i] = (byte) i;
    }
    InvokeResponse response = client.invoke(b -> b.functionName("raw").payload(SdkBytes.fromByteArray(all)));
    assertThat(response.payload().asByteArray()).isEqualTo(all);
  }

  @Test
  void unknownInvocationTypeIs400() throws Exception {
    assertThatThrownBy(() -> client.invoke(b -> b.functionName("echo").invocationType("Sometimes")))
        .isInstanceOfSatisfying(InvalidParameterValueException.class,
            e -> assertThat(e.getMessage()).contains("'Sometimes'").contains("invocationType"));
    assertStillServing();
  }

  @Test
  void requestsOutsideTheInvokeApiGetClearErrors() throws Exception {
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    java.net.http.HttpResponse<String> unknownRoute = http.send(
        java.net.http.HttpRequest.newBuilder(lambda.endpoint().resolve("/2015-03-31/functions")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(unknownRoute.statusCode()).isEqualTo(404);
    assertThat(unknownRoute.headers().firstValue("x-amzn-ErrorType")).hasValue("UnknownOperationException");
    assertThat(unknownRoute.body()).contains("GET /2015-03-31/functions");

    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", lambda.port())) {
      socket.getOutputStream().write(("POST /2015-03-31/functions/%ZZ/invocations HTTP/1.1\r\nHost: x\r\n"
          + "Content-Length: 2\r\nConnection: close\r\n\r\n{}").getBytes(StandardCharsets.ISO_8859_1));
      String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
      assertThat(answer).as("refused by the HTTP server before routing").startsWith("HTTP/1.1 400");
    }
    java.net.http.HttpResponse<String> badName = http.send(
        java.net.http.HttpRequest.newBuilder(lambda.endpoint().resolve("/2015-03-31/functions/bad%20name%21/invocations"))
            .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{}")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(badName.statusCode()).isEqualTo(400);
    assertThat(badName.headers().firstValue("x-amzn-ErrorType")).hasValue("InvalidParameterValueException");
    assertThat(badName.body()).contains("'bad name!'");
    assertStillServing();
  }

  @Test
  void concurrentInvocationsWithinTheLimitAllSucceed() throws Exception {
    List<CompletableFuture<InvokeResponse>> calls = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      String body = "{\"task\":" + i + "}";
      calls.add(CompletableFuture.supplyAsync(() -> invoke("echo", body)));
    }
    for (int i = 0; i < calls.size(); i++) {
      JsonNode answer = JSON.readTree(calls.get(i).get(30, TimeUnit.SECONDS).payload().asByteArray());
      assertThat(answer.path("event").path("task").asInt()).isEqualTo(i);
    }
  }

  private static byte[] jsonString(int totalBytes) {
    byte[] bytes = new byte[totalBytes];
    Arrays.fill(bytes, (byte) 'a');
    bytes[0] = '"';
    bytes[totalBytes - 1] = '"';
    return bytes;
  }
}

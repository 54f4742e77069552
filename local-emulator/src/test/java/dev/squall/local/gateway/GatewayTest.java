package dev.squall.local.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.squall.local.lambda.FunctionDefinition;
import dev.squall.local.lambda.LambdaEmulator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** HTTP through the gateway to a function on the Lambda emulator, and back. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GatewayTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private LambdaEmulator lambda;
  private Gateway gateway;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @BeforeAll
  void start() throws Exception {
    lambda = LambdaEmulator.start(0, List.of(
        FunctionDefinition.of("api", GatewayTest::route).withTimeout(Duration.ofSeconds(1)),
        FunctionDefinition.of("one-at-a-time", (p, c) -> "{}".getBytes(StandardCharsets.UTF_8)).withReservedConcurrency(0)));
    gateway = Gateway.start(0, lambda.endpoint(), "api");
  }

  @AfterAll
  void stop() {
    gateway.close();
    lambda.close();
  }

  /** The test function: behaviour chosen by the request path of the event it gets. */
  private static byte[] route(byte[] payload, dev.squall.local.lambda.InvocationContext context) throws Exception {
    JsonNode event = JSON.readTree(payload);
    String path = event.path("rawPath").asText();
    ObjectNode response = JSON.createObjectNode();
    switch (path) {
      case "/event" -> {
        response.put("statusCode", 200);
        response.putObject("headers").put("content-type", "application/json");
        response.put("body", JSON.writeValueAsString(event));
      }
      case "/binary" -> {
        byte[] received = event.path("isBase64Encoded").asBoolean()
            ? Base64.getDecoder().decode(event.path("body").asText())
            : event.path("body").asText().getBytes(StandardCharsets.UTF_8);
        response.put("statusCode", 201);
        response.putObject("headers")
            .put("content-type", "application/octet-stream")
            .put("x-received-sha256", sha256(received));
        response.put("isBase64Encoded", true);
        response.put("body", Base64.getEncoder().encodeToString(received));
      }
      case "/plain-json" -> {
        return "{\"rows\":[1,2,3],\"stage\":\"final\"}".getBytes(StandardCharsets.UTF_8);
      }
      case "/cookies" -> {
        response.put("statusCode", 204);
        response.putArray("cookies").add("job=q1; Path=/").add("attempt=2");
        response.putObject("multiValueHeaders").putArray("x-stage").add("scan").add("join");
      }
      case "/framing" -> {
        response.put("statusCode", 200);
        response.putObject("headers").put("content-length", "3").put("transfer-encoding", "chunked")
            .put("content-type", "text/plain");
        response.put("body", "stage 2 done");
      }
      case "/fail" -> throw new IllegalStateException("coordinator lost its job store");
      case "/slow" -> Thread.sleep(10_000);
      case "/not-json" -> {
        return "plain words".getBytes(StandardCharsets.UTF_8);
      }
      default -> {
        response.put("statusCode", 404);
        response.put("body", "no route " + path);
      }
    }
    return JSON.writeValueAsBytes(response);
  }

  private static String sha256(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }

  private HttpResponse<byte[]> send(HttpRequest.Builder request) throws Exception {
    return http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  private URI uri(String pathAndQuery) {
    return gateway.endpoint().resolve(pathAndQuery);
  }

  private void assertStillServing() throws Exception {
    HttpResponse<byte[]> response = send(HttpRequest.newBuilder(uri("/plain-json")));
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(new String(response.body(), StandardCharsets.UTF_8)).isEqualTo("{\"rows\":[1,2,3],\"stage\":\"final\"}");
  }

  @Test
  void identityHeaderBecomesTheIamAuthorizerContextAndIsNotPassedOn() throws Exception {
    HttpResponse<byte[]> named = send(HttpRequest.newBuilder(uri("/event"))
        .header(Gateway.IDENTITY_HEADER, "arn:aws:iam::000000000000:user/alice").GET());
    JsonNode event = JSON.readTree(named.body());
    assertThat(event.at("/requestContext/authorizer/iam/userArn").asText()).isEqualTo("arn:aws:iam::000000000000:user/alice");
    assertThat(event.path("headers").has(Gateway.IDENTITY_HEADER)).isFalse();

    JsonNode anonymous = JSON.readTree(send(HttpRequest.newBuilder(uri("/event")).GET()).body());
    assertThat(anonymous.path("requestContext").has("authorizer")).isFalse();
  }

  @Test
  void requestReachesFunctionAsPayloadFormat2EventAndGetsItsAnswer() throws Exception {
    HttpResponse<byte[]> response = send(HttpRequest.newBuilder(uri("/event?a=1&b=x%20y&a=2&flag"))
        .header("X-Multi", "one")
        .header("X-Multi", "two")
        .header("Cookie", "c1=v1; c2=v2")
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"sql\":\"SELECT 1\"}")));

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
    JsonNode event = JSON.readTree(response.body());
    assertThat(event.path("version").asText()).isEqualTo("2.0");
    assertThat(event.path("routeKey").asText()).isEqualTo("$default");
    assertThat(event.path("rawPath").asText()).isEqualTo("/event");
    assertThat(event.path("rawQueryString").asText()).isEqualTo("a=1&b=x%20y&a=2&flag");
    assertThat(event.path("queryStringParameters")).isEqualTo(JSON.readTree("{\"a\":\"1,2\",\"b\":\"x y\",\"flag\":\"\"}"));
    assertThat(event.path("headers").path("x-multi").asText()).isEqualTo("one,two");
    assertThat(event.path("headers").has("cookie")).isFalse();
    assertThat(event.path("cookies")).isEqualTo(JSON.readTree("[\"c1=v1\",\"c2=v2\"]"));
    assertThat(event.path("body").asText()).isEqualTo("{\"sql\":\"SELECT 1\"}");
    assertThat(event.path("isBase64Encoded").asBoolean()).isFalse();
    JsonNode context = event.path("requestContext");
    assertThat(context.path("http").path("method").asText()).isEqualTo("POST");
    assertThat(context.path("http").path("path").asText()).isEqualTo("/event");
    assertThat(context.path("http").path("protocol").asText()).isEqualTo("HTTP/1.1");
    assertThat(context.path("http").path("sourceIp").asText()).isEqualTo("127.0.0.1");
    assertThat(context.path("http").path("userAgent").asText()).startsWith("Java-http-client");
    assertThat(context.path("stage").asText()).isEqualTo("$default");
    assertThat(context.path("routeKey").asText()).isEqualTo("$default");
    assertThat(context.path("requestId").asText()).isEqualTo(response.headers().firstValue("apigw-requestid").orElseThrow());
    assertThat(context.path("timeEpoch").asLong()).isCloseTo(System.currentTimeMillis(), org.assertj.core.data.Offset.offset(60_000L));
    assertThat(context.path("time").asText()).matches("\\d{2}/[A-Z][a-z]{2}/\\d{4}:\\d{2}:\\d{2}:\\d{2} \\+0000");
    assertThat(context.path("domainName").asText()).isEqualTo("127.0.0.1:" + gateway.port());
  }

  @Test
  void binaryBodyRoundTripsByteExactThroughBase64BothWays() throws Exception {
    byte[] body = new byte[300_000];
    new Random(42).nextBytes(body);
    for (int i = 0; i < 256; i++) {
      body[i] = (byte) i; // every byte value, 0x00 to 0xFF, at the start
    }

    HttpResponse<byte[]> response = send(HttpRequest.newBuilder(uri("/binary"))
        .header("Content-Type", "application/octet-stream")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)));

    assertThat(response.statusCode()).isEqualTo(201);
    assertThat(response.headers().firstValue("x-received-sha256")).as("function got the exact bytes").hasValue(sha256(body));
    assertThat(response.body()).as("client got the exact bytes back").isEqualTo(body);
  }

  @Test
  void bodyWithoutContentTypeTravelsAsBase64() throws Exception {
    byte[] body = "{\"looks\":\"like text\"}".getBytes(StandardCharsets.UTF_8);
    HttpResponse<byte[]> response = send(HttpRequest.newBuilder(uri("/event")).POST(HttpRequest.BodyPublishers.ofByteArray(body)));

    JsonNode event = JSON.readTree(response.body());
    assertThat(event.path("isBase64Encoded").asBoolean()).isTrue();
    assertThat(Base64.getDecoder().decode(event.path("body").asText())).isEqualTo(body);
  }

  @Test
  void jsonWithoutStatusCodeIsSentAs200ApplicationJson() throws Exception {
    HttpResponse<byte[]> response = send(HttpRequest.newBuilder(uri("/plain-json")));

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
    assertThat(new String(response.body(), StandardCharsets.UTF_8)).isEqualTo("{\"rows\":[1,2,3],\"stage\":\"final\"}");
  }

  @Test
  void cookiesBecomeSetCookieAndMultiValueHeadersRepeat() throws Exception {
    HttpResponse<byte[]> response = send(HttpRequest.newBuilder(uri("/cookies")));

    assertThat(response.statusCode()).isEqualTo(204);
    assertThat(response.headers().allValues("set-cookie")).containsExactly("job=q1; Path=/", "attempt=2");
    assertThat(response.headers().allValues("x-stage")).containsExactly("scan", "join");
  }

  @Test
  void framingHeadersFromTheFunctionCannotCorruptTheResponse() throws Exception {
    HttpResponse<byte[]> response = send(HttpRequest.newBuilder(uri("/framing")));

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(new String(response.body(), StandardCharsets.UTF_8)).isEqualTo("stage 2 done");
    assertStillServing();
  }

  @Test
  void functionErrorIs502AndGatewayKeepsServing() throws Exception {
    HttpResponse<byte[]> response = send(HttpRequest.newBuilder(uri("/fail")));

    assertThat(response.statusCode()).isEqualTo(502);
    assertThat(JSON.readTree(response.body())).isEqualTo(JSON.readTree("{\"message\":\"Internal Server Error\"}"));
    assertStillServing();
  }

  @Test
  void functionTimeoutIs502() throws Exception {
    HttpResponse<byte[]> response = send(HttpRequest.newBuilder(uri("/slow")));

    assertThat(response.statusCode()).isEqualTo(502);
    assertThat(JSON.readTree(response.body()).path("message").asText()).isEqualTo("Internal Server Error");
    assertStillServing();
  }

  @Test
  void nonJsonFunctionResponseIs502() throws Exception {
    assertThat(send(HttpRequest.newBuilder(uri("/not-json"))).statusCode()).isEqualTo(502);
    assertStillServing();
  }

  @Test
  void throttledFunctionIs429() throws Exception {
    try (Gateway throttled = Gateway.start(0, lambda.endpoint(), "one-at-a-time")) {
      HttpResponse<byte[]> response = http.send(HttpRequest.newBuilder(throttled.endpoint().resolve("/")).build(),
          HttpResponse.BodyHandlers.ofByteArray());
      assertThat(response.statusCode()).isEqualTo(429);
      assertThat(JSON.readTree(response.body()).path("message").asText()).isEqualTo("Too Many Requests");
    }
  }

  @Test
  void invalidUtf8DeclaredAsJsonIs400NamingTheProblem() throws Exception {
    byte[] body = {'{', '"', 'a', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'};
    HttpResponse<byte[]> response = send(HttpRequest.newBuilder(uri("/event"))
        .header("Content-Type", "application/json; charset=utf-8")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)));

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(response.body()).path("message").asText())
        .contains("not valid UTF-8").contains("application/json").contains("byte offset 6");
    assertStillServing();
  }

  @Test
  void unknownCharsetIs400() throws Exception {
    HttpResponse<byte[]> response = send(HttpRequest.newBuilder(uri("/event"))
        .header("Content-Type", "text/plain; charset=klingon-8")
        .POST(HttpRequest.BodyPublishers.ofString("hello")));

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(response.body()).path("message").asText()).contains("klingon-8");
  }

  @Test
  void bodyOverTenMegabytesIs413() throws Exception {
    byte[] body = new byte[GatewayHandler.MAX_BODY_BYTES + 1];
    HttpResponse<byte[]> response = send(HttpRequest.newBuilder(uri("/binary"))
        .header("Content-Type", "application/octet-stream")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)));

    assertThat(response.statusCode()).isEqualTo(413);
    assertThat(JSON.readTree(response.body()).path("message").asText()).contains("exceeds the limit of 10485760 bytes");
    assertStillServing();
  }

  @Test
  void bodyWhoseEventExceedsTheInvokeLimitIs413() throws Exception {
    byte[] body = new byte[5_000_000]; // base64 in the event makes it ~6.7 MB, over Lambda's 6 MB
    HttpResponse<byte[]> response = send(HttpRequest.newBuilder(uri("/binary"))
        .header("Content-Type", "application/octet-stream")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)));

    assertThat(response.statusCode()).isEqualTo(413);
    assertStillServing();
  }

  @Test
  void malformedChunkedBodyIs400() throws Exception {
    String request = "POST /event HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n";
    String answer = rawExchange(request, false);

    assertThat(answer).startsWith("HTTP/1.1 400");
    assertThat(answer).contains("Could not read the request body");
    assertStillServing();
  }

  @Test
  void truncatedChunkedBodyIs400AndGatewayKeepsServing() throws Exception {
    String request = "POST /event HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + "Transfer-Encoding: chunked\r\n\r\n40\r\n{\"sql\":\"SELE";
    String answer = rawExchange(request, true);

    assertThat(answer).startsWith("HTTP/1.1 400");
    assertThat(answer).contains("Could not read the request body");
    assertStillServing();
  }

  @Test
  void bodyShorterThanContentLengthIs400() throws Exception {
    String request = "POST /event HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + "Content-Length: 100\r\n\r\n{\"sql\":";
    String answer = rawExchange(request, true);

    assertThat(answer).startsWith("HTTP/1.1 400");
    assertStillServing();
  }

  /** Sends raw bytes on a socket, optionally half-closing it, and returns what the server answers. */
  private String rawExchange(String request, boolean halfClose) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", gateway.port())) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(request.getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      if (halfClose) {
        socket.shutdownOutput();
      }
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream answer = new ByteArrayOutputStream();
      byte[] buffer = new byte[4096];
      int n;
      try {
        while ((n = in.read(buffer)) != -1) {
          answer.write(buffer, 0, n);
          if (answer.toString(StandardCharsets.ISO_8859_1).contains("}")) {
            break; // the JSON error body is complete; the connection may stay open
          }
        }
      } catch (java.net.SocketTimeoutException e) {
        // keep what arrived
      }
      return answer.toString(StandardCharsets.ISO_8859_1);
    }
  }
}

package dev.squall.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code squall query --aws-sigv4} and {@code --bearer-token} against a test server that records
 * each request. The SigV4 signature is recomputed here from the request as received, with the same
 * credentials, following the published algorithm (AWS General Reference, "Create a signed AWS API
 * request": canonical request, string to sign, HMAC-SHA256 key derivation); the SDK's signer is not
 * used to check itself.
 */
class SignedRequestsTest {
  private static final String ACCESS_KEY = "AKIDEXAMPLESQUALL";
  private static final String SECRET_KEY = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
  private static final Pattern AUTHORIZATION = Pattern.compile(
      "AWS4-HMAC-SHA256 Credential=([^/]+)/(\\d{8})/([a-z0-9-]+)/execute-api/aws4_request, "
          + "SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})");

  /** One request as the server saw it. */
  record Received(String method, String rawPath, String rawQuery, Map<String, String> headers, byte[] body) {}

  private final List<Received> received = new CopyOnWriteArrayList<>();
  private HttpServer server;
  private String endpoint;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::answer);
    server.start();
    endpoint = "http://127.0.0.1:" + server.getAddress().getPort();
    System.setProperty("aws.accessKeyId", ACCESS_KEY);
    System.setProperty("aws.secretAccessKey", SECRET_KEY);
  }

  @AfterEach
  void stop() {
    server.stop(0);
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
  }

  private void answer(HttpExchange exchange) throws IOException {
    Map<String, String> headers = new TreeMap<>();
    exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), String.join(",", v)));
    received.add(new Received(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(),
        exchange.getRequestURI().getRawQuery(), headers, exchange.getRequestBody().readAllBytes()));
    byte[] body = "{\"queryId\":\"q\",\"columns\":[{\"name\":\"one\",\"type\":\"INTEGER\"}],\"rows\":[[1]]}"
        .getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, body.length);
    exchange.getResponseBody().write(body);
    exchange.close();
  }

  @Test
  void sigV4SignatureVerifiesWithTheSameCredentials() throws Exception {
    CliRun run = CliRun.of("query", "--endpoint", endpoint, "--aws-sigv4", "--region", "eu-west-1", "--format", "json",
        "select 1 as one");
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(received).hasSize(1);
    Received r = received.get(0);
    Matcher auth = AUTHORIZATION.matcher(r.headers().getOrDefault("authorization", ""));
    assertThat(auth.matches()).as("Authorization header: %s", r.headers().get("authorization")).isTrue();
    assertThat(auth.group(1)).isEqualTo(ACCESS_KEY);
    assertThat(auth.group(3)).isEqualTo("eu-west-1");
    assertThat(auth.group(4).split(";")).contains("host", "x-amz-date", "content-type");
    assertThat(auth.group(5)).isEqualTo(expectedSignature(r, auth.group(2), "eu-west-1", auth.group(4)));
    assertThat(run.err() + run.outText()).doesNotContain(SECRET_KEY);
  }

  @Test
  void alteredRequestNoLongerVerifies() throws Exception {
    CliRun run = CliRun.of("query", "--endpoint", endpoint, "--aws-sigv4", "--region", "eu-west-1", "select 2");
    assertThat(run.exitCode()).as(run.err()).isZero();
    Received r = received.get(0);
    Matcher auth = AUTHORIZATION.matcher(r.headers().get("authorization"));
    assertThat(auth.matches()).isTrue();
    Received tampered = new Received(r.method(), r.rawPath(), r.rawQuery(), r.headers(),
        "{\"sql\":\"select 3\"}".getBytes(StandardCharsets.UTF_8));
    assertThat(auth.group(5)).isNotEqualTo(expectedSignature(tampered, auth.group(2), "eu-west-1", auth.group(4)));
  }

  @Test
  void bearerTokenIsSentAsIs() {
    CliRun run = CliRun.of("status", "--endpoint", endpoint, "--bearer-token", "eyJ.test.token",
        "00000000-0000-4000-8000-000000000000");
    assertThat(received).hasSize(1);
    assertThat(received.get(0).headers().get("authorization")).isEqualTo("Bearer eyJ.test.token");
    assertThat(run.err()).doesNotContain("eyJ.test.token");
  }

  @Test
  void sigV4WithoutARegionOrTogetherWithATokenIsRefused() {
    CliRun both = CliRun.of("query", "--endpoint", endpoint, "--aws-sigv4", "--region", "eu-west-1",
        "--bearer-token", "t", "select 1");
    assertThat(both.exitCode()).isNotZero();
    assertThat(both.err()).contains("exclude each other");
    assertThat(RequestSigner.region(null, Map.of(), URI.create("https://abc.execute-api.us-west-2.amazonaws.com")))
        .isEqualTo("us-west-2");
    assertThat(RequestSigner.region(null, Map.of("AWS_REGION", "ap-south-1"), URI.create(endpoint)))
        .isEqualTo("ap-south-1");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> RequestSigner.region(null, Map.of(), URI.create(endpoint)))
        .hasMessageContaining("--region");
    assertThat(received).isEmpty();
  }

  /** SigV4 from the published algorithm, over the request as received. */
  private static String expectedSignature(Received r, String date, String region, String signedHeaders) throws Exception {
    StringBuilder canonicalHeaders = new StringBuilder();
    for (String name : signedHeaders.split(";")) {
      canonicalHeaders.append(name).append(':').append(r.headers().get(name).trim().replaceAll(" +", " ")).append('\n');
    }
    String canonicalRequest = String.join("\n", r.method(), r.rawPath(), r.rawQuery() == null ? "" : r.rawQuery(),
        canonicalHeaders.toString(), signedHeaders, hex(sha256(r.body())));
    String amzDate = r.headers().get("x-amz-date");
    String scope = date + "/" + region + "/execute-api/aws4_request";
    String stringToSign = String.join("\n", "AWS4-HMAC-SHA256", amzDate, scope,
        hex(sha256(canonicalRequest.getBytes(StandardCharsets.UTF_8))));
    byte[] key = hmac(("AWS4" + SECRET_KEY).getBytes(StandardCharsets.UTF_8), date);
    key = hmac(key, region);
    key = hmac(key, "execute-api");
    key = hmac(key, "aws4_request");
    return hex(hmac(key, stringToSign));
  }

  private static byte[] sha256(byte[] data) throws Exception {
    return MessageDigest.getInstance("SHA-256").digest(data);
  }

  private static byte[] hmac(byte[] key, String data) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key, "HmacSHA256"));
    return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
  }

  private static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }

}

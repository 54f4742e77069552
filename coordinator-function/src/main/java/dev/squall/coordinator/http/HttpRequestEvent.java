package dev.squall.coordinator.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.squall.coordinator.api.Caller;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The parts of an API Gateway HTTP API (payload format 2.0) event that Squall uses.
 *
 * @param method HTTP method, upper case
 * @param path raw path, e.g. {@code /v1/queries}
 * @param headers header names in lower case (API Gateway lowercases them; repeated headers are
 *     comma-joined)
 * @param query query-string parameters
 * @param body the request body, base64-decoded when the event says so; empty when absent
 * @param requestId API Gateway's request id, or empty
 * @param caller the identity the API's authorizer reported ({@link Caller#NONE} when none)
 */
public record HttpRequestEvent(
    String method, String path, Map<String, String> headers, Map<String, String> query, byte[] body, String requestId,
    Caller caller) {

  /**
   * Reads a payload-format-2.0 event.
   *
   * @throws IllegalArgumentException when the event lacks {@code requestContext.http.method} or has
   *     a body that is not valid base64 while {@code isBase64Encoded} is true
   */
  public static HttpRequestEvent fromEvent(JsonNode event) {
    JsonNode http = event.path("requestContext").path("http");
    String method = http.path("method").asText("");
    if (method.isEmpty()) {
      throw new IllegalArgumentException("not an API Gateway HTTP API 2.0 event: requestContext.http.method is missing");
    }
    String path = event.path("rawPath").asText(http.path("path").asText("/"));
    Map<String, String> headers = new TreeMap<>();
    event.path("headers").fields().forEachRemaining(e -> headers.put(e.getKey().toLowerCase(Locale.ROOT), e.getValue().asText()));
    Map<String, String> query = new TreeMap<>();
    event.path("queryStringParameters").fields().forEachRemaining(e -> query.put(e.getKey(), e.getValue().asText()));
    byte[] body = new byte[0];
    JsonNode bodyNode = event.get("body");
    if (bodyNode != null && !bodyNode.isNull()) {
      body = event.path("isBase64Encoded").asBoolean(false)
          ? Base64.getDecoder().decode(bodyNode.asText())
          : bodyNode.asText().getBytes(StandardCharsets.UTF_8);
    }
    String requestId = event.path("requestContext").path("requestId").asText("");
    return new HttpRequestEvent(method.toUpperCase(Locale.ROOT), path, headers, query, body, requestId,
        Caller.fromEvent(event));
  }

  /** A header value, or the default when absent. Names are matched case-insensitively. */
  public String header(String name, String defaultValue) {
    return headers.getOrDefault(name.toLowerCase(Locale.ROOT), defaultValue);
  }
}

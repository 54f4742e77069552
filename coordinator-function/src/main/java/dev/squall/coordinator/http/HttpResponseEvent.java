package dev.squall.coordinator.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A response in API Gateway HTTP API payload format 2.0. Text bodies (JSON, text) travel as
 * strings; any other content type is base64-encoded with {@code isBase64Encoded: true}, which API
 * Gateway decodes before answering the client.
 *
 * @param status HTTP status code
 * @param headers response headers
 * @param body response body bytes
 */
public record HttpResponseEvent(int status, Map<String, String> headers, byte[] body) {

  /** A JSON response with the given status. */
  public static HttpResponseEvent json(int status, String json) {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("content-type", "application/json");
    return new HttpResponseEvent(status, headers, json.getBytes(StandardCharsets.UTF_8));
  }

  /** A binary response of the given content type. */
  public static HttpResponseEvent binary(int status, String contentType, byte[] body, Map<String, String> extraHeaders) {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("content-type", contentType);
    headers.putAll(extraHeaders);
    return new HttpResponseEvent(status, headers, body);
  }

  /** Serialises this response as the JSON object a Lambda function returns to API Gateway. */
  public byte[] toEventJson(ObjectMapper mapper) {
    ObjectNode node = mapper.createObjectNode();
    node.put("statusCode", status);
    ObjectNode h = node.putObject("headers");
    headers.forEach(h::put);
    String contentType = headers.getOrDefault("content-type", "");
    boolean text = contentType.startsWith("application/json") || contentType.startsWith("text/");
    if (text) {
      node.put("body", new String(body, StandardCharsets.UTF_8));
      node.put("isBase64Encoded", false);
    } else {
      node.put("body", Base64.getEncoder().encodeToString(body));
      node.put("isBase64Encoded", true);
    }
    try {
      return mapper.writeValueAsBytes(node);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise response", e);
    }
  }
}

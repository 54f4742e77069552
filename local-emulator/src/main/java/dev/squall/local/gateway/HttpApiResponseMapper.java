package dev.squall.local.gateway;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a function's response into HTTP by the payload format 2.0 rules of API Gateway HTTP APIs:
 * a JSON object with {@code statusCode} is a structured response ({@code statusCode},
 * {@code headers}, {@code multiValueHeaders}, {@code cookies} as {@code Set-Cookie} lines,
 * {@code body}, base64-decoded when {@code isBase64Encoded}); any other valid JSON is sent as a 200
 * {@code application/json} body unchanged. A response that is not JSON, or a structured response
 * with invalid fields, is a malformed integration response: 502.
 */
final class HttpApiResponseMapper {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private HttpApiResponseMapper() {}

  /**
   * Maps a successful invocation's payload.
   *
   * @throws GatewayException 502 naming what is malformed
   */
  static HttpApiResponse map(byte[] payload) {
    JsonNode root;
    try {
      root = JSON.readTree(payload);
    } catch (JsonProcessingException e) {
      throw new GatewayException(502, "Function response is not JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new GatewayException(502, "Function response is not JSON: " + e.getMessage());
    }
    if (root == null || root.isMissingNode()) {
      throw new GatewayException(502, "Function response is empty");
    }
    if (!root.isObject() || !root.has("statusCode")) {
      Map<String, List<String>> headers = new LinkedHashMap<>();
      headers.put("Content-Type", List.of("application/json"));
      return new HttpApiResponse(200, headers, payload);
    }
    return structured(root);
  }

  private static HttpApiResponse structured(JsonNode root) {
    JsonNode status = root.get("statusCode");
    if (!status.canConvertToInt() || status.asInt() < 100 || status.asInt() > 599) {
      throw new GatewayException(502, "Function response has invalid statusCode " + status);
    }
    Map<String, List<String>> headers = new LinkedHashMap<>();
    JsonNode single = root.path("headers");
    if (single.isObject()) {
      single.fields().forEachRemaining(f -> headers.computeIfAbsent(f.getKey(), k -> new ArrayList<>())
          .add(scalar(f.getValue(), "headers." + f.getKey())));
    } else if (!single.isMissingNode() && !single.isNull()) {
      throw new GatewayException(502, "Function response field headers is not an object");
    }
    JsonNode multi = root.path("multiValueHeaders");
    if (multi.isObject()) {
      multi.fields().forEachRemaining(f -> {
        if (!f.getValue().isArray()) {
          throw new GatewayException(502, "Function response multiValueHeaders." + f.getKey() + " is not an array");
        }
        List<String> values = headers.computeIfAbsent(f.getKey(), k -> new ArrayList<>());
        f.getValue().forEach(v -> values.add(scalar(v, "multiValueHeaders." + f.getKey())));
      });
    }
    JsonNode cookies = root.path("cookies");
    if (cookies.isArray()) {
      List<String> setCookie = headers.computeIfAbsent("Set-Cookie", k -> new ArrayList<>());
      cookies.forEach(c -> setCookie.add(scalar(c, "cookies")));
    }
    return new HttpApiResponse(status.asInt(), headers, body(root));
  }

  private static byte[] body(JsonNode root) {
    JsonNode body = root.path("body");
    if (body.isMissingNode() || body.isNull()) {
      return new byte[0];
    }
    if (!body.isTextual()) {
      throw new GatewayException(502, "Function response body is not a string but " + body.getNodeType());
    }
    if (root.path("isBase64Encoded").asBoolean(false)) {
      try {
        return Base64.getDecoder().decode(body.asText());
      } catch (IllegalArgumentException e) {
        throw new GatewayException(502, "Function response body is marked isBase64Encoded but is not base64: "
            + e.getMessage());
      }
    }
    return body.asText().getBytes(StandardCharsets.UTF_8);
  }

  private static String scalar(JsonNode value, String field) {
    if (value.isValueNode() && !value.isNull()) {
      return value.asText();
    }
    throw new GatewayException(502, "Function response " + field + " is not a string, number or boolean");
  }
}

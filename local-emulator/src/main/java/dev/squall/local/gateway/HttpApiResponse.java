package dev.squall.local.gateway;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The HTTP response the gateway sends.
 *
 * @param status HTTP status code
 * @param headers header names to values; each value is sent as its own header line
 * @param body response body bytes, possibly empty
 */
record HttpApiResponse(int status, Map<String, List<String>> headers, byte[] body) {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** An API Gateway style answer of the gateway itself: {@code {"message":"..."}} as application/json. */
  static HttpApiResponse message(int status, String message) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    headers.put("Content-Type", List.of("application/json"));
    try {
      return new HttpApiResponse(status, headers, JSON.writeValueAsBytes(Map.of("message", message)));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}

package dev.squall.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/**
 * A client of Squall's HTTP API: {@code POST /v1/queries} with {@code {"sql", "properties"}}.
 */
final class QueryClient {
  static final String ARROW_STREAM = "application/vnd.apache.arrow.stream";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final URI endpoint;
  private final Duration timeout;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  QueryClient(URI endpoint, Duration timeout) {
    this.endpoint = endpoint;
    this.timeout = timeout;
  }

  /**
   * Sends the query and returns the raw HTTP answer.
   *
   * @param accept {@link #ARROW_STREAM} or {@code application/json}
   */
  HttpResponse<byte[]> send(String sql, Map<String, String> properties, String accept) throws IOException, InterruptedException {
    ObjectNode body = JSON.createObjectNode().put("sql", sql);
    if (!properties.isEmpty()) {
      ObjectNode props = body.putObject("properties");
      properties.forEach(props::put);
    }
    HttpRequest request = HttpRequest.newBuilder(endpoint.resolve("/v1/queries"))
        .timeout(timeout)
        .header("Content-Type", "application/json")
        .header("Accept", accept)
        .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
        .build();
    return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
  }
}

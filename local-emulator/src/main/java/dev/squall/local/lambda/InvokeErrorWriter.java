package dev.squall.local.lambda;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Writes an {@link InvokeApiException} as AWS Lambda does: status, {@code x-amzn-ErrorType},
 * {@code x-amzn-RequestId} and a JSON body. The AWS SDK v2 reads the error type from the header
 * and the message from the {@code message} field.
 */
final class InvokeErrorWriter {
  private static final ObjectMapper JSON = new ObjectMapper();

  private InvokeErrorWriter() {}

  static void write(HttpExchange exchange, String requestId, InvokeApiException error) throws IOException {
    ObjectNode body = JSON.createObjectNode();
    body.put("Type", error.status() >= 500 ? "Service" : "User");
    body.put("message", error.getMessage());
    error.extraFields().forEach((k, v) -> body.putPOJO(k, v));
    byte[] bytes = JSON.writeValueAsBytes(body);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.getResponseHeaders().set("x-amzn-ErrorType", error.errorType());
    exchange.getResponseHeaders().set("x-amzn-RequestId", requestId);
    exchange.sendResponseHeaders(error.status(), bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}

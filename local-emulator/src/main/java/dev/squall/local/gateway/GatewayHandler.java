package dev.squall.local.gateway;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Handles every request: reads the body (at most {@link #MAX_BODY_BYTES}), builds the payload 2.0
 * event, invokes the function and writes its response. Requests the gateway cannot turn into an
 * event (unreadable or over-long body, text body not in its charset) are answered 400 or 413 with a
 * {@code {"message":...}} body naming the problem.
 */
final class GatewayHandler implements HttpHandler {
  /** API Gateway's request payload limit, 10 MB. */
  static final int MAX_BODY_BYTES = 10 * 1024 * 1024;
  /** Bodies past the limit are read and discarded up to this size so the client sees the 413. */
  private static final long MAX_DRAIN_BYTES = 256L << 20;
  private static final Logger LOG = LoggerFactory.getLogger(GatewayHandler.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final java.util.Set<String> FRAMING_HEADERS =
      java.util.Set.of("content-length", "transfer-encoding", "connection", "keep-alive", "upgrade");

  private final FunctionIntegration integration;

  private final LocalRoute localRoute;

  GatewayHandler(FunctionIntegration integration, LocalRoute localRoute) {
    this.integration = integration;
    this.localRoute = localRoute;
  }

  @Override
  public void handle(HttpExchange exchange) {
    String requestId = UUID.randomUUID().toString();
    try (exchange) {
      HttpApiResponse response;
      try {
        response = respond(exchange, requestId);
      } catch (GatewayException e) {
        LOG.info("Request {} refused ({}): {}", requestId, e.status(), e.getMessage());
        response = HttpApiResponse.message(e.status(), e.getMessage());
      } catch (RuntimeException e) {
        LOG.error("Request {} failed in the gateway", requestId, e);
        response = HttpApiResponse.message(500, "Internal Server Error");
      }
      write(exchange, requestId, response);
    } catch (IOException e) {
      LOG.debug("Request {}: client went away: {}", requestId, e.toString());
    }
  }

  private HttpApiResponse respond(HttpExchange exchange, String requestId) throws IOException {
    Instant receivedAt = Instant.now();
    byte[] body = readBody(exchange.getRequestBody());
    if (localRoute != null && exchange.getRequestURI().getPath().startsWith("/_local/")) {
      LocalRoute.Answer answer = localRoute.handle(exchange.getRequestMethod(), exchange.getRequestURI().getPath(), body);
      if (answer != null) {
        return HttpApiResponse.message(answer.status(), answer.message());
      }
    }
    GatewayRequest request = new GatewayRequest(exchange.getRequestMethod(), exchange.getRequestURI(),
        exchange.getProtocol(), exchange.getRequestHeaders(), body,
        exchange.getRemoteAddress().getAddress().getHostAddress(), receivedAt);
    byte[] event = JSON.writeValueAsBytes(HttpApiEventBuilder.build(request, requestId));
    return integration.invoke(event, requestId);
  }

  private static byte[] readBody(InputStream in) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[64 * 1024];
    long total = 0;
    try {
      int n;
      while ((n = in.read(buffer)) != -1) {
        total += n;
        if (total <= MAX_BODY_BYTES) {
          out.write(buffer, 0, n);
        } else if (total > MAX_DRAIN_BYTES) {
          break;
        }
      }
    } catch (IOException e) {
      throw new GatewayException(400, "Could not read the request body after " + total + " bytes: " + e.getMessage());
    }
    if (total > MAX_BODY_BYTES) {
      throw new GatewayException(413, "Request body of " + total + " bytes exceeds the limit of "
          + MAX_BODY_BYTES + " bytes");
    }
    return out.toByteArray();
  }

  private static void write(HttpExchange exchange, String requestId, HttpApiResponse response) throws IOException {
    for (Map.Entry<String, List<String>> header : response.headers().entrySet()) {
      if (FRAMING_HEADERS.contains(header.getKey().toLowerCase(java.util.Locale.ROOT))) {
        continue; // the server frames the body itself; a function's value could corrupt the stream
      }
      for (String value : header.getValue()) {
        exchange.getResponseHeaders().add(header.getKey(), value);
      }
    }
    exchange.getResponseHeaders().set("Apigw-Requestid", requestId);
    byte[] body = response.body();
    boolean noBody = body.length == 0 || exchange.getRequestMethod().equals("HEAD")
        || response.status() == 204 || response.status() == 304;
    exchange.sendResponseHeaders(response.status(), noBody ? -1 : body.length);
    if (!noBody) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }
}

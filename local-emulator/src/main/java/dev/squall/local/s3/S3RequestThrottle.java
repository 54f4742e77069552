package dev.squall.local.s3;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.gaul.shaded.org.eclipse.jetty.server.Request;
import org.gaul.shaded.org.eclipse.jetty.server.handler.HandlerWrapper;

/**
 * Applies an {@link S3RequestModel} in front of S3Proxy's handler: delays every request by the
 * model's latency and answers 503 {@code SlowDown} (S3's error document) to a request over its
 * prefix's rate, so that the server's own request log shows what clients had to retry.
 */
final class S3RequestThrottle extends HandlerWrapper {
  private final S3RequestModel model;
  private final Map<String, TokenBucket> buckets = new HashMap<>();

  S3RequestThrottle(S3RequestModel model) {
    this.model = model;
  }

  @Override
  public void handle(String target, Request baseRequest, HttpServletRequest request, HttpServletResponse response)
      throws IOException, ServletException {
    if (!model.latency().isZero()) {
      try {
        Thread.sleep(model.latency().toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while modelling S3 latency", e);
      }
    }
    String method = request.getMethod();
    boolean read = method.equals("GET") || method.equals("HEAD");
    int rate = read ? model.readsPerSecond() : model.writesPerSecond();
    if (rate > 0 && !admit(prefixOf(request.getRequestURI()) + (read ? " r" : " w"), rate)) {
      baseRequest.setHandled(true);
      byte[] body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SlowDown</Code>"
          + "<Message>Please reduce your request rate.</Message><RequestId>" + UUID.randomUUID()
          + "</RequestId></Error>").getBytes(StandardCharsets.UTF_8);
      response.setStatus(503);
      response.setContentType("application/xml");
      response.setContentLength(body.length);
      response.getOutputStream().write(body);
      return;
    }
    super.handle(target, baseRequest, request, response);
  }

  /** {@code /bucket/a/b/key} → {@code bucket/a/b/}; a bucket request → {@code bucket/}. */
  static String prefixOf(String path) {
    String p = path == null ? "" : path.startsWith("/") ? path.substring(1) : path;
    int slash = p.indexOf('/');
    if (slash < 0) {
      return p + "/";
    }
    return p.substring(0, p.lastIndexOf('/') + 1);
  }

  private synchronized boolean admit(String key, int perSecond) {
    return buckets.computeIfAbsent(key, k -> new TokenBucket(perSecond, System.nanoTime())).take(System.nanoTime());
  }

  /** One second's worth of requests, refilled continuously. */
  private static final class TokenBucket {
    final double capacity;
    double tokens;
    long refilledAt;

    TokenBucket(int perSecond, long now) {
      this.capacity = perSecond;
      this.tokens = perSecond;
      this.refilledAt = now;
    }

    boolean take(long now) {
      tokens = Math.min(capacity, tokens + (now - refilledAt) * capacity / 1e9);
      refilledAt = now;
      if (tokens < 1) {
        return false;
      }
      tokens -= 1;
      return true;
    }
  }
}

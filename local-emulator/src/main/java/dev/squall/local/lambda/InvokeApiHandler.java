package dev.squall.local.lambda;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes {@code POST /2015-03-31/functions/{FunctionName}/invocations[?Qualifier=q]} (the Lambda
 * Invoke API, REST-JSON protocol) to a function, by {@code X-Amz-Invocation-Type}:
 * {@code RequestResponse} (default) answers 200 with the function's payload, {@code Event} queues
 * the invocation and answers 202, {@code DryRun} only validates and answers 204.
 *
 * <p>Checks, in order: route, body size (413), function name and existence (400/404), invocation
 * type (400), payload format (400), concurrency (429).
 */
final class InvokeApiHandler implements HttpHandler {
  private static final Logger LOG = LoggerFactory.getLogger(InvokeApiHandler.class);
  private static final Pattern ROUTE = Pattern.compile("^/2015-03-31/functions/([^/]+)/invocations/?$");

  private final FunctionRegistry registry;
  private final ConcurrencyLimiter limiter;
  private final FunctionRunner runner;
  private final AsyncInvocationQueue events;
  private final InvokeCounts counts;

  InvokeApiHandler(FunctionRegistry registry, ConcurrencyLimiter limiter, FunctionRunner runner,
      AsyncInvocationQueue events, InvokeCounts counts) {
    this.counts = counts;
    this.registry = registry;
    this.limiter = limiter;
    this.runner = runner;
    this.events = events;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    String requestId = UUID.randomUUID().toString();
    try (exchange) {
      try {
        invoke(exchange, requestId);
      } catch (InvokeApiException e) {
        LOG.debug("Invoke {} refused: {} {}", requestId, e.errorType(), e.getMessage());
        InvokeErrorWriter.write(exchange, requestId, e);
      } catch (IOException e) {
        LOG.info("Invoke {}: could not read the request: {}", requestId, e.toString());
        InvokeErrorWriter.write(exchange, requestId,
            InvokeApiException.invalidRequestContent("Could not read request body: " + e.getMessage()));
      } catch (RuntimeException e) {
        LOG.error("Invoke {} failed in the emulator", requestId, e);
        InvokeErrorWriter.write(exchange, requestId, InvokeApiException.service(e.toString()));
      }
    } catch (IOException e) {
      LOG.debug("Invoke {}: client went away: {}", requestId, e.toString());
    }
  }

  private void invoke(HttpExchange exchange, String requestId) throws IOException {
    String method = exchange.getRequestMethod();
    String path = exchange.getRequestURI().getRawPath();
    Matcher route = ROUTE.matcher(path);
    if (!route.matches() || !method.equals("POST")) {
      throw InvokeApiException.unknownOperation(method, path);
    }
    byte[] body = InvokeRequestBody.read(exchange.getRequestBody(), InvokeRequestBody.MAX_REQUEST_BYTES);
    FunctionName name = withQueryQualifier(
        FunctionName.parse(decode(route.group(1), "functionName")),
        exchange.getRequestURI().getRawQuery());
    counts.record(InvokeCounts.callerOf(exchange.getRequestHeaders().getFirst("Authorization")), name.name());
    FunctionDefinition function = registry.resolve(name);
    InvocationType type = InvocationType.parse(exchange.getRequestHeaders().getFirst("X-Amz-Invocation-Type"));
    byte[] payload = InvokeRequestBody.check(body, function);

    exchange.getResponseHeaders().set("x-amzn-RequestId", requestId);
    switch (type) {
      case DRY_RUN -> exchange.sendResponseHeaders(204, -1);
      case EVENT -> {
        if (payload.length > AsyncInvocationQueue.MAX_EVENT_PAYLOAD_BYTES) {
          throw InvokeApiException.requestTooLarge(payload.length, AsyncInvocationQueue.MAX_EVENT_PAYLOAD_BYTES);
        }
        events.submit(name, payload, requestId);
        exchange.sendResponseHeaders(202, -1);
      }
      case REQUEST_RESPONSE -> {
        ConcurrencyLimiter.Permit permit = limiter.acquire(function);
        InvocationResult result = runner.run(function, name.arn(), payload, requestId, permit);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.getResponseHeaders().set("X-Amz-Executed-Version", "$LATEST");
        result.functionError().ifPresent(e -> exchange.getResponseHeaders().set("X-Amz-Function-Error", e));
        byte[] out = result.payload();
        exchange.sendResponseHeaders(200, out.length == 0 ? -1 : out.length);
        try (OutputStream stream = exchange.getResponseBody()) {
          stream.write(out);
        }
      }
    }
  }

  /** Applies {@code ?Qualifier=}; it must agree with a qualifier given in the name. */
  private static FunctionName withQueryQualifier(FunctionName name, String rawQuery) {
    if (rawQuery == null) {
      return name;
    }
    for (String pair : rawQuery.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0 && pair.substring(0, eq).equals("Qualifier")) {
        String qualifier = decode(pair.substring(eq + 1), "Qualifier");
        if (name.qualifier().isPresent() && !name.qualifier().get().equals(qualifier)) {
          throw InvokeApiException.invalidParameterValue("The derived qualifier from the function name ("
              + name.qualifier().get() + ") does not match the specified qualifier (" + qualifier + ").");
        }
        return new FunctionName(name.name(), Optional.of(qualifier));
      }
    }
    return name;
  }

  private static String decode(String raw, String parameter) {
    try {
      return URLDecoder.decode(raw, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw InvokeApiException.invalidParameterValue("Malformed percent-encoding in " + parameter + " '" + raw + "'");
    }
  }

  /** The values of {@code X-Amz-Invocation-Type}. */
  enum InvocationType {
    REQUEST_RESPONSE, EVENT, DRY_RUN;

    static InvocationType parse(String header) {
      if (header == null || header.equals("RequestResponse")) {
        return REQUEST_RESPONSE;
      }
      if (header.equals("Event")) {
        return EVENT;
      }
      if (header.equals("DryRun")) {
        return DRY_RUN;
      }
      throw InvokeApiException.invalidParameterValue("1 validation error detected: Value '" + header
          + "' at 'invocationType' failed to satisfy constraint: Member must satisfy enum value set: "
          + "[Event, RequestResponse, DryRun]");
    }
  }
}

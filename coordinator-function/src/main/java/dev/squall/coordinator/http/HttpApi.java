package dev.squall.coordinator.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.coordinator.api.QueryAnswer;
import dev.squall.coordinator.api.QueryService;
import dev.squall.coordinator.api.SquallException;
import dev.squall.proto.v1.QuerySummary;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Squall's HTTP API over API Gateway HTTP API events (payload format 2.0).
 *
 * <ul>
 *   <li>{@code POST /v1/queries} with {@code {"sql": "...", "properties": {...}}}: runs the query;
 *       answers an Arrow IPC stream ({@code application/vnd.apache.arrow.stream}) by default, or
 *       JSON when the request has {@code Accept: application/json}.
 *   <li>{@code GET /v1/health}: {@code {"status": "ok"}}.
 * </ul>
 *
 * Errors are JSON {@code {"error": {"code", "message", "line", "column"}}} with a 4xx/5xx status.
 */
public final class HttpApi {
  public static final String ARROW_STREAM = "application/vnd.apache.arrow.stream";
  private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);
  /** Largest JSON answer returned inline: below Lambda's 6 MB response limit with the envelope. */
  static final int MAX_INLINE_JSON_CHARS = 5_000_000;

  private final ObjectMapper mapper = new ObjectMapper();
  private final QueryRequestParser parser = new QueryRequestParser(mapper);
  private final ErrorResponses errors = new ErrorResponses(mapper);
  private final JsonResultWriter jsonResults = new JsonResultWriter(mapper);
  private final QueryService queries;

  public HttpApi(QueryService queries) {
    this.queries = queries;
  }

  /**
   * Handles one API Gateway event and returns the response event as JSON bytes. Never throws: a
   * malformed event gets a 400 response.
   */
  public byte[] handle(byte[] eventJson) {
    HttpRequestEvent request;
    try {
      request = HttpRequestEvent.fromEvent(mapper.readTree(eventJson));
    } catch (Exception e) {
      return errors.of(400, "USER_ERROR", "malformed API Gateway event: " + e.getMessage(), 0, 0, null).toEventJson(mapper);
    }
    return route(request).toEventJson(mapper);
  }

  /** Routes a parsed request. */
  public HttpResponseEvent route(HttpRequestEvent request) {
    String path = request.path();
    if (path.equals("/v1/health") && request.method().equals("GET")) {
      return HttpResponseEvent.json(200, "{\"status\":\"ok\"}");
    }
    if (path.equals("/v1/queries")) {
      if (!request.method().equals("POST")) {
        return errors.of(405, "USER_ERROR", "method " + request.method() + " is not allowed on /v1/queries; use POST", 0, 0, null);
      }
      return runQuery(request);
    }
    return errors.of(404, "USER_ERROR", "no such resource: " + request.method() + " " + path, 0, 0, null);
  }

  private HttpResponseEvent runQuery(HttpRequestEvent request) {
    String queryId = UUID.randomUUID().toString();
    try {
      QueryRequestParser.ParsedQuery parsed = parser.parse(request.body());
      QueryAnswer answer = queries.execute(queryId, parsed.sql(), parsed.properties());
      boolean wantsJson = request.header("accept", "").contains("application/json");
      if (wantsJson) {
        String json = jsonResults.write(answer);
        if (json.length() > MAX_INLINE_JSON_CHARS && answer.resultUrls().isEmpty()) {
          // Rows as JSON take more room than as Arrow: too large for a Lambda response.
          json = jsonResults.write(answer.withUrls(answer.spill().toUrls(answer.arrowIpc())));
        }
        return HttpResponseEvent.json(200, json);
      }
      if (!answer.resultUrls().isEmpty()) {
        return HttpResponseEvent.json(200, jsonResults.write(answer));
      }
      return HttpResponseEvent.binary(200, ARROW_STREAM, answer.arrowIpc(), Map.of(
          "x-squall-query-id", queryId,
          "x-squall-summary", summaryJson(answer.summary())));
    } catch (SquallException e) {
      return errors.of(e, queryId);
    } catch (RuntimeException e) {
      LOG.error("query {} failed with an internal error", queryId, e);
      return errors.of(500, "INTERNAL_ERROR", "internal error: " + e, 0, 0, queryId);
    }
  }

  String summaryJson(QuerySummary summary) {
    return jsonResults.summary(summary).toString();
  }
}

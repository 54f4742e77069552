package dev.squall.coordinator.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.squall.coordinator.api.PublicErrors;
import dev.squall.coordinator.api.QueryAnswer;
import dev.squall.coordinator.api.QueryNotFoundException;
import dev.squall.coordinator.api.QueryService;
import dev.squall.coordinator.api.QueryStatus;
import dev.squall.coordinator.api.QueryThrottledException;
import dev.squall.coordinator.api.SquallException;
import dev.squall.coordinator.api.Submission;
import dev.squall.jobstore.JobState;
import dev.squall.jobstore.StageProgress;
import dev.squall.proto.v1.QuerySummary;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * Squall's HTTP API over API Gateway HTTP API events (payload format 2.0).
 *
 * <ul>
 *   <li>{@code POST /v1/queries} with {@code {"sql": "...", "properties": {...}, "mode": "sync"|"async"}}:
 *       submits the query. Synchronous (the default): answers with the result, an Arrow IPC stream
 *       ({@code application/vnd.apache.arrow.stream}) by default or JSON when the request has
 *       {@code Accept: application/json}; or 202 with the query's status URL when it has not
 *       finished within the synchronous wait. Asynchronous: 202 at once.
 *   <li>{@code GET /v1/queries/{id}}: state, per-stage progress, error, summary.
 *   <li>{@code GET /v1/queries/{id}/result}: the answer as for a synchronous query; 409 while running.
 *   <li>{@code DELETE /v1/queries/{id}}: cancel; 202 with the status, 409 for a finished query.
 *   <li>{@code GET /v1/health}: {@code {"status": "ok"}}.
 * </ul>
 *
 * Each request acts for the caller its authorizer context names ({@link
 * dev.squall.coordinator.api.Caller}); a query of another caller answers 404 NOT_FOUND.
 *
 * <p>Errors are JSON {@code {"error": {"code", "message", "line", "column"}}} with a 4xx/5xx status.
 */
public final class HttpApi {
  public static final String ARROW_STREAM = "application/vnd.apache.arrow.stream";
  /**
   * Largest JSON answer returned inline, in bytes as it stands in the response envelope (escaped
   * again there, {@link EnvelopeSize}): below Lambda's 6 MB response limit with the envelope.
   */
  static final int MAX_INLINE_JSON_BYTES = 5_000_000;

  private final ObjectMapper mapper = new ObjectMapper();
  private final QueryRequestParser parser = new QueryRequestParser(mapper);
  private final ErrorResponses errors = new ErrorResponses(mapper);
  private final JsonResultWriter jsonResults = new JsonResultWriter(mapper);
  private final QueryService queries;
  private static final String QUERIES = "/v1/queries/";

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
    String method = request.method();
    if (path.equals("/v1/health") && method.equals("GET")) {
      return HttpResponseEvent.json(200, "{\"status\":\"ok\"}");
    }
    if (path.equals("/v1/queries")) {
      if (!method.equals("POST")) {
        return errors.of(405, "USER_ERROR", "method " + method + " is not allowed on /v1/queries; use POST", 0, 0, null);
      }
      return submit(request);
    }
    if (path.startsWith(QUERIES)) {
      String rest = path.substring(QUERIES.length());
      boolean result = rest.endsWith("/result");
      String id = result ? rest.substring(0, rest.length() - "/result".length()) : rest;
      if (!isQueryId(id)) {
        // A plain word in the id's place is a query id never issued; anything else names no resource.
        return id.matches("[A-Za-z0-9._-]{1,128}") && !id.startsWith(".")
            ? errors.of(new QueryNotFoundException(id), null)
            : errors.of(404, "NOT_FOUND", "no such resource: " + method + " " + path, 0, 0, null);
      }
      try {
        if (result && method.equals("GET")) {
          return answer(queries.result(request.caller(), id), request);
        }
        if (!result && method.equals("GET")) {
          return HttpResponseEvent.json(200, statusJson(queries.status(request.caller(), id)).toString());
        }
        if (!result && method.equals("DELETE")) {
          QueryStatus status = queries.cancel(request.caller(), id);
          JobState state = JobState.valueOf(status.state());
          if (state.isTerminal() && state != JobState.CANCELLED) {
            return errors.of(409, "USER_ERROR", "query " + id + " has already finished: it is " + status.state(), 0, 0, id);
          }
          return HttpResponseEvent.json(202, statusJson(status).toString());
        }
        return errors.of(405, "USER_ERROR", "method " + method + " is not allowed on " + path, 0, 0, id);
      } catch (SquallException e) {
        return errors.of(e, id);
      } catch (RuntimeException e) {
        return errors.of(500, "INTERNAL_ERROR", PublicErrors.internal("request " + method + " " + path, e), 0, 0, id);
      }
    }
    return errors.of(404, "NOT_FOUND", "no such resource: " + method + " " + path, 0, 0, null);
  }

  private HttpResponseEvent submit(HttpRequestEvent request) {
    String queryId = UUID.randomUUID().toString();
    try {
      QueryRequestParser.ParsedQuery parsed = parser.parse(request.body());
      Submission submission = queries.submit(request.caller(), queryId, parsed.sql(), parsed.properties(), parsed.async());
      if (!submission.isAnswered()) {
        return HttpResponseEvent.json(202, acceptedJson(submission.accepted()).toString());
      }
      return answer(submission.answer(), request);
    } catch (QueryThrottledException e) {
      return errors.of(e, null); // no job was created: the id names nothing
    } catch (SquallException e) {
      return errors.of(e, queryId);
    } catch (RuntimeException e) {
      return errors.of(500, "INTERNAL_ERROR", PublicErrors.internal("query " + queryId, e), 0, 0, queryId);
    }
  }

  /** A finished query's answer: Arrow by default, JSON on request, URLs for large results. */
  private HttpResponseEvent answer(QueryAnswer answer, HttpRequestEvent request) {
    boolean wantsJson = request.header("accept", "").contains("application/json");
    if (wantsJson) {
      String json = jsonResults.write(answer);
      if (EnvelopeSize.of(json) > MAX_INLINE_JSON_BYTES && answer.resultUrls().isEmpty()) {
        // Rows as JSON take more room than as Arrow, and more again once escaped in the envelope:
        // too large for a Lambda response.
        json = jsonResults.write(answer.withUrls(answer.spill().toUrls(answer.arrowIpc())));
      }
      return HttpResponseEvent.json(200, json);
    }
    if (!answer.resultUrls().isEmpty()) {
      return HttpResponseEvent.json(200, jsonResults.write(answer));
    }
    return HttpResponseEvent.binary(200, ARROW_STREAM, answer.arrowIpc(), Map.of(
        "x-squall-query-id", answer.queryId(),
        "x-squall-summary", summaryJson(answer.summary())));
  }

  private ObjectNode acceptedJson(QueryStatus status) {
    ObjectNode node = mapper.createObjectNode();
    node.put("queryId", status.queryId());
    node.put("state", status.state());
    node.put("statusUrl", QUERIES + status.queryId());
    node.put("resultUrl", QUERIES + status.queryId() + "/result");
    return node;
  }

  /** The status shape of GET /v1/queries/{id} (docs/api.md). */
  ObjectNode statusJson(QueryStatus status) {
    ObjectNode node = mapper.createObjectNode();
    node.put("queryId", status.queryId());
    node.put("state", status.state());
    node.put("cancelRequested", status.cancelRequested());
    putTime(node, "createdAt", status.createdAt());
    putTime(node, "updatedAt", status.updatedAt());
    putTime(node, "finishedAt", status.finishedAt());
    ArrayNode stages = node.putArray("stages");
    for (StageProgress p : status.stages()) {
      stages.addObject().put("stageId", p.stageId()).put("tasksDone", p.tasksDone()).put("tasksTotal", p.tasksTotal());
    }
    if (status.error() != null) {
      ObjectNode error = node.putObject("error");
      error.put("code", status.error().code());
      error.put("message", status.error().message());
      if (status.error().line() > 0) {
        error.put("line", status.error().line());
        error.put("column", status.error().column());
      }
    }
    if (status.summary() != null) {
      node.set("summary", jsonResults.summary(status.summary()));
    }
    return node;
  }

  private static void putTime(ObjectNode node, String field, Instant t) {
    if (t != null) {
      node.put(field, t.toString());
    }
  }

  /** Query ids are UUIDs; anything else cannot name a job (and must not reach S3 keys). */
  static boolean isQueryId(String id) {
    return id.matches("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  }

  String summaryJson(QuerySummary summary) {
    return jsonResults.summary(summary, false).toString();
  }
}

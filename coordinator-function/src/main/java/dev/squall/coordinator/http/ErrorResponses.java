package dev.squall.coordinator.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.squall.coordinator.api.QueryNotFinishedException;
import dev.squall.coordinator.api.QueryNotFoundException;
import dev.squall.coordinator.api.QueryThrottledException;
import dev.squall.coordinator.api.RequestTooLargeException;
import dev.squall.coordinator.api.SquallException;
import dev.squall.proto.v1.ErrorCode;

/**
 * Maps failures to the JSON error shape
 * {@code {"error": {"code": "...", "message": "...", "line": n, "column": n}}} and an HTTP status:
 * a request over a size limit 413, an unknown query 404, a query without a result yet 409, a submission
 * beyond the running-query cap 429 (code THROTTLED), USER_ERROR 400, INSUFFICIENT_RESOURCES 503, EXTERNAL and
 * MISSING_SHUFFLE_OUTPUT 502, CANCELLED 409, TIMEOUT 504, everything else 500.
 */
final class ErrorResponses {
  private final ObjectMapper mapper;

  ErrorResponses(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  HttpResponseEvent of(SquallException e, String queryId) {
    return of(statusOf(e), codeOf(e), e.getMessage(), e.line(), e.column(), queryId);
  }

  /** The error's code name; a query without a result yet is NOT_FINISHED, an unknown one NOT_FOUND. */
  static String codeOf(SquallException e) {
    if (e instanceof QueryNotFinishedException) {
      return "NOT_FINISHED";
    }
    if (e instanceof QueryNotFoundException) {
      return "NOT_FOUND";
    }
    if (e instanceof QueryThrottledException) {
      return "THROTTLED";
    }
    return e.code().name();
  }

  HttpResponseEvent of(int status, String code, String message, int line, int column, String queryId) {
    ObjectNode root = mapper.createObjectNode();
    if (queryId != null) {
      root.put("queryId", queryId);
    }
    ObjectNode error = root.putObject("error");
    error.put("code", code);
    error.put("message", message);
    if (line > 0) {
      error.put("line", line);
      error.put("column", column);
    }
    return HttpResponseEvent.json(status, root.toString());
  }

  static int statusOf(SquallException e) {
    if (e instanceof RequestTooLargeException) {
      return 413;
    }
    if (e instanceof QueryNotFoundException) {
      return 404;
    }
    if (e instanceof QueryNotFinishedException) {
      return 409;
    }
    if (e instanceof QueryThrottledException) {
      return 429;
    }
    ErrorCode code = e.code();
    return switch (code) {
      case USER_ERROR -> 400;
      case INSUFFICIENT_RESOURCES -> 503;
      case EXTERNAL, MISSING_SHUFFLE_OUTPUT -> 502;
      case CANCELLED -> 409;
      case TIMEOUT -> 504;
      default -> 500;
    };
  }
}

package dev.squall.coordinator.api;

import dev.squall.proto.v1.ErrorCode;

/** No job has this id (never submitted, or past its retention). Answered with HTTP 404. */
public final class QueryNotFoundException extends SquallException {
  public QueryNotFoundException(String queryId) {
    super(ErrorCode.USER_ERROR, "no query with id " + queryId);
  }
}

package dev.squall.coordinator.api;

import dev.squall.proto.v1.ErrorCode;

/** The job has no result yet: it is still in the named state. Answered with HTTP 409. */
public final class QueryNotFinishedException extends SquallException {
  public QueryNotFinishedException(String queryId, String state) {
    super(ErrorCode.USER_ERROR, "query " + queryId + " has not finished: it is " + state);
  }
}

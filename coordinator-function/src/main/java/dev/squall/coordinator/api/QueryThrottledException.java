package dev.squall.coordinator.api;

import dev.squall.proto.v1.ErrorCode;

/**
 * A submission refused because as many queries run as the deployment admits at once
 * ({@code SQUALL_MAX_RUNNING_QUERIES}); no job was created. Answered with HTTP 429, code
 * {@code THROTTLED}, as API Gateway answers a throttled request, so that clients send it again
 * later.
 */
public final class QueryThrottledException extends SquallException {
  /** @param running the cap on running queries that was reached */
  public QueryThrottledException(int running) {
    super(ErrorCode.INSUFFICIENT_RESOURCES, running + " queries are running, as many as this deployment runs at once;"
        + " try again later");
  }
}

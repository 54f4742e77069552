package dev.squall.coordinator.api;

import dev.squall.proto.v1.ErrorCode;

/** A request over a size limit; answered with HTTP 413. The message names the size and the limit. */
public final class RequestTooLargeException extends SquallException {
  public RequestTooLargeException(String what, long bytes, long limit) {
    super(ErrorCode.INSUFFICIENT_RESOURCES, String.format("%s is %d bytes; the limit is %d bytes", what, bytes, limit));
  }
}

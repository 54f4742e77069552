package dev.squall.local.lambda;

import java.util.Optional;

/**
 * The outcome of running a function once, as the Invoke API reports it.
 *
 * @param payload the response body: the handler's bytes, or the JSON error document
 * @param functionError {@code Unhandled} if the function failed or timed out, else empty
 */
record InvocationResult(byte[] payload, Optional<String> functionError) {
  static InvocationResult success(byte[] payload) {
    return new InvocationResult(payload, Optional.empty());
  }

  static InvocationResult unhandled(byte[] errorPayload) {
    return new InvocationResult(errorPayload, Optional.of("Unhandled"));
  }

  boolean failed() {
    return functionError.isPresent();
  }
}

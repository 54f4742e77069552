package dev.squall.local.lambda;

/**
 * The in-process function contract: what a Squall function (coordinator or task) implements so
 * that {@link LambdaEmulator} can run it on a worker thread, as AWS Lambda would run it in a sandbox.
 *
 * <p>The payload is the request body of the Invoke call, byte for byte (for a function taking
 * {@link PayloadFormat#JSON} it has been checked to be one JSON value). The returned bytes are the
 * Invoke response body; {@code null} is returned to the caller as {@code null}, as the AWS Java
 * runtime does.
 *
 * <p>A handler that throws becomes a function error: the caller gets HTTP 200 with
 * {@code X-Amz-Function-Error: Unhandled} and a JSON body naming the exception. A handler that runs
 * past its timeout is interrupted; long loops should poll {@link InvocationContext#isCancelled()}.
 */
@FunctionalInterface
public interface LambdaHandler {
  /**
   * Handles one invocation.
   *
   * @param payload the request payload, never {@code null} (an empty JSON request is {@code {}})
   * @param context the invocation's identity, memory limit and deadline
   * @return the response payload (at most 6,291,456 bytes, else the caller gets a function error)
   * @throws Exception any failure; reported to the caller as an unhandled function error
   */
  byte[] handle(byte[] payload, InvocationContext context) throws Exception;
}

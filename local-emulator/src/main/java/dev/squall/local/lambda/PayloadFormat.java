package dev.squall.local.lambda;

/** What request payloads a function accepts. */
public enum PayloadFormat {
  /**
   * One JSON value, as AWS Lambda requires of every Invoke payload. Anything else is refused with
   * 400 {@code InvalidRequestContentException} before the function runs.
   */
  JSON,
  /**
   * Any bytes. Not possible on AWS; only for in-process functions whose callers never go through
   * AWS (for example benchmarks of raw payload transfer).
   */
  BINARY
}

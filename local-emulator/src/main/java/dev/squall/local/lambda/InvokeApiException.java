package dev.squall.local.lambda;

import java.util.Map;

/**
 * A failure of the Invoke API itself (not of the function), carried to the HTTP layer and written
 * by {@link InvokeErrorWriter} in the REST-JSON error shape that the AWS SDK maps to typed
 * exceptions: status code, header {@code x-amzn-ErrorType: <errorType>}, body
 * {@code {"Type":"User","message":...}} plus any extra fields.
 *
 * <p>Error types and status codes follow the AWS Lambda API reference for {@code Invoke}.
 */
public final class InvokeApiException extends RuntimeException {
  private final int status;
  private final String errorType;
  private final Map<String, Object> extraFields;

  private InvokeApiException(int status, String errorType, String message, Map<String, Object> extraFields) {
    super(message);
    this.status = status;
    this.errorType = errorType;
    this.extraFields = Map.copyOf(extraFields);
  }

  /** 404: no function (or version) by that name. */
  public static InvokeApiException resourceNotFound(String functionArn) {
    return new InvokeApiException(404, "ResourceNotFoundException", "Function not found: " + functionArn, Map.of());
  }

  /** 413: the request payload is above the limit for its invocation type. */
  public static InvokeApiException requestTooLarge(long sizeBytes, long limitBytes) {
    return new InvokeApiException(413, "RequestTooLargeException",
        "Request must be smaller than " + limitBytes + " bytes for the InvokeFunction operation (got "
            + sizeBytes + " bytes)", Map.of());
  }

  /** 400: the payload is not what the function accepts (e.g. not JSON). */
  public static InvokeApiException invalidRequestContent(String detail) {
    return new InvokeApiException(400, "InvalidRequestContentException", detail, Map.of());
  }

  /** 400: a request parameter is invalid. */
  public static InvokeApiException invalidParameterValue(String detail) {
    return new InvokeApiException(400, "InvalidParameterValueException", detail, Map.of());
  }

  /**
   * 429: the function is at its concurrency limit.
   *
   * @param reason an AWS {@code ThrottleReason}, e.g. {@code ReservedFunctionConcurrentInvocationLimitExceeded}
   */
  public static InvokeApiException tooManyRequests(String reason) {
    return new InvokeApiException(429, "TooManyRequestsException", "Rate Exceeded.", Map.of("Reason", reason));
  }

  /** 404: no operation at this method and path. */
  public static InvokeApiException unknownOperation(String method, String path) {
    return new InvokeApiException(404, "UnknownOperationException",
        "Unknown operation: " + method + " " + path + " (only POST /2015-03-31/functions/{name}/invocations)", Map.of());
  }

  /** 500: the emulator itself failed. */
  public static InvokeApiException service(String detail) {
    return new InvokeApiException(500, "ServiceException", detail, Map.of());
  }

  /** HTTP status code. */
  public int status() {
    return status;
  }

  /** The AWS error code, e.g. {@code ResourceNotFoundException}. */
  public String errorType() {
    return errorType;
  }

  /** Fields added to the JSON body besides {@code Type} and {@code message}. */
  public Map<String, Object> extraFields() {
    return extraFields;
  }
}

package dev.squall.local.lambda;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A function the emulator can run: its name, in-process handler and the configuration AWS Lambda
 * would hold for it.
 *
 * @param name function name, 1 to 64 characters of {@code [A-Za-z0-9_-]} (as on AWS)
 * @param handler the code that runs on each invocation
 * @param memoryMb memory in MB, 128 to 10240 (reported to the handler, not enforced)
 * @param timeout maximum run time of one invocation, above zero and at most 900 s (AWS allows
 *     1 s upwards; shorter values are accepted here so that tests run fast)
 * @param reservedConcurrency maximum concurrent invocations of this function, 0 or more (0 throttles
 *     every invocation, as on AWS), or {@link #UNRESERVED} to share the emulator's account limit
 * @param payloadFormat which request payloads the function accepts
 */
public record FunctionDefinition(
    String name, LambdaHandler handler, int memoryMb, Duration timeout, int reservedConcurrency,
    PayloadFormat payloadFormat) {
  /** {@link #reservedConcurrency} value meaning "no reservation: bounded by the account limit". */
  public static final int UNRESERVED = -1;
  /** AWS's default memory size. */
  public static final int DEFAULT_MEMORY_MB = 128;
  /** AWS's default timeout. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(3);

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");
  private static final Duration MAX_TIMEOUT = Duration.ofSeconds(900);

  public FunctionDefinition {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(handler, "handler");
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(payloadFormat, "payloadFormat");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("Invalid function name: '" + name + "' (1 to 64 of A-Z a-z 0-9 _ -)");
    }
    if (memoryMb < 128 || memoryMb > 10240) {
      throw new IllegalArgumentException("Invalid memory size for " + name + ": " + memoryMb + " MB (128 to 10240)");
    }
    if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(MAX_TIMEOUT) > 0) {
      throw new IllegalArgumentException("Invalid timeout for " + name + ": " + timeout + " (above 0, at most 900 s)");
    }
    if (reservedConcurrency < UNRESERVED) {
      throw new IllegalArgumentException(
          "Invalid reserved concurrency for " + name + ": " + reservedConcurrency + " (0 or more, or UNRESERVED)");
    }
  }

  /** A JSON function with AWS's defaults: 128 MB, 3 s timeout, no reserved concurrency. */
  public static FunctionDefinition of(String name, LambdaHandler handler) {
    return new FunctionDefinition(name, handler, DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT, UNRESERVED, PayloadFormat.JSON);
  }

  /** This definition with another memory size in MB. */
  public FunctionDefinition withMemoryMb(int memoryMb) {
    return new FunctionDefinition(name, handler, memoryMb, timeout, reservedConcurrency, payloadFormat);
  }

  /** This definition with another timeout. */
  public FunctionDefinition withTimeout(Duration timeout) {
    return new FunctionDefinition(name, handler, memoryMb, timeout, reservedConcurrency, payloadFormat);
  }

  /** This definition with another reserved concurrency ({@link #UNRESERVED} for none). */
  public FunctionDefinition withReservedConcurrency(int reservedConcurrency) {
    return new FunctionDefinition(name, handler, memoryMb, timeout, reservedConcurrency, payloadFormat);
  }

  /** This definition with another payload format. */
  public FunctionDefinition withPayloadFormat(PayloadFormat payloadFormat) {
    return new FunctionDefinition(name, handler, memoryMb, timeout, reservedConcurrency, payloadFormat);
  }
}

package dev.squall.cli;

import dev.squall.cli.local.ScaleEmulation;
import dev.squall.local.lambda.ScaleModel;
import dev.squall.local.s3.S3RequestModel;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * The options of {@code squall local} that model Lambda and S3 at scale (docs/configuration.md,
 * "Local scale model"); all off unless given.
 */
final class ScaleOptions {
  @Option(names = "--lambda-cold-start-ms", paramLabel = "MS", defaultValue = "0",
      description = "Delay of an invocation that needs a new execution environment (default: ${DEFAULT-VALUE}).")
  long coldStartMs;

  @Option(names = "--lambda-latency-ms", paramLabel = "MS", defaultValue = "0",
      description = "Delay added to every Lambda invocation (default: ${DEFAULT-VALUE}).")
  long latencyMs;

  @Option(names = "--lambda-scaling", paramLabel = "N/SECONDS",
      description = "New execution environments a function may add per period, e.g. 1000/10 as Lambda; beyond it Invoke answers 429.")
  String scaling;

  @Option(names = "--account-concurrency", paramLabel = "N", defaultValue = "0",
      description = "The emulated account's unreserved Lambda concurrency, shared by tasks and invokers; the coordinator's"
          + " reserved concurrency (--coordinator-concurrency) is apart from it (default: none beyond --task-concurrency).")
  int accountConcurrency;

  @Option(names = "--s3-latency-ms", paramLabel = "MS", defaultValue = "0", description = "Delay of every S3 request (default: ${DEFAULT-VALUE}).")
  long s3LatencyMs;

  @Option(names = "--s3-prefix-rates", paramLabel = "WRITES/READS",
      description = "Requests per second per prefix beyond which S3 answers 503 SlowDown, e.g. 3500/5500 as S3.")
  String s3PrefixRates;

  /**
   * The scale emulation these options describe.
   *
   * @throws IllegalArgumentException naming the option and the expected form for a bad value
   */
  ScaleEmulation toEmulation() {
    if (coldStartMs < 0 || latencyMs < 0 || s3LatencyMs < 0 || accountConcurrency < 0) {
      throw new IllegalArgumentException("--lambda-cold-start-ms, --lambda-latency-ms, --s3-latency-ms and "
          + "--account-concurrency must be 0 or more");
    }
    long[] scale = pair("--lambda-scaling", scaling, "N/SECONDS", new long[] {0, 10});
    long[] rates = pair("--s3-prefix-rates", s3PrefixRates, "WRITES/READS", new long[] {0, 0});
    if (scaling != null && (scale[0] < 1 || scale[1] < 1)) {
      throw new IllegalArgumentException("--lambda-scaling needs at least 1 environment per at least 1 second, not " + scaling);
    }
    ScaleModel lambda = new ScaleModel(Duration.ofMillis(coldStartMs), Duration.ofMillis(latencyMs), (int) scale[0],
        Duration.ofSeconds(scale[1]));
    return ScaleEmulation.OFF.withLambda(lambda, accountConcurrency)
        .withS3(new S3RequestModel(Duration.ofMillis(s3LatencyMs), (int) rates[0], (int) rates[1]));
  }

  private static long[] pair(String option, String value, String form, long[] unset) {
    if (value == null) {
      return unset;
    }
    String[] parts = value.split("/");
    try {
      if (parts.length == 2) {
        long a = Long.parseLong(parts[0].trim());
        long b = Long.parseLong(parts[1].trim());
        if (a >= 0 && b >= 0 && a <= Integer.MAX_VALUE && b <= Integer.MAX_VALUE) {
          return new long[] {a, b};
        }
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw new IllegalArgumentException(option + " takes " + form + " (two whole numbers, 0 or more), not " + value);
  }
}

package dev.squall.cli.local;

import dev.squall.coordinator.scheduler.FanOutSettings;
import dev.squall.local.lambda.LambdaEmulator;
import dev.squall.local.lambda.ScaleModel;
import dev.squall.local.s3.S3RequestModel;
import java.util.Objects;

/**
 * How the local stack models AWS at scale, and how its coordinator fans out; everything off or at
 * its default unless set (docs/configuration.md, "Local scale model").
 *
 * @param lambda cold starts, invocation latency and scaling rate of the Lambda emulator
 * @param accountConcurrency the emulated account's unreserved concurrency (Lambda's default limit is
 *     1,000); the task function then has no reserved concurrency but shares this limit with the
 *     invokers of two-level invocation, and the stack's task slots are at most this many; the
 *     coordinator's reserved concurrency comes on top of it; 0 keeps the task function's reserved
 *     concurrency (the stack's task concurrency), as without a model
 * @param s3 request latency and per-prefix request rates of the embedded S3
 * @param fanOut the coordinator's two-level invocation
 * @param minSplitBytes the smallest split size and bytes per task a query may ask for (64 KiB
 *     unless a test wants thousands of tasks from tiny data)
 */
public record ScaleEmulation(ScaleModel lambda, int accountConcurrency, S3RequestModel s3, FanOutSettings fanOut,
    long minSplitBytes) {
  /** No model; two-level invocation at its default threshold. */
  public static final ScaleEmulation OFF = new ScaleEmulation(ScaleModel.OFF, 0, S3RequestModel.OFF,
      new FanOutSettings(FanOutSettings.DEFAULT_THRESHOLD, FanOutSettings.DEFAULT_MAX_INVOKERS),
      LocalDeployment.LOCAL_MIN_SPLIT_BYTES);

  public ScaleEmulation {
    Objects.requireNonNull(lambda, "lambda");
    Objects.requireNonNull(s3, "s3");
    Objects.requireNonNull(fanOut, "fanOut");
    if (accountConcurrency < 0 || minSplitBytes < 1) {
      throw new IllegalArgumentException("account concurrency must be 0 or more and the minimum split at least 1 byte: "
          + accountConcurrency + ", " + minSplitBytes);
    }
  }

  /** With a Lambda model and the account's concurrency limit. */
  public ScaleEmulation withLambda(ScaleModel model, int concurrency) {
    return new ScaleEmulation(model, concurrency, s3, fanOut, minSplitBytes);
  }

  public ScaleEmulation withS3(S3RequestModel model) {
    return new ScaleEmulation(lambda, accountConcurrency, model, fanOut, minSplitBytes);
  }

  public ScaleEmulation withFanOut(FanOutSettings settings) {
    return new ScaleEmulation(lambda, accountConcurrency, s3, settings, minSplitBytes);
  }

  public ScaleEmulation withMinSplitBytes(long bytes) {
    return new ScaleEmulation(lambda, accountConcurrency, s3, fanOut, bytes);
  }

  /** The emulator's account limit: the one given, else Lambda's default. */
  int emulatorAccountConcurrency() {
    return accountConcurrency > 0 ? accountConcurrency : LambdaEmulator.DEFAULT_ACCOUNT_CONCURRENCY;
  }
}

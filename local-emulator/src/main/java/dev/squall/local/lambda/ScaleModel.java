package dev.squall.local.lambda;

import java.time.Duration;
import java.util.Objects;

/**
 * How closely the emulator models Lambda's behaviour at scale; everything is off by default so that
 * ordinary tests run at full speed.
 *
 * <ul>
 *   <li>{@code coldStart}: the extra delay of an invocation that needs a new execution environment
 *       (no idle one of its function is left); an environment becomes idle again when its
 *       invocation ends and is then reused without the delay, as Lambda reuses warm environments;
 *   <li>{@code invocationLatency}: added to every invocation before the handler runs (Lambda's
 *       own request overhead, a few to tens of milliseconds);
 *   <li>{@code scalingBurst} and {@code scalingPeriod}: how fast a function may add environments.
 *       Lambda lets each function add 1,000 execution environments every 10 seconds
 *       (AWS Lambda Developer Guide, "Lambda scaling behavior"); here a token bucket holding
 *       {@code scalingBurst} new environments refills at {@code scalingBurst / scalingPeriod}, and an
 *       invocation that needs a new environment when the bucket is empty is throttled with 429
 *       {@code TooManyRequestsException}, as on AWS. A burst of 0 means no scaling limit.
 * </ul>
 *
 * <p>The account concurrency limit is the emulator's other throttle ({@link LambdaEmulator#start(int,
 * java.util.List, int, ScaleModel)}).
 *
 * @param coldStart delay of a new execution environment, zero or more
 * @param invocationLatency delay of every invocation, zero or more
 * @param scalingBurst new environments a function may add at once (0: unlimited)
 * @param scalingPeriod time in which a function may add {@code scalingBurst} environments
 */
public record ScaleModel(Duration coldStart, Duration invocationLatency, int scalingBurst, Duration scalingPeriod) {
  /** No delays, no scaling limit. */
  public static final ScaleModel OFF = new ScaleModel(Duration.ZERO, Duration.ZERO, 0, Duration.ofSeconds(10));

  public ScaleModel {
    Objects.requireNonNull(coldStart, "coldStart");
    Objects.requireNonNull(invocationLatency, "invocationLatency");
    Objects.requireNonNull(scalingPeriod, "scalingPeriod");
    if (coldStart.isNegative() || invocationLatency.isNegative()) {
      throw new IllegalArgumentException("cold start and invocation latency must be zero or more: " + coldStart
          + ", " + invocationLatency);
    }
    if (scalingBurst < 0 || scalingPeriod.isNegative() || scalingPeriod.isZero()) {
      throw new IllegalArgumentException("scaling rate must be 0 or more environments per positive period: "
          + scalingBurst + " per " + scalingPeriod);
    }
  }

  /** Lambda's published scaling rate (1,000 new environments per function every 10 s) with the given delays. */
  public static ScaleModel lambdaLike(Duration coldStart, Duration invocationLatency) {
    return new ScaleModel(coldStart, invocationLatency, 1000, Duration.ofSeconds(10));
  }

  /** This model with another scaling rate. */
  public ScaleModel withScaling(int burst, Duration period) {
    return new ScaleModel(coldStart, invocationLatency, burst, period);
  }

  /** Whether the scaling rate is limited. */
  boolean limitsScaling() {
    return scalingBurst > 0;
  }
}

package dev.squall.local.lambda;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The execution environments of each function under a {@link ScaleModel}: idle (warm) ones are
 * reused; a new one costs the cold-start delay and a token of the function's scaling bucket, and
 * without a token the invocation is throttled (429), as Lambda throttles a function that scales
 * faster than its scaling rate.
 */
final class ExecutionEnvironments {
  private final ScaleModel model;
  private final Map<String, FunctionEnvironments> functions = new HashMap<>();

  ExecutionEnvironments(ScaleModel model) {
    this.model = model;
  }

  /**
   * Takes an environment for one invocation of {@code function}.
   *
   * @return the delay before the handler runs: the invocation latency, plus the cold start for a new environment
   * @throws InvokeApiException 429 when a new environment is needed and the scaling rate allows none now
   */
  synchronized Duration take(String function) {
    FunctionEnvironments f = functions.computeIfAbsent(function, n -> new FunctionEnvironments(model, System.nanoTime()));
    if (f.idle > 0) {
      f.idle--;
      return model.invocationLatency();
    }
    if (model.limitsScaling() && !f.tryAddEnvironment(System.nanoTime())) {
      throw InvokeApiException.tooManyRequests("FunctionScalingRateExceeded");
    }
    f.created++;
    return model.invocationLatency().plus(model.coldStart());
  }

  /** The invocation has ended: its environment is idle and will be reused. */
  synchronized void release(String function) {
    FunctionEnvironments f = functions.get(function);
    if (f != null) {
      f.idle++;
    }
  }

  /** Environments a function has created so far (idle or busy). */
  synchronized int created(String function) {
    FunctionEnvironments f = functions.get(function);
    return f == null ? 0 : f.created;
  }

  private static final class FunctionEnvironments {
    final double capacity;
    final double tokensPerNano;
    double tokens;
    long refilledAt;
    int idle;
    int created;

    FunctionEnvironments(ScaleModel model, long now) {
      this.capacity = model.scalingBurst();
      this.tokensPerNano = model.scalingBurst() / (double) model.scalingPeriod().toNanos();
      this.tokens = capacity;
      this.refilledAt = now;
    }

    boolean tryAddEnvironment(long now) {
      tokens = Math.min(capacity, tokens + (now - refilledAt) * tokensPerNano);
      refilledAt = now;
      if (tokens < 1) {
        return false;
      }
      tokens -= 1;
      return true;
    }
  }
}

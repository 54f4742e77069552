package dev.squall.coordinator.cost;

import java.util.Map;

/**
 * What a query's cost is computed with.
 *
 * @param prices the unit prices
 * @param coordinatorMemoryMb the coordinator function's configured memory (GB-seconds of its time)
 * @param taskMemoryMb the task function's configured memory, used for attempts that did not report theirs
 */
public record CostSettings(PriceTable prices, int coordinatorMemoryMb, int taskMemoryMb) {
  /** Default prices, a 3008 MB coordinator and 2048 MB tasks. */
  public static final CostSettings DEFAULT = new CostSettings(PriceTable.DEFAULT, 3008, 2048);

  /**
   * From the coordinator's environment: {@link PriceTable#fromEnv}, its own memory from Lambda's
   * {@code AWS_LAMBDA_FUNCTION_MEMORY_SIZE} (3008 when unset).
   */
  public static CostSettings fromEnv(Map<String, String> env, long taskMemoryMb) {
    int coordinator = 3008;
    try {
      coordinator = Integer.parseInt(env.getOrDefault("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "3008").trim());
    } catch (NumberFormatException e) {
      // Lambda always sets it; a local run keeps the default.
    }
    return new CostSettings(PriceTable.fromEnv(env), coordinator, (int) taskMemoryMb);
  }
}

package dev.squall.coordinator;

import dev.squall.coordinator.api.SquallException;
import dev.squall.planner.PlannerSettings;
import java.util.Map;

/**
 * Per-query settings a request may give in {@code "properties"}:
 * {@code broadcast_threshold_bytes}, {@code target_split_size_bytes}, {@code target_bytes_per_task},
 * {@code max_tasks_per_stage}, {@code default_schema}. Unknown names and bad values are refused.
 */
public final class QueryProperties {
  private QueryProperties() {}

  public static PlannerSettings apply(PlannerSettings base, Map<String, String> properties) {
    PlannerSettings s = base;
    for (Map.Entry<String, String> e : properties.entrySet()) {
      String v = e.getValue();
      s = switch (e.getKey()) {
        case "broadcast_threshold_bytes" -> s.withBroadcastThresholdBytes(positive(e.getKey(), v));
        case "target_split_size_bytes" -> s.withTargetSplitSizeBytes(positive(e.getKey(), v));
        case "target_bytes_per_task" -> s.withTargetBytesPerTask(positive(e.getKey(), v));
        case "max_tasks_per_stage" -> s.withMaxTasksPerStage((int) positive(e.getKey(), v));
        case "default_schema" -> s.withDefaultSchema(v);
        default -> throw SquallException.userError("unknown query property '%s'", e.getKey());
      };
    }
    return s;
  }

  private static long positive(String name, String value) {
    try {
      long n = Long.parseLong(value.trim());
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw SquallException.userError("query property '%s' must be a positive integer, got '%s'", name, value);
  }
}

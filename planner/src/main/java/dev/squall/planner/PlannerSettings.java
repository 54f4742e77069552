package dev.squall.planner;

import java.util.List;
import java.util.Objects;

/**
 * Knobs of the distributed planner. Immutable; build with {@link #defaults()} and the
 * {@code with*} methods.
 *
 * @param defaultSchema Iceberg namespace used for unqualified table names (e.g. {@code "tpch"});
 *     may be empty, then every table name must be qualified
 * @param broadcastThresholdBytes a join side whose estimated size is at most this many bytes is
 *     broadcast to every task of the other side instead of hash-partitioning both sides
 * @param targetSplitSizeBytes Iceberg {@code read.split.target-size} for scan planning: roughly the
 *     bytes of data files one leaf task reads
 * @param targetBytesPerTask estimated input bytes per task of a non-leaf stage; decides task counts
 *     and hash partition counts
 * @param maxTasksPerStage upper bound of any stage's task count (and of hash partitions)
 */
public record PlannerSettings(
    String defaultSchema,
    long broadcastThresholdBytes,
    long targetSplitSizeBytes,
    long targetBytesPerTask,
    int maxTasksPerStage) {

  public PlannerSettings {
    Objects.requireNonNull(defaultSchema, "defaultSchema");
    if (broadcastThresholdBytes < 0) {
      throw new IllegalArgumentException("Invalid broadcast threshold: " + broadcastThresholdBytes);
    }
    if (targetSplitSizeBytes <= 0) {
      throw new IllegalArgumentException("Invalid target split size: " + targetSplitSizeBytes);
    }
    if (targetBytesPerTask <= 0) {
      throw new IllegalArgumentException("Invalid target bytes per task: " + targetBytesPerTask);
    }
    if (maxTasksPerStage < 1) {
      throw new IllegalArgumentException("Invalid max tasks per stage: " + maxTasksPerStage);
    }
  }

  /** 32 MiB broadcast threshold, 128 MiB splits, 256 MiB per task, at most 1000 tasks a stage. */
  public static PlannerSettings defaults() {
    return new PlannerSettings("", 32L << 20, 128L << 20, 256L << 20, 1000);
  }

  public PlannerSettings withDefaultSchema(String schema) {
    return new PlannerSettings(schema, broadcastThresholdBytes, targetSplitSizeBytes, targetBytesPerTask, maxTasksPerStage);
  }

  public PlannerSettings withBroadcastThresholdBytes(long bytes) {
    return new PlannerSettings(defaultSchema, bytes, targetSplitSizeBytes, targetBytesPerTask, maxTasksPerStage);
  }

  public PlannerSettings withTargetSplitSizeBytes(long bytes) {
    return new PlannerSettings(defaultSchema, broadcastThresholdBytes, bytes, targetBytesPerTask, maxTasksPerStage);
  }

  public PlannerSettings withTargetBytesPerTask(long bytes) {
    return new PlannerSettings(defaultSchema, broadcastThresholdBytes, targetSplitSizeBytes, bytes, maxTasksPerStage);
  }

  public PlannerSettings withMaxTasksPerStage(int tasks) {
    return new PlannerSettings(defaultSchema, broadcastThresholdBytes, targetSplitSizeBytes, targetBytesPerTask, tasks);
  }

  /** The default schema as a Calcite schema path (empty when none). */
  public List<String> defaultSchemaPath() {
    return defaultSchema.isEmpty() ? List.of() : List.of(defaultSchema.split("\\."));
  }
}

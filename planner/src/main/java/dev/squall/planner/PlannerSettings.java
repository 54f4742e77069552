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
 * @param maxNestedLoopJoinRows most rows (row pairs, before the join condition) a nested-loop join
 *     may form in one task; 0 for no cap. Written into every {@code NestedLoopJoin} of the plan.
 * @param minRetention the shortest {@code retention_threshold} that {@code expire_snapshots} and
 *     {@code remove_orphan_files} accept (Trino's {@code iceberg.expire-snapshots.min-retention} and
 *     {@code iceberg.remove-orphan-files.min-retention}, both 7 days by default); the query property
 *     {@value #MIN_RETENTION_PROPERTY} sets it
 * @param replicatedScanMaxBytes a broadcast join side that only scans tables (scans, filters,
 *     projections and joins of them) whose data files total at most this many bytes is scanned by
 *     every task of the other side's stage (a replicated scan) instead of in a stage of its own;
 *     0 turns this off
 */
public record PlannerSettings(
    String defaultSchema,
    long broadcastThresholdBytes,
    long targetSplitSizeBytes,
    long targetBytesPerTask,
    int maxTasksPerStage,
    long maxNestedLoopJoinRows,
    java.time.Duration minRetention,
    long replicatedScanMaxBytes) {

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
    if (maxNestedLoopJoinRows < 0) {
      throw new IllegalArgumentException("Invalid max nested-loop join rows: " + maxNestedLoopJoinRows);
    }
    if (minRetention == null || minRetention.isNegative()) {
      throw new IllegalArgumentException("Invalid minimum retention: " + minRetention);
    }
    if (replicatedScanMaxBytes < 0) {
      throw new IllegalArgumentException("Invalid replicated scan bound: " + replicatedScanMaxBytes);
    }
  }

  /** The settings as before, with data-file bytes up to which a broadcast side is scanned in every probe task. */
  public PlannerSettings(String defaultSchema, long broadcastThresholdBytes, long targetSplitSizeBytes,
      long targetBytesPerTask, int maxTasksPerStage, long maxNestedLoopJoinRows, java.time.Duration minRetention) {
    this(defaultSchema, broadcastThresholdBytes, targetSplitSizeBytes, targetBytesPerTask, maxTasksPerStage,
        maxNestedLoopJoinRows, minRetention, DEFAULT_REPLICATED_SCAN_MAX_BYTES);
  }

  /**
   * Data-file bytes up to which a broadcast join side that only scans tables is scanned by every
   * task of the probe stage instead of in a stage of its own: 1 MiB (TPC-H's nation, region, and
   * supplier up to scale factor 2).
   */
  public static final long DEFAULT_REPLICATED_SCAN_MAX_BYTES = 1L << 20;

  public PlannerSettings withReplicatedScanMaxBytes(long bytes) {
    return new PlannerSettings(defaultSchema, broadcastThresholdBytes, targetSplitSizeBytes, targetBytesPerTask,
        maxTasksPerStage, maxNestedLoopJoinRows, minRetention, bytes);
  }

  /**
   * 32 MiB broadcast threshold, 128 MiB splits, 256 MiB per task, at most 1000 tasks a stage,
   * 100 million nested-loop join rows a task.
   */
  public static PlannerSettings defaults() {
    return new PlannerSettings("", 32L << 20, 128L << 20, 256L << 20, 1000, DEFAULT_MAX_NESTED_LOOP_JOIN_ROWS,
        DEFAULT_MIN_RETENTION);
  }

  /** Shortest retention of the table procedures unless a query says otherwise: 7 days, as Trino's. */
  public static final java.time.Duration DEFAULT_MIN_RETENTION = java.time.Duration.ofDays(7);

  /** The query property that sets {@link #minRetention}, e.g. {@code '1d'}. */
  public static final String MIN_RETENTION_PROPERTY = "table_procedure_min_retention";

  public PlannerSettings withMinRetention(java.time.Duration retention) {
    return new PlannerSettings(defaultSchema, broadcastThresholdBytes, targetSplitSizeBytes, targetBytesPerTask,
        maxTasksPerStage, maxNestedLoopJoinRows, retention, replicatedScanMaxBytes);
  }

  /** Rows a nested-loop join may form in one task unless a query says otherwise. */
  public static final long DEFAULT_MAX_NESTED_LOOP_JOIN_ROWS = 100_000_000L;

  public PlannerSettings withMaxNestedLoopJoinRows(long rows) {
    return new PlannerSettings(defaultSchema, broadcastThresholdBytes, targetSplitSizeBytes, targetBytesPerTask,
        maxTasksPerStage, rows, minRetention, replicatedScanMaxBytes);
  }

  public PlannerSettings withDefaultSchema(String schema) {
    return new PlannerSettings(schema, broadcastThresholdBytes, targetSplitSizeBytes, targetBytesPerTask, maxTasksPerStage, maxNestedLoopJoinRows, minRetention, replicatedScanMaxBytes);
  }

  public PlannerSettings withBroadcastThresholdBytes(long bytes) {
    return new PlannerSettings(defaultSchema, bytes, targetSplitSizeBytes, targetBytesPerTask, maxTasksPerStage, maxNestedLoopJoinRows, minRetention, replicatedScanMaxBytes);
  }

  public PlannerSettings withTargetSplitSizeBytes(long bytes) {
    return new PlannerSettings(defaultSchema, broadcastThresholdBytes, bytes, targetBytesPerTask, maxTasksPerStage, maxNestedLoopJoinRows, minRetention, replicatedScanMaxBytes);
  }

  public PlannerSettings withTargetBytesPerTask(long bytes) {
    return new PlannerSettings(defaultSchema, broadcastThresholdBytes, targetSplitSizeBytes, bytes, maxTasksPerStage, maxNestedLoopJoinRows, minRetention, replicatedScanMaxBytes);
  }

  public PlannerSettings withMaxTasksPerStage(int tasks) {
    return new PlannerSettings(defaultSchema, broadcastThresholdBytes, targetSplitSizeBytes, targetBytesPerTask, tasks, maxNestedLoopJoinRows, minRetention, replicatedScanMaxBytes);
  }

  /** Property keys understood by {@link #withProperties}. */
  public static final String DEFAULT_SCHEMA = "planner.default-schema";
  public static final String BROADCAST_THRESHOLD_BYTES = "planner.broadcast-threshold-bytes";
  public static final String TARGET_SPLIT_SIZE_BYTES = "planner.target-split-size-bytes";
  public static final String TARGET_BYTES_PER_TASK = "planner.target-bytes-per-task";
  public static final String MAX_TASKS_PER_STAGE = "planner.max-tasks-per-stage";
  public static final String REPLICATED_SCAN_MAX_BYTES = "planner.replicated-scan-max-bytes";

  /**
   * These settings overridden by query properties (e.g. QueryRequest.properties). Keys outside
   * the {@code planner.} prefix are ignored.
   *
   * @throws IllegalArgumentException naming an unknown {@code planner.} key or a value that is not
   *     a valid number for its key
   */
  public PlannerSettings withProperties(java.util.Map<String, String> properties) {
    PlannerSettings s = this;
    for (var e : properties.entrySet()) {
      String key = e.getKey();
      String value = e.getValue();
      if (!key.startsWith("planner.")) {
        continue;
      }
      s = switch (key) {
        case DEFAULT_SCHEMA -> s.withDefaultSchema(value);
        case BROADCAST_THRESHOLD_BYTES -> s.withBroadcastThresholdBytes(number(key, value));
        case TARGET_SPLIT_SIZE_BYTES -> s.withTargetSplitSizeBytes(number(key, value));
        case TARGET_BYTES_PER_TASK -> s.withTargetBytesPerTask(number(key, value));
        case MAX_TASKS_PER_STAGE -> s.withMaxTasksPerStage((int) number(key, value));
        case REPLICATED_SCAN_MAX_BYTES -> s.withReplicatedScanMaxBytes(number(key, value));
        default -> throw new IllegalArgumentException("Unknown planner property: " + key);
      };
    }
    return s;
  }

  private static long number(String key, String value) {
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("Invalid value for " + key + ": '" + value + "' is not a whole number");
    }
  }

  /** The default schema as a Calcite schema path (empty when none). */
  public List<String> defaultSchemaPath() {
    return defaultSchema.isEmpty() ? List.of() : List.of(defaultSchema.split("\\."));
  }
}

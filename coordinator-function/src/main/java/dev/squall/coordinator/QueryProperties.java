package dev.squall.coordinator;

import dev.squall.coordinator.api.SquallException;
import dev.squall.coordinator.job.SlotPriority;
import dev.squall.coordinator.scheduler.Pipelining;
import dev.squall.coordinator.scheduler.TaskTiers;
import dev.squall.planner.PlannerSettings;
import dev.squall.planner.stage.CombiningExchanges;
import dev.squall.proto.v1.StageGraph;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.BiFunction;

/**
 * Per-query settings a request may give in {@code "properties"}, each with a documented range
 * whose ends are hard caps on what one query may cost (docs/api.md lists them; defaults of
 * {@link Limits}):
 *
 * <ul>
 *   <li>{@code broadcast_threshold_bytes} 0 .. 512 MiB (a broadcast side is read by every task);
 *   <li>{@code replicated_scan_max_bytes} 0 .. 64 MiB (1 MiB unless given): a broadcast side that
 *       only scans tables with at most this many bytes of data files is scanned in every task of
 *       the other side's stage instead of in a stage of its own; 0 turns it off;
 *   <li>{@code target_split_size_bytes} 1 MiB .. 4 GiB (a smaller split would start a Lambda per
 *       row group);
 *   <li>{@code target_bytes_per_task} 1 MiB .. 64 GiB;
 *   <li>{@code max_tasks_per_stage} 1 .. 10,000;
 *   <li>{@code max_total_tasks} 1 .. 100,000 (tasks of all stages of the job; 20,000 unless given);
 *   <li>{@code max_nested_loop_join_rows} 1 .. 10 billion (rows a nested-loop join, such as a cross
 *       join, may form in one task; 100 million unless given);
 *   <li>{@code max_concurrent_tasks} 1 .. 10,000 (the job's task invocations running at once,
 *       across every coordinator invocation that runs it; unless given, only the account-wide cap
 *       applies);
 *   <li>{@code priority} 1 .. 9 (5 unless given): how the job's task attempts rank for the
 *       account's concurrency slots when they are scarce (higher first);
 *   <li>{@code table_procedure_min_retention} a duration ({@code 7d}, {@code 12h}; 7 days unless given):
 *       the shortest retention_threshold of expire_snapshots and remove_orphan_files;
 *   <li>{@code shuffle_combine} {@code auto}, {@code on} or {@code off}: whether large hash and range
 *       exchanges go through a combiner stage ({@link CombiningExchanges}; auto unless given);
 *   <li>{@code adaptive_target_partition_bytes} 0 .. 64 GiB: shuffle bytes a task reads at about
 *       when a stage's hash partitions are coalesced at run time; 0 turns coalescing off (the
 *       deployment's {@code SQUALL_ADAPTIVE_TARGET_PARTITION_BYTES} unless given);
 *   <li>{@code skew_factor} 0 .. 1000 (5 unless given) and {@code skew_min_partition_bytes} 0 .. 64 GiB
 *       (64 MiB unless given): a join's hash partition over both this many times its side's median
 *       partition and these bytes is split across tasks at run time; factor 0 turns it off;
 *   <li>{@code adaptive_broadcast_join_bytes} 0 .. 512 MiB (the deployment's upper end of
 *       {@code broadcast_threshold_bytes}): a planned partitioned join whose build side measures at
 *       most this many bytes once finished runs as a broadcast join; 0 turns it off (the query's
 *       {@code broadcast_threshold_bytes} unless given);
 *   <li>{@code scheduling} {@code auto}, {@code pipelined} or {@code staged}: whether consumer stages
 *       start while their producers run ({@link Pipelining}; auto unless given);
 *   <li>{@code task_memory_tier_mb} 1 .. 10,240: every stage starts on the smallest task-size tier
 *       of at least this many MB, whatever its memory estimate ({@link TaskTiers}; by the estimates
 *       unless given);
 *   <li>{@code max_task_memory_tier_mb} 1 .. 10,240: no attempt runs on a task-size tier above this
 *       many MB (the smallest tier when every tier is larger); a memory failure on the largest allowed
 *       tier fails the task (no cap unless given);
 *   <li>{@code runtime_filters} {@code true} or {@code false} (true unless given): whether a selective
 *       join's build-side keys narrow its probe side's scan; {@code runtime_filter_max_keys} 0 ..
 *       1,000,000 (50,000 unless given): distinct keys above which only their range is kept;
 *       {@code runtime_filter_wait_millis} 0 .. 600,000 (30,000 unless given): how long a probe stage
 *       waits for its build stage before it starts without the filter;
 *   <li>{@code default_schema} a namespace of the catalog (checked when the query is planned).
 * </ul>
 *
 * <p>Unknown names, values that are not whole numbers and values outside a range are refused with
 * USER_ERROR naming the property and its range.
 */
public final class QueryProperties {
  private static final long MIB = 1L << 20;

  /** Upper end of {@code max_nested_loop_join_rows}: rows a nested-loop join may form in one task. */
  public static final long MAX_NESTED_LOOP_JOIN_ROWS = 10_000_000_000L;

  /** Tasks of all stages of one job, unless {@code max_total_tasks} says fewer. */
  public static final int DEFAULT_MAX_TOTAL_TASKS = 20_000;

  /**
   * The ranges a deployment allows; their upper ends (and the split size's lower end) are hard
   * caps on what one query may start.
   *
   * @param minSplitSizeBytes lower end of {@code target_split_size_bytes} and {@code target_bytes_per_task}
   * @param maxBroadcastThresholdBytes upper end of {@code broadcast_threshold_bytes}
   * @param maxTasksPerStage upper end of {@code max_tasks_per_stage}
   * @param maxTotalTasks upper end of {@code max_total_tasks}
   */
  public record Limits(long minSplitSizeBytes, long maxBroadcastThresholdBytes, int maxTasksPerStage,
      int maxTotalTasks) {
    /** 1 MiB splits at least, 512 MiB broadcasts, 10,000 tasks a stage, 100,000 a job. */
    public static Limits defaults() {
      return new Limits(MIB, 512 * MIB, 10_000, 100_000);
    }

    /** These limits with another lower bound of split and task sizes (local stacks run tiny data as many tasks). */
    public Limits withMinSplitSizeBytes(long bytes) {
      return new Limits(bytes, maxBroadcastThresholdBytes, maxTasksPerStage, maxTotalTasks);
    }
  }

  /** A numeric property: its range and how it sets the settings. */
  private record Numeric(long min, long max, String unit, BiFunction<Settings, Long, Settings> set) {}

  private static Map<String, Numeric> numeric(Limits limits) {
    Map<String, Numeric> n = new LinkedHashMap<>();
    n.put("broadcast_threshold_bytes", new Numeric(0, limits.maxBroadcastThresholdBytes(), "bytes",
        (s, v) -> s.with(s.planner().withBroadcastThresholdBytes(v))));
    n.put("replicated_scan_max_bytes", new Numeric(0, 64 * MIB, "bytes",
        (s, v) -> s.with(s.planner().withReplicatedScanMaxBytes(v))));
    n.put("target_split_size_bytes", new Numeric(limits.minSplitSizeBytes(), 4096 * MIB, "bytes",
        (s, v) -> s.with(s.planner().withTargetSplitSizeBytes(v))));
    n.put("target_bytes_per_task", new Numeric(limits.minSplitSizeBytes(), 65536 * MIB, "bytes",
        (s, v) -> s.with(s.planner().withTargetBytesPerTask(v))));
    n.put("max_tasks_per_stage", new Numeric(1, limits.maxTasksPerStage(), "tasks",
        (s, v) -> s.with(s.planner().withMaxTasksPerStage(v.intValue()))));
    n.put("max_total_tasks", new Numeric(1, limits.maxTotalTasks(), "tasks",
        (s, v) -> new Settings(s.planner(), v.intValue(), s.maxConcurrentTasks(), s.adaptiveTargetPartitionBytes())));
    n.put("max_nested_loop_join_rows", new Numeric(1, MAX_NESTED_LOOP_JOIN_ROWS, "rows",
        (s, v) -> s.with(s.planner().withMaxNestedLoopJoinRows(v))));
    n.put(MAX_CONCURRENT_TASKS, new Numeric(1, MAX_CONCURRENT_TASKS_CAP, "tasks",
        (s, v) -> new Settings(s.planner(), s.maxTotalTasks(), v.intValue(), s.adaptiveTargetPartitionBytes())));
    n.put(ADAPTIVE_TARGET_PARTITION_BYTES, new Numeric(0, 65536 * MIB, "bytes",
        (s, v) -> new Settings(s.planner(), s.maxTotalTasks(), s.maxConcurrentTasks(), OptionalLong.of(v))));
    // Read by the job driver when it runs the stages (taskTiers()); nothing to set for planning.
    n.put(TASK_MEMORY_TIER_MB, new Numeric(1, 10_240, "MB", (s, v) -> s));
    n.put(MAX_TASK_MEMORY_TIER_MB, new Numeric(1, 10_240, "MB", (s, v) -> s));
    // Read when the job plan is made (skewFactor(), skewMinPartitionBytes()); nothing to set for planning.
    n.put(SKEW_FACTOR, new Numeric(0, 1000, "times the median", (s, v) -> s));
    n.put(SKEW_MIN_PARTITION_BYTES, new Numeric(0, 65536 * MIB, "bytes", (s, v) -> s));
    // Read when the job plan is made (adaptiveBroadcastJoinBytes()); nothing to set for planning.
    n.put(ADAPTIVE_BROADCAST_JOIN_BYTES, new Numeric(0, limits.maxBroadcastThresholdBytes(), "bytes", (s, v) -> s));
    // Read by the job planner onto the plan's runtime filters (runtimeFilters()).
    n.put(RUNTIME_FILTER_MAX_KEYS, new Numeric(0, MAX_RUNTIME_FILTER_KEYS, "keys", (s, v) -> s));
    n.put(RUNTIME_FILTER_WAIT_MILLIS, new Numeric(0, MAX_RUNTIME_FILTER_WAIT_MILLIS, "milliseconds", (s, v) -> s));
    // Read by the job driver when it takes task slots (priority()); nothing to set for planning.
    n.put(PRIORITY, new Numeric(SlotPriority.MIN, SlotPriority.MAX, "levels", (s, v) -> s));
    return n;
  }

  /**
   * The settings a query runs with.
   *
   * @param planner the planner's settings
   * @param maxTotalTasks cap on the tasks of all the job's stages together
   * @param maxConcurrentTasks cap on the job's tasks running at once, or 0 for none beyond the
   *     account's
   * @param adaptiveTargetPartitionBytes shuffle bytes a task of a coalesced stage reads at about (0:
   *     no coalescing); empty when the query leaves it to the deployment
   */
  public record Settings(PlannerSettings planner, int maxTotalTasks, int maxConcurrentTasks,
      OptionalLong adaptiveTargetPartitionBytes) {
    Settings with(PlannerSettings p) {
      return new Settings(p, maxTotalTasks, maxConcurrentTasks, adaptiveTargetPartitionBytes);
    }
  }

  /** The property that sets a query's adaptive coalescing target, 0 turning coalescing off. */
  public static final String ADAPTIVE_TARGET_PARTITION_BYTES = "adaptive_target_partition_bytes";

  /** The job-wide concurrency cap's property. */
  public static final String MAX_CONCURRENT_TASKS = "max_concurrent_tasks";
  /** Upper end of {@code max_concurrent_tasks} (the job store's largest slot pool). */
  public static final int MAX_CONCURRENT_TASKS_CAP = 10_000;

  /**
   * The job-wide concurrency cap a job's (validated) properties set, or 0 when they set none.
   *
   * @throws SquallException USER_ERROR for a value outside its range
   */
  public static int maxConcurrentTasks(Map<String, String> properties) {
    String v = properties.get(MAX_CONCURRENT_TASKS);
    return v == null ? 0 : (int) inRange(MAX_CONCURRENT_TASKS, v, numeric(Limits.defaults()).get(MAX_CONCURRENT_TASKS));
  }

  /** The task-size tier every stage of the query starts on (the smallest of at least this many MB). */
  public static final String TASK_MEMORY_TIER_MB = "task_memory_tier_mb";
  /** The largest task-size tier the query's attempts may run on (MB). */
  public static final String MAX_TASK_MEMORY_TIER_MB = "max_task_memory_tier_mb";

  /**
   * What a job's (validated) properties ask of the task-size tiers ({@link TaskTiers.Request#AUTO}
   * unless they set {@code task_memory_tier_mb} or {@code max_task_memory_tier_mb}).
   *
   * @throws SquallException USER_ERROR for a value outside 1 .. 10,240
   */
  public static TaskTiers.Request taskTiers(Map<String, String> properties) {
    Map<String, Numeric> n = numeric(Limits.defaults());
    String start = properties.get(TASK_MEMORY_TIER_MB);
    String max = properties.get(MAX_TASK_MEMORY_TIER_MB);
    return new TaskTiers.Request(
        start == null ? 0 : (int) inRange(TASK_MEMORY_TIER_MB, start, n.get(TASK_MEMORY_TIER_MB)),
        max == null ? 0 : (int) inRange(MAX_TASK_MEMORY_TIER_MB, max, n.get(MAX_TASK_MEMORY_TIER_MB)));
  }

  /** The property of skew splitting's factor over the median partition, 0 turning splitting off. */
  public static final String SKEW_FACTOR = "skew_factor";
  /** Skew splitting's factor unless a query gives one. */
  public static final int DEFAULT_SKEW_FACTOR = 5;
  /** The property of the bytes a partition must exceed on its side to be split as skewed. */
  public static final String SKEW_MIN_PARTITION_BYTES = "skew_min_partition_bytes";
  /** The least bytes of a skewed partition unless a query gives it. */
  public static final long DEFAULT_SKEW_MIN_PARTITION_BYTES = 64 * MIB;

  /**
   * Skew splitting's factor a job's (validated) properties set, {@link #DEFAULT_SKEW_FACTOR} unless given.
   *
   * @throws SquallException USER_ERROR for a value outside 0 .. 1000
   */
  public static int skewFactor(Map<String, String> properties) {
    String v = properties.get(SKEW_FACTOR);
    return v == null ? DEFAULT_SKEW_FACTOR : (int) inRange(SKEW_FACTOR, v, numeric(Limits.defaults()).get(SKEW_FACTOR));
  }

  /**
   * The bytes a skewed partition must exceed that a job's (validated) properties set,
   * {@link #DEFAULT_SKEW_MIN_PARTITION_BYTES} unless given.
   *
   * @throws SquallException USER_ERROR for a value outside 0 .. 64 GiB
   */
  public static long skewMinPartitionBytes(Map<String, String> properties) {
    String v = properties.get(SKEW_MIN_PARTITION_BYTES);
    return v == null ? DEFAULT_SKEW_MIN_PARTITION_BYTES
        : inRange(SKEW_MIN_PARTITION_BYTES, v, numeric(Limits.defaults()).get(SKEW_MIN_PARTITION_BYTES));
  }

  /** The property of the measured build-side bytes at or under which a partitioned join switches to broadcast. */
  public static final String ADAPTIVE_BROADCAST_JOIN_BYTES = "adaptive_broadcast_join_bytes";

  /**
   * The adaptive broadcast join's threshold a job's (validated) properties set: unless given, the
   * broadcast threshold the query was planned with, so that a query turning broadcasts off
   * ({@code broadcast_threshold_bytes} 0) gets none at run time either.
   *
   * @param plannedThresholdBytes the planner's {@code broadcast_threshold_bytes} for this query
   * @throws SquallException USER_ERROR for a value outside 0 .. 512 MiB
   */
  public static long adaptiveBroadcastJoinBytes(Map<String, String> properties, long plannedThresholdBytes) {
    String v = properties.get(ADAPTIVE_BROADCAST_JOIN_BYTES);
    return v == null ? plannedThresholdBytes
        : inRange(ADAPTIVE_BROADCAST_JOIN_BYTES, v, numeric(Limits.defaults()).get(ADAPTIVE_BROADCAST_JOIN_BYTES));
  }

  /** The task-slot priority's property. */
  public static final String PRIORITY = "priority";

  /**
   * The task-slot priority a job's (validated) properties set, {@link SlotPriority#DEFAULT} when
   * they set none.
   *
   * @throws SquallException USER_ERROR for a value outside 1 .. 9
   */
  public static int priority(Map<String, String> properties) {
    String v = properties.get(PRIORITY);
    return v == null ? SlotPriority.DEFAULT : (int) inRange(PRIORITY, v, numeric(Limits.defaults()).get(PRIORITY));
  }

  /** Whether joins narrow their probe side's scan by the build side's keys: {@code true} (the default) or {@code false}. */
  public static final String RUNTIME_FILTERS = "runtime_filters";
  /** Distinct build keys above which a runtime filter keeps only their range (no Bloom filter). */
  public static final String RUNTIME_FILTER_MAX_KEYS = "runtime_filter_max_keys";
  public static final long DEFAULT_RUNTIME_FILTER_MAX_KEYS = 50_000;
  public static final long MAX_RUNTIME_FILTER_KEYS = 1_000_000;
  /** Longest a probe stage waits for its runtime filters' build stages before it starts without them. */
  public static final String RUNTIME_FILTER_WAIT_MILLIS = "runtime_filter_wait_millis";
  public static final long DEFAULT_RUNTIME_FILTER_WAIT_MILLIS = 30_000;
  public static final long MAX_RUNTIME_FILTER_WAIT_MILLIS = 600_000;

  /**
   * The runtime filters of a planned graph as a job's properties set them: none when
   * {@code runtime_filters} is false, else each with the query's key bound and wait.
   *
   * @throws SquallException USER_ERROR for a value other than true or false, or out of range
   */
  public static StageGraph runtimeFilters(StageGraph graph, Map<String, String> properties) {
    boolean on = mode(properties, RUNTIME_FILTERS, Boolean.TRUE, v -> switch (v.trim().toLowerCase(java.util.Locale.ROOT)) {
      case "true" -> Boolean.TRUE;
      case "false" -> Boolean.FALSE;
      default -> throw new IllegalArgumentException("'" + v + "' is not one of true, false");
    });
    if (!on || graph.getRuntimeFiltersCount() == 0) {
      return on ? graph : graph.toBuilder().clearRuntimeFilters().build();
    }
    Map<String, Numeric> numeric = numeric(Limits.defaults());
    String keys = properties.get(RUNTIME_FILTER_MAX_KEYS);
    String wait = properties.get(RUNTIME_FILTER_WAIT_MILLIS);
    long maxKeys = keys == null ? DEFAULT_RUNTIME_FILTER_MAX_KEYS : inRange(RUNTIME_FILTER_MAX_KEYS, keys, numeric.get(RUNTIME_FILTER_MAX_KEYS));
    long waitMillis = wait == null ? DEFAULT_RUNTIME_FILTER_WAIT_MILLIS
        : inRange(RUNTIME_FILTER_WAIT_MILLIS, wait, numeric.get(RUNTIME_FILTER_WAIT_MILLIS));
    StageGraph.Builder b = graph.toBuilder();
    for (int i = 0; i < b.getRuntimeFiltersCount(); i++) {
      b.setRuntimeFilters(i, b.getRuntimeFilters(i).toBuilder().setMaxKeys(maxKeys).setWaitMillis(waitMillis));
    }
    return b.build();
  }

  /** Whether hash and range exchanges are combined: {@code auto} (the default), {@code on} or {@code off}. */
  public static final String SHUFFLE_COMBINE = "shuffle_combine";

  /**
   * The combining mode a job's properties set ({@link CombiningExchanges.Mode#AUTO} unless given).
   *
   * @throws SquallException USER_ERROR for a value other than auto, on or off
   */
  public static CombiningExchanges.Mode shuffleCombine(Map<String, String> properties) {
    return mode(properties, SHUFFLE_COMBINE, CombiningExchanges.Mode.AUTO, CombiningExchanges.Mode::parse);
  }

  /** Whether stages run pipelined: {@code auto} (the default), {@code pipelined} or {@code staged}. */
  public static final String SCHEDULING = "scheduling";

  /**
   * The scheduling mode a job's properties set ({@link Pipelining.Mode#AUTO} unless given).
   *
   * @throws SquallException USER_ERROR for a value other than auto, pipelined or staged
   */
  public static Pipelining.Mode scheduling(Map<String, String> properties) {
    return mode(properties, SCHEDULING, Pipelining.Mode.AUTO, Pipelining.Mode::parse);
  }

  /**
   * A mode-valued property: {@code absent} unless given, else {@code parse} of its value.
   *
   * @throws SquallException USER_ERROR naming the property when {@code parse} refuses the value
   */
  private static <T> T mode(Map<String, String> properties, String name, T absent,
      java.util.function.Function<String, T> parse) {
    String v = properties.get(name);
    if (v == null) {
      return absent;
    }
    try {
      return parse.apply(v);
    } catch (IllegalArgumentException e) {
      throw SquallException.userError("query property '%s': %s", name, e.getMessage());
    }
  }

  private QueryProperties() {}

  /**
   * The defaults overridden by a request's properties.
   *
   * @throws SquallException USER_ERROR naming an unknown property, or a value and its range
   */
  public static Settings apply(PlannerSettings base, Limits limits, Map<String, String> properties) {
    Map<String, Numeric> numeric = numeric(limits);
    Settings s = new Settings(base.withMaxTasksPerStage(Math.min(base.maxTasksPerStage(), limits.maxTasksPerStage()))
        .withMaxNestedLoopJoinRows(base.maxNestedLoopJoinRows() == 0 ? MAX_NESTED_LOOP_JOIN_ROWS
            : Math.min(base.maxNestedLoopJoinRows(), MAX_NESTED_LOOP_JOIN_ROWS)),
        Math.min(DEFAULT_MAX_TOTAL_TASKS, limits.maxTotalTasks()), 0, OptionalLong.empty());
    for (Map.Entry<String, String> e : properties.entrySet()) {
      String name = e.getKey();
      if (name.equals("default_schema")) {
        s = s.with(s.planner().withDefaultSchema(e.getValue().trim()));
        continue;
      }
      if (name.equals(PlannerSettings.MIN_RETENTION_PROPERTY)) {
        try {
          s = s.with(s.planner().withMinRetention(dev.squall.planner.ddl.ProcedureValues.duration(e.getValue())));
        } catch (IllegalArgumentException bad) {
          throw SquallException.userError("query property '%s': %s", name, bad.getMessage());
        }
        continue;
      }
      if (name.equals(SHUFFLE_COMBINE)) {
        shuffleCombine(properties);
        continue;
      }
      if (name.equals(SCHEDULING)) {
        scheduling(properties);
        continue;
      }
      if (name.equals(RUNTIME_FILTERS)) {
        runtimeFilters(StageGraph.getDefaultInstance(), properties);
        continue;
      }
      Numeric n = numeric.get(name);
      if (n == null) {
        throw SquallException.userError("unknown query property '%s' (known: default_schema, %s, %s, %s, %s, %s)", name,
            String.join(", ", numeric.keySet()), PlannerSettings.MIN_RETENTION_PROPERTY, SHUFFLE_COMBINE, SCHEDULING, RUNTIME_FILTERS);
      }
      s = n.set().apply(s, inRange(name, e.getValue(), n));
    }
    return s;
  }

  /** Checks a request's properties without planning (at submission, so that a bad one is a 400 at once). */
  public static void validate(Limits limits, Map<String, String> properties) {
    apply(PlannerSettings.defaults(), limits, properties);
  }

  private static long inRange(String name, String value, Numeric n) {
    long v;
    try {
      v = Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw outOfRange(name, value, n);
    }
    if (v < n.min() || v > n.max()) {
      throw outOfRange(name, value, n);
    }
    return v;
  }

  private static SquallException outOfRange(String name, String value, Numeric n) {
    String shown = value.length() > 40 ? value.substring(0, 40) + "..." : value;
    return SquallException.userError("query property '%s' must be a whole number of %s from %d to %d, got '%s'",
        name, n.unit(), n.min(), n.max(), shown);
  }
}

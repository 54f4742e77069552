package dev.squall.coordinator;

import dev.squall.proto.v1.Compression;
import java.time.Duration;

/**
 * Deployment settings of the coordinator.
 *
 * @param taskFunctionName the task function's name or ARN
 * @param shuffleBucket bucket for shuffle objects, results and large answers
 * @param maxConcurrentTasks cap on concurrent task invocations per coordinator
 * @param taskMemoryBudgetBytes Arrow bytes a task may hold (from the task function's memory size)
 * @param inlineResultCapBytes largest Arrow answer returned inline (below Lambda's 6 MB response
 *     limit once base64-encoded); larger answers go to S3 with presigned URLs
 * @param resultUrlTtl how long presigned result URLs stay valid
 * @param jobTimeout longest a job may run
 * @param compression shuffle body compression
 * @param queryLimits the ranges query properties must lie in (hard caps on a query's cost)
 * @param objectRetention how long the sweep keeps answers and job objects in the shuffle bucket;
 *     zero when the bucket's lifecycle rule expires them (AWS)
 * @param adaptiveTargetPartitionBytes shuffle bytes a task of a stage whose hash partitions are
 *     coalesced at run time reads at about, unless a query says otherwise; 0 turns coalescing off
 */
public record CoordinatorSettings(
    String taskFunctionName,
    String shuffleBucket,
    int maxConcurrentTasks,
    long taskMemoryBudgetBytes,
    long inlineResultCapBytes,
    Duration resultUrlTtl,
    Duration jobTimeout,
    Compression compression,
    QueryProperties.Limits queryLimits,
    Duration objectRetention,
    long adaptiveTargetPartitionBytes) {

  /** Default of {@code adaptiveTargetPartitionBytes}: 32 MiB (docs/benchmarks.md). */
  public static final long DEFAULT_ADAPTIVE_TARGET_PARTITION_BYTES = 32L << 20;

  /**
   * Defaults for a bucket and task function: 64 concurrent tasks, 1 GiB budget, 4 MiB inline cap,
   * jobs ended after 1 hour (counted from submission), {@link QueryProperties.Limits#defaults()}.
   */
  public static CoordinatorSettings defaults(String taskFunctionName, String shuffleBucket) {
    return new CoordinatorSettings(taskFunctionName, shuffleBucket, 64, 1L << 30, 4L << 20,
        Duration.ofHours(1), Duration.ofHours(1), Compression.LZ4_FRAME, QueryProperties.Limits.defaults(),
        Duration.ZERO, DEFAULT_ADAPTIVE_TARGET_PARTITION_BYTES);
  }

  public CoordinatorSettings withMaxConcurrentTasks(int n) {
    return new CoordinatorSettings(taskFunctionName, shuffleBucket, n, taskMemoryBudgetBytes, inlineResultCapBytes,
        resultUrlTtl, jobTimeout, compression, queryLimits, objectRetention,
        adaptiveTargetPartitionBytes);
  }

  public CoordinatorSettings withInlineResultCapBytes(long bytes) {
    return new CoordinatorSettings(taskFunctionName, shuffleBucket, maxConcurrentTasks, taskMemoryBudgetBytes, bytes,
        resultUrlTtl, jobTimeout, compression, queryLimits, objectRetention,
        adaptiveTargetPartitionBytes);
  }

  /**
   * The budget for a task function of {@code memoryMb} MB: 60% of it for Arrow buffers, leaving the
   * rest to the JVM heap, the runtime and I/O buffers.
   */
  public CoordinatorSettings withTaskFunctionMemoryMb(long memoryMb) {
    return withTaskMemoryBudgetBytes(memoryMb * 1024 * 1024 * 6 / 10);
  }

  public CoordinatorSettings withJobTimeout(Duration timeout) {
    return new CoordinatorSettings(taskFunctionName, shuffleBucket, maxConcurrentTasks, taskMemoryBudgetBytes,
        inlineResultCapBytes, resultUrlTtl, timeout, compression, queryLimits, objectRetention,
        adaptiveTargetPartitionBytes);
  }

  public CoordinatorSettings withQueryLimits(QueryProperties.Limits limits) {
    return new CoordinatorSettings(taskFunctionName, shuffleBucket, maxConcurrentTasks, taskMemoryBudgetBytes,
        inlineResultCapBytes, resultUrlTtl, jobTimeout, compression, limits, objectRetention,
        adaptiveTargetPartitionBytes);
  }

  public CoordinatorSettings withObjectRetention(Duration retention) {
    return new CoordinatorSettings(taskFunctionName, shuffleBucket, maxConcurrentTasks, taskMemoryBudgetBytes,
        inlineResultCapBytes, resultUrlTtl, jobTimeout, compression, queryLimits, retention,
        adaptiveTargetPartitionBytes);
  }

  /** Shuffle bytes a coalesced task reads at about, unless a query says otherwise (0: never coalesce). */
  public CoordinatorSettings withAdaptiveTargetPartitionBytes(long bytes) {
    return new CoordinatorSettings(taskFunctionName, shuffleBucket, maxConcurrentTasks, taskMemoryBudgetBytes,
        inlineResultCapBytes, resultUrlTtl, jobTimeout, compression, queryLimits, objectRetention, bytes);
  }

  public CoordinatorSettings withTaskMemoryBudgetBytes(long bytes) {
    return new CoordinatorSettings(taskFunctionName, shuffleBucket, maxConcurrentTasks, bytes, inlineResultCapBytes,
        resultUrlTtl, jobTimeout, compression, queryLimits, objectRetention,
        adaptiveTargetPartitionBytes);
  }
}

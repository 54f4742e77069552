package dev.squall.task;

import dev.squall.engine.expr.ColumnBatch;
import dev.squall.proto.v1.TaskResult;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Where a task attempt's output batches go, chosen by the spec's output kind: a shuffle or result
 * object ({@code ShuffleOutputSink}) or Iceberg data files ({@code dev.squall.task.write.DataFileOutputSink}).
 */
public interface OutputSink {
  /**
   * Writes one output batch of the fragment's output schema; the batch is not kept.
   *
   * @param allocator the task's allocator, for sinks that write Arrow
   */
  void write(ColumnBatch batch, Schema schema, BufferAllocator allocator);

  /**
   * Finishes the output and records it in the result: the output object and its partition
   * ranges, or the commit messages; and the objects and bytes written in its metrics.
   */
  void finish(TaskResult.Builder result);

  /**
   * True when {@link #write} copies what it needs before it returns, so that the fragment may
   * reuse a batch's arrays for the next batch ({@code BatchOperator.promiseConsumerKeepsNoBatch}).
   */
  default boolean keepsNoBatch() {
    return false;
  }

  /** Drops whatever this attempt wrote, best effort; never throws. */
  void abort();
}

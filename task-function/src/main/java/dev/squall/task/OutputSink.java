package dev.squall.task;

import dev.squall.proto.v1.TaskResult;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Where a task attempt's output batches go, chosen by the spec's output kind: a shuffle or result
 * object ({@code ShuffleOutputSink}) or Iceberg data files ({@code dev.squall.task.write.DataFileOutputSink}).
 */
public interface OutputSink {
  /** Writes one output batch; the batch is not kept. */
  void write(VectorSchemaRoot batch);

  /**
   * Finishes the output and records it in the result: the output object and its partition
   * ranges, or the commit messages; and the objects and bytes written in its metrics.
   */
  void finish(TaskResult.Builder result);

  /** Drops whatever this attempt wrote, best effort; never throws. */
  void abort();
}

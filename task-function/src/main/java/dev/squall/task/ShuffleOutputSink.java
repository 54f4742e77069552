package dev.squall.task;

import dev.squall.engine.expr.ColumnBatch;
import dev.squall.proto.v1.TaskResult;
import dev.squall.shuffle.ShuffleWriter;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;

/** A shuffle (or result) output: the attempt's one object, written by a {@link ShuffleWriter}. */
final class ShuffleOutputSink implements OutputSink {
  private final ShuffleWriter writer;

  ShuffleOutputSink(ShuffleWriter writer) {
    this.writer = writer;
  }

  @Override
  public void write(ColumnBatch batch, Schema schema, BufferAllocator allocator) {
    writer.write(batch, schema);
  }

  /** The writer copies each batch's rows into its partitions' staging buffers at once. */
  @Override
  public boolean keepsNoBatch() {
    return true;
  }

  @Override
  public void finish(TaskResult.Builder result) {
    writer.close().addTo(result);
  }

  @Override
  public void abort() {
    writer.abort();
  }
}

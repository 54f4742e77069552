package dev.squall.engine.input;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.arrow.vector.VectorSchemaRoot;

/** Simple batch sources. */
public final class BatchSources {
  private BatchSources() {}

  /** A source over batches already in memory; the source owns them until they are taken. */
  public static BatchSource of(List<VectorSchemaRoot> batches) {
    Deque<VectorSchemaRoot> queue = new ArrayDeque<>(batches);
    return new BatchSource() {
      @Override
      public boolean hasNext() {
        return !queue.isEmpty();
      }

      @Override
      public VectorSchemaRoot next() {
        if (queue.isEmpty()) {
          throw new NoSuchElementException();
        }
        return queue.poll();
      }

      @Override
      public void close() {
        queue.forEach(VectorSchemaRoot::close);
        queue.clear();
      }
    };
  }
}

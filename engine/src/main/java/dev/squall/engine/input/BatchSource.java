package dev.squall.engine.input;

import java.util.Iterator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A stream of Arrow batches. Every batch returned by {@link #next()} belongs to the caller, who
 * closes it; {@link #close()} releases whatever the source still holds (open objects, buffers).
 */
public interface BatchSource extends Iterator<VectorSchemaRoot>, AutoCloseable {
  @Override
  void close();
}

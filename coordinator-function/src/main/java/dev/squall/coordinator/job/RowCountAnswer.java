package dev.squall.coordinator.job;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.Schema;

/** The answer of a write: one row with one BIGINT column, the rows the commit added. */
final class RowCountAnswer {
  private RowCountAnswer() {}

  /**
   * @param schema one 64-bit integer column (the planner's row-count schema)
   * @return an Arrow IPC stream of one batch with one row
   */
  static byte[] encode(Schema schema, long rows, BufferAllocator allocator) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, out)) {
      BigIntVector v = (BigIntVector) root.getVector(0);
      v.allocateNew(1);
      v.set(0, rows);
      v.setValueCount(1);
      root.setRowCount(1);
      writer.start();
      writer.writeBatch();
      writer.end();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot encode a write's row count", e);
    }
    return out.toByteArray();
  }
}

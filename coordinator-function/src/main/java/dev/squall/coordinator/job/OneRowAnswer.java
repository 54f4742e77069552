package dev.squall.coordinator.job;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Answers the coordinator makes itself, without tasks: one row of one column as an Arrow IPC
 * stream. EXPLAIN answers its plan text; a write answers the rows its commit added.
 */
final class OneRowAnswer {
  private OneRowAnswer() {}

  /** One VARCHAR column {@code column} holding {@code text}. */
  static byte[] text(String column, String text, BufferAllocator allocator) {
    Schema schema = new Schema(List.of(Field.nullable(column, ArrowType.Utf8.INSTANCE)));
    return encode(schema, allocator, root -> ((VarCharVector) root.getVector(0))
        .setSafe(0, text.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * @param schema one 64-bit integer column (the planner's row-count schema)
   */
  static byte[] rowCount(Schema schema, long rows, BufferAllocator allocator) {
    return encode(schema, allocator, root -> ((BigIntVector) root.getVector(0)).setSafe(0, rows));
  }

  private static byte[] encode(Schema schema, BufferAllocator allocator, Consumer<VectorSchemaRoot> fill) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, out)) {
      root.allocateNew();
      fill.accept(root);
      root.getVector(0).setValueCount(1);
      root.setRowCount(1);
      writer.start();
      writer.writeBatch();
      writer.end();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot encode a one-row answer", e);
    }
    return out.toByteArray();
  }
}

package dev.squall.engine.warmup;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;

/**
 * Work a function does once before a SnapStart snapshot so that the classes and JIT state of its
 * hot path are in the snapshot: an Arrow IPC round trip (allocator, vectors, stream writer and
 * reader) and Iceberg's schema and expression classes. Touches no network, file or credential.
 */
public final class Warmup {
  private Warmup() {}

  /**
   * Runs the Arrow and Iceberg warm-up {@code rounds} times.
   *
   * @return the number of rows read back (for callers that want to see it worked)
   */
  public static long arrowAndIceberg(int rounds) {
    long rows = 0;
    for (int i = 0; i < rounds; i++) {
      rows += arrowRoundTrip();
      Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()),
          Types.NestedField.optional(3, "price", Types.DecimalType.of(12, 2)));
      SchemaParser.fromJson(SchemaParser.toJson(schema));
      String filter = Expressions.and(Expressions.greaterThan("id", 10L), Expressions.notNull("name")).toString();
      if (filter.isEmpty()) {
        throw new IllegalStateException("warm-up: Iceberg rendered an empty filter");
      }
    }
    return rows;
  }

  private static long arrowRoundTrip() {
    try (BufferAllocator allocator = new RootAllocator(16 << 20)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (BigIntVector ids = new BigIntVector("id", allocator);
          VarCharVector names = new VarCharVector("name", allocator)) {
        ids.allocateNew(64);
        names.allocateNew(64);
        for (int r = 0; r < 64; r++) {
          ids.set(r, r);
          names.setSafe(r, ("row" + r).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        ids.setValueCount(64);
        names.setValueCount(64);
        try (VectorSchemaRoot root = new VectorSchemaRoot(List.of(ids.getField(), names.getField()), List.of(ids, names), 64);
            ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(out))) {
          writer.start();
          writer.writeBatch();
          writer.end();
        }
      }
      long rows = 0;
      try (ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(out.toByteArray()), allocator)) {
        while (reader.loadNextBatch()) {
          rows += reader.getVectorSchemaRoot().getRowCount();
        }
      }
      return rows;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

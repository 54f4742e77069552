package dev.squall.coordinator.finalize;

import dev.squall.proto.v1.ShuffleSegment;
import dev.squall.proto.v1.TaskResult;
import dev.squall.shuffle.ShuffleReader;
import dev.squall.shuffle.ShuffleReaderOptions;
import dev.squall.shuffle.ShuffleSegments;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The coordinator's final step for a query: reads the root stage's one-partition output (the
 * winning attempts' result objects, or the bytes a task returned inline for a small one) and
 * re-encodes it as a single uncompressed Arrow IPC stream whose columns carry the query's output
 * names.
 */
public final class ResultCollector {
  private final S3Client s3;
  private final BufferAllocator allocator;

  public ResultCollector(S3Client s3, BufferAllocator allocator) {
    this.s3 = s3;
    this.allocator = allocator;
  }

  /** The collected answer: IPC bytes and row count. */
  public record Collected(byte[] arrowIpc, long rows) {}

  /**
   * @param bucket the bucket the result objects are in
   * @param rootWinners the winning results of the root stage's tasks
   * @param schema the query's output schema (names and types); used as is when there are no rows
   * @throws UncheckedIOException when the stream cannot be encoded
   */
  public Collected collect(String bucket, TaskResult[] rootWinners, Schema schema) {
    // The root stage writes one partition (0) per task; the answer is their concatenation.
    List<ShuffleSegment> segments = ShuffleSegments.input(dev.squall.proto.v1.Schema.getDefaultInstance(), bucket,
        Arrays.asList(rootWinners), 0).getSegmentsList();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    long rows = 0;
    VectorSchemaRoot target = null;
    ArrowStreamWriter writer = null;
    List<String> names = schema.getFields().stream().map(Field::getName).toList();
    // A small result came back in the task's own answer: its object was never written.
    Map<String, byte[]> inline = new HashMap<>();
    for (TaskResult winner : rootWinners) {
      if (!winner.getInlineOutput().isEmpty()) {
        inline.put(winner.getOutputObjectKey(), winner.getInlineOutput().toByteArray());
      }
    }
    try (ShuffleReader reader = ShuffleReader.open(s3, allocator, segments, ShuffleReaderOptions.DEFAULT, inline)) {
      while (reader.hasNext()) {
        {
          VectorSchemaRoot batch = reader.next(); // owned and reused by the reader
          if (target == null) {
            // The engine's own field types win; the query's names are put on them.
            target = VectorSchemaRoot.create(renamed(batch.getSchema(), names), allocator);
            writer = new ArrowStreamWriter(target, null, out);
            writer.start();
          }
          try (ArrowRecordBatch data = new VectorUnloader(batch).getRecordBatch()) {
            new VectorLoader(target).load(data);
          }
          rows += batch.getRowCount();
          writer.writeBatch();
        }
      }
      if (target == null) {
        target = VectorSchemaRoot.create(schema, allocator);
        writer = new ArrowStreamWriter(target, null, out);
        writer.start();
      }
      writer.end();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot encode the query result as Arrow IPC", e);
    } finally {
      if (writer != null) {
        writer.close();
      }
      if (target != null) {
        target.close();
      }
    }
    return new Collected(out.toByteArray(), rows);
  }

  /** The output schema with the query's column names over the result's field types. */
  public static Schema renamed(Schema types, List<String> names) {
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < types.getFields().size(); i++) {
      Field f = types.getFields().get(i);
      fields.add(new Field(i < names.size() ? names.get(i) : f.getName(), f.getFieldType(), f.getChildren()));
    }
    return new Schema(fields);
  }
}

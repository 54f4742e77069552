package dev.squall.planner.write;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import dev.squall.proto.v1.Scan;
import dev.squall.proto.v1.StageGraph;
import java.util.List;
import java.util.Map;

/**
 * Marks the data files that a DELETE removes whole by metadata as not to be read: every
 * {@link Scan} of the stage graph gets them as {@code skipped_data_files}, which split planning
 * leaves out, so that no task reads a file the commit drops anyway.
 */
public final class RowDeleteScans {
  private RowDeleteScans() {}

  /** The graph with {@code paths} added to every scan's skipped data files (unchanged when empty). */
  public static StageGraph skip(StageGraph graph, List<String> paths) {
    return paths.isEmpty() ? graph : (StageGraph) rewrite(graph, paths);
  }

  private static Message rewrite(Message message, List<String> paths) {
    if (message instanceof Scan scan) {
      return scan.toBuilder().addAllSkippedDataFiles(paths).build();
    }
    Message.Builder builder = message.toBuilder();
    for (Map.Entry<FieldDescriptor, Object> entry : message.getAllFields().entrySet()) {
      FieldDescriptor field = entry.getKey();
      if (field.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
        continue;
      }
      if (field.isRepeated()) {
        builder.clearField(field);
        for (Object item : (List<?>) entry.getValue()) {
          builder.addRepeatedField(field, rewrite((Message) item, paths));
        }
      } else {
        builder.setField(field, rewrite((Message) entry.getValue(), paths));
      }
    }
    return builder.build();
  }
}

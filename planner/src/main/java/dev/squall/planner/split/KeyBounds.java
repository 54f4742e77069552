package dev.squall.planner.split;

import com.google.protobuf.ByteString;
import dev.squall.proto.v1.ColumnBounds;
import dev.squall.proto.v1.ScanSplit;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionSpec;

/**
 * A data file's Iceberg column metrics carried in its splits ({@link ColumnBounds}): taken from
 * the manifest's {@link DataFile} at split planning, and turned back into a {@link DataFile} that
 * holds only those metrics, for Iceberg's {@code InclusiveMetricsEvaluator} at the coordinator.
 */
public final class KeyBounds {
  private KeyBounds() {}

  /** The metrics {@code file} has for each of {@code fieldIds}; a metric it lacks stays unset. */
  public static List<ColumnBounds> of(ContentFile<?> file, Set<Integer> fieldIds) {
    List<ColumnBounds> out = new ArrayList<>();
    for (int id : fieldIds) {
      ColumnBounds.Builder b = ColumnBounds.newBuilder().setFieldId(id);
      ByteBuffer lower = get(file.lowerBounds(), id);
      ByteBuffer upper = get(file.upperBounds(), id);
      Long nulls = get(file.nullValueCounts(), id);
      Long values = get(file.valueCounts(), id);
      if (lower != null) {
        b.setLowerBound(ByteString.copyFrom(lower.duplicate()));
      }
      if (upper != null) {
        b.setUpperBound(ByteString.copyFrom(upper.duplicate()));
      }
      if (nulls != null) {
        b.setNullCount(nulls);
      }
      if (values != null) {
        b.setValueCount(values);
      }
      out.add(b.build());
    }
    return out;
  }

  /**
   * A stand-in data file with the split's record count and carried metrics and nothing else (no
   * partition, path and size for logs only), to be tested by Iceberg's metrics evaluators.
   */
  public static DataFile dataFile(ScanSplit split) {
    Map<Integer, ByteBuffer> lower = new HashMap<>();
    Map<Integer, ByteBuffer> upper = new HashMap<>();
    Map<Integer, Long> nulls = new HashMap<>();
    Map<Integer, Long> values = new HashMap<>();
    for (ColumnBounds c : split.getKeyBoundsList()) {
      if (c.hasLowerBound()) {
        lower.put(c.getFieldId(), c.getLowerBound().asReadOnlyByteBuffer());
      }
      if (c.hasUpperBound()) {
        upper.put(c.getFieldId(), c.getUpperBound().asReadOnlyByteBuffer());
      }
      if (c.hasNullCount()) {
        nulls.put(c.getFieldId(), c.getNullCount());
      }
      if (c.hasValueCount()) {
        values.put(c.getFieldId(), c.getValueCount());
      }
    }
    return DataFiles.builder(PartitionSpec.unpartitioned())
        .withPath(split.getDataFilePath())
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(Math.max(1, split.getLength()))
        .withMetrics(new Metrics(split.getRecordCount(), null, values, nulls, null, lower, upper))
        .build();
  }

  private static <V> V get(Map<Integer, V> map, int id) {
    return map == null ? null : map.get(id);
  }
}

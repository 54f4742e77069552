package dev.squall.planner.catalog;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.UUID;
import org.apache.datasketches.theta.CompactSketch;
import org.apache.datasketches.theta.UpdateSketch;
import org.apache.iceberg.GenericBlobMetadata;
import org.apache.iceberg.GenericStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.puffin.Blob;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinWriter;
import org.apache.iceberg.puffin.StandardBlobTypes;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;

/**
 * Writes a Puffin statistics file of one snapshot with one {@code apache-datasketches-theta-v1}
 * blob per column, as Iceberg's spec defines it (and Trino and Spark write it): the compact form of
 * an Apache DataSketches theta sketch with the default seed, updated with each non-NULL value's
 * Iceberg single-value serialization ({@link #update}: little-endian ints and longs, days as an
 * int, UTF-8 strings, a decimal's unscaled two's-complement bytes), so that sketches of the same
 * column merge whoever built them. Each blob names the column's field id, the snapshot id and
 * sequence number, and carries the estimate as property {@value ColumnNdvs#NDV_PROPERTY}.
 *
 * <p>Writing only creates the file; {@code table.updateStatistics().setStatistics(file)} commits
 * it. A caller whose commit does not happen deletes the file ({@link #delete}).
 */
public final class ThetaStatisticsFile {
  private ThetaStatisticsFile() {}

  /** Feeds one non-NULL value of a column of Iceberg type {@code type} into a sketch. */
  public static void update(UpdateSketch sketch, Type type, Object value) {
    ByteBuffer bytes = Conversions.toByteBuffer(type, value);
    byte[] array = new byte[bytes.remaining()];
    bytes.duplicate().get(array);
    sketch.update(array);
  }

  /**
   * Writes the file under the table's {@code metadata/} directory.
   *
   * @param sketches compact sketches by Iceberg field id
   * @return the statistics file to commit, its blobs in field id order
   * @throws UncheckedIOException when the file cannot be written (a partly written file is deleted)
   */
  public static StatisticsFile write(Table table, Snapshot snapshot, SortedMap<Integer, CompactSketch> sketches) {
    String location = table.location() + "/metadata/" + snapshot.snapshotId() + "-" + UUID.randomUUID() + ".stats";
    OutputFile output = table.io().newOutputFile(location);
    PuffinWriter writer = Puffin.write(output).createdBy("Squall").build();
    try (writer) {
      for (Map.Entry<Integer, CompactSketch> column : sketches.entrySet()) {
        long ndv = Math.round(column.getValue().getEstimate());
        writer.add(new Blob(StandardBlobTypes.APACHE_DATASKETCHES_THETA_V1, List.of(column.getKey()),
            snapshot.snapshotId(), snapshot.sequenceNumber(), ByteBuffer.wrap(column.getValue().toByteArray()),
            null, Map.of(ColumnNdvs.NDV_PROPERTY, Long.toString(ndv))));
      }
    } catch (IOException | RuntimeException e) {
      delete(table, location);
      throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
    }
    return new GenericStatisticsFile(snapshot.snapshotId(), location, writer.fileSize(), writer.footerSize(),
        new ArrayList<>(GenericBlobMetadata.from(writer.writtenBlobsMetadata())));
  }

  /** Deletes a written statistics file that was not committed (best effort: errors are ignored). */
  public static void delete(Table table, String location) {
    try {
      table.io().deleteFile(location);
    } catch (RuntimeException e) {
      // Nothing else references the file; an orphan-file sweep would remove it too.
    }
  }
}

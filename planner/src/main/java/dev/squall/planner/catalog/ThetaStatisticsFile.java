package dev.squall.planner.catalog;

import dev.squall.proto.ThetaValueBytes;
import dev.squall.proto.v1.DataType.Kind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Writes a Puffin statistics file of one snapshot with one {@code apache-datasketches-theta-v1}
 * blob per column, as Iceberg's spec defines it (and Trino and Spark write it): the compact form of
 * an Apache DataSketches theta sketch with the default seed, updated with each non-NULL value's
 * Iceberg single-value serialization ({@link ThetaValueBytes}: little-endian ints and longs, days
 * as an int, UTF-8 strings, a decimal's unscaled two's-complement bytes), so that sketches of the
 * same column merge whoever built them (ANALYZE's tasks, {@link #update}, Trino, Spark). Each blob names the column's field id, the snapshot id and
 * sequence number, and carries the estimate as property {@value ColumnNdvs#NDV_PROPERTY}.
 *
 * <p>Writing only creates the file; {@code table.updateStatistics().setStatistics(file)} commits
 * it. A caller whose commit does not happen deletes the file ({@link #delete}).
 */
public final class ThetaStatisticsFile {
  private ThetaStatisticsFile() {}

  /**
   * Feeds one non-NULL value of a column of Iceberg type {@code type} into a sketch: its
   * {@link ThetaValueBytes}, the bytes the engine's THETA_SKETCH aggregate feeds too.
   *
   * @throws IllegalArgumentException for a type that is not {@link #sketchable}
   */
  public static void update(UpdateSketch sketch, Type type, Object value) {
    sketch.update(ThetaValueBytes.of(kind(type).orElseThrow(
        () -> new IllegalArgumentException("no theta sketch of " + type)), value));
  }

  /**
   * Whether ANALYZE sketches columns of this type: the types the scan reads (boolean, int, long,
   * float, double, decimal, date, timestamp without zone, string, binary, fixed).
   */
  public static boolean sketchable(Type type) {
    return kind(type).isPresent();
  }

  /** The plan type whose {@link ThetaValueBytes} serialize values of an Iceberg type, as the scan reads them. */
  private static Optional<Kind> kind(Type type) {
    return Optional.ofNullable(switch (type.typeId()) {
      case BOOLEAN -> Kind.BOOLEAN;
      case INTEGER -> Kind.INTEGER;
      case LONG -> Kind.BIGINT;
      case FLOAT -> Kind.REAL;
      case DOUBLE -> Kind.DOUBLE;
      case DECIMAL -> Kind.DECIMAL;
      case DATE -> Kind.DATE;
      case TIMESTAMP -> ((Types.TimestampType) type).shouldAdjustToUTC() ? null : Kind.TIMESTAMP;
      case STRING -> Kind.VARCHAR;
      case BINARY, FIXED -> Kind.VARBINARY;
      default -> null;
    });
  }

  /**
   * Writes the file under the table's {@code metadata/} directory.
   *
   * @param sketches compact sketches by Iceberg field id
   * @return the statistics file to commit, its blobs in field id order
   * @throws UncheckedIOException when the file cannot be written (a partly written file is deleted)
   */
  public static StatisticsFile write(Table table, Snapshot snapshot, SortedMap<Integer, CompactSketch> sketches) {
    return write(table, snapshot, sketches, UUID.randomUUID().toString());
  }

  /**
   * Writes the file as {@link #write(Table, Snapshot, SortedMap)} does, named
   * {@code metadata/<snapshot id>-<name>.stats} ({@link #location}), so that a writer can tell its
   * own file among the table's statistics files.
   */
  public static StatisticsFile write(Table table, Snapshot snapshot, SortedMap<Integer, CompactSketch> sketches,
      String name) {
    String location = location(table, snapshot.snapshotId(), name);
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

  /** Where {@link #write(Table, Snapshot, SortedMap, String)} puts the file of that snapshot and name. */
  public static String location(Table table, long snapshotId, String name) {
    return table.location() + "/metadata/" + snapshotId + "-" + name + ".stats";
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

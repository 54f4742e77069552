package dev.squall.coordinator.commit;

import dev.squall.planner.catalog.ThetaStatisticsFile;
import dev.squall.proto.v1.AnalyzeRecord;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.datasketches.memory.Memory;
import org.apache.datasketches.theta.CompactSketch;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NoSuchTableException;

/**
 * The final step of ANALYZE on the coordinator: turns the root stage's one row (row count, then
 * one compact theta sketch per analyzed field) into a Puffin statistics file of the scanned
 * snapshot ({@link ThetaStatisticsFile}) and commits it with
 * {@code table.updateStatistics().setStatistics(file)}, replacing any earlier statistics file of
 * that snapshot (Iceberg keeps one per snapshot).
 *
 * <p>Exactly once and nothing orphaned: the file is named after the job
 * ({@code metadata/<snapshot>-analyze-<job>.stats}), so a re-run finds its own committed file and
 * commits nothing more, and a file the table does not reference is deleted ({@link #discard}).
 * A commit whose outcome the catalog cannot tell keeps the file for the next run to settle.
 */
public final class StatisticsCommitter {
  private final Catalog catalog;

  public StatisticsCommitter(Catalog catalog) {
    this.catalog = catalog;
  }

  /** The root stage's row: rows scanned and the sketches (compact theta sketch bytes) in field order. */
  public record AnalyzedRow(long rows, List<byte[]> sketches) {
    /**
     * Reads the row from the collected answer (an Arrow IPC stream of one row).
     *
     * @throws IllegalStateException when the stream does not hold exactly one row of the expected shape
     */
    public static AnalyzedRow fromArrowIpc(byte[] ipc, BufferAllocator allocator) {
      try (ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(ipc), allocator)) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        AnalyzedRow row = null;
        while (reader.loadNextBatch()) {
          for (int r = 0; r < root.getRowCount(); r++) {
            if (row != null) {
              throw new IllegalStateException("ANALYZE's aggregate answered more than one row");
            }
            List<byte[]> sketches = new ArrayList<>();
            for (int c = 1; c < root.getFieldVectors().size(); c++) {
              sketches.add(((VarBinaryVector) root.getVector(c)).getObject(r));
            }
            row = new AnalyzedRow(((BigIntVector) root.getVector(0)).get(r), sketches);
          }
        }
        if (row == null) {
          throw new IllegalStateException("ANALYZE's aggregate answered no row");
        }
        return row;
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read ANALYZE's aggregate row", e);
      }
    }
  }

  /**
   * Commits the statistics of {@code record}'s snapshot from {@code row}, or finds them committed
   * by an earlier run of the job. Nothing is committed for a table without snapshots.
   *
   * @throws WriteCommitException target conflict when the table or its snapshot is gone; outcome
   *     unknown when the catalog cannot tell whether the commit landed; otherwise (the file deleted)
   *     a failed commit
   */
  public void commit(String jobId, AnalyzeRecord record, AnalyzedRow row) {
    if (!record.hasSnapshotId()) {
      return;
    }
    Table table = load(record);
    Snapshot snapshot = table.snapshot(record.getSnapshotId());
    if (snapshot == null) {
      throw WriteCommitException.targetConflict("snapshot " + record.getSnapshotId() + " of " + identifier(record)
          + " was expired while ANALYZE ran; run ANALYZE again", null);
    }
    String location = location(table, jobId, record);
    if (isCommitted(table, location)) {
      return;
    }
    if (row.sketches().size() != record.getFieldIdsCount()) {
      throw new IllegalStateException("ANALYZE's row has " + row.sketches().size() + " sketches for "
          + record.getFieldIdsCount() + " columns");
    }
    SortedMap<Integer, CompactSketch> sketches = new TreeMap<>();
    for (int i = 0; i < row.sketches().size(); i++) {
      sketches.put(record.getFieldIds(i), CompactSketch.heapify(Memory.wrap(row.sketches().get(i))));
    }
    // A run that died between writing and committing left the file: it is written again.
    ThetaStatisticsFile.delete(table, location);
    StatisticsFile file = ThetaStatisticsFile.write(table, snapshot, sketches, fileName(jobId));
    try {
      table.updateStatistics().setStatistics(file).commit();
    } catch (CommitStateUnknownException e) {
      throw new WriteCommitException("whether the statistics of " + identifier(record) + " were committed is unknown",
          true, e);
    } catch (RuntimeException e) {
      ThetaStatisticsFile.delete(table, location);
      throw new WriteCommitException("commit of the statistics of " + identifier(record) + " failed: "
          + e.getMessage(), false, e);
    }
  }

  /**
   * Deletes the job's statistics file when the table does not reference it (a failed or cancelled
   * ANALYZE); best effort, as a table that cannot be read keeps nothing of the job's either way.
   */
  public void discard(String jobId, AnalyzeRecord record) {
    if (!record.hasSnapshotId()) {
      return;
    }
    try {
      Table table = load(record);
      String location = location(table, jobId, record);
      if (!isCommitted(table, location)) {
        ThetaStatisticsFile.delete(table, location);
      }
    } catch (RuntimeException e) {
      // The table is gone or unreadable: nothing of the job's is referenced by it.
    }
  }

  private Table load(AnalyzeRecord record) {
    try {
      return catalog.loadTable(identifier(record));
    } catch (NoSuchTableException e) {
      throw WriteCommitException.targetConflict("table " + identifier(record) + " was dropped while ANALYZE ran", e);
    }
  }

  private static boolean isCommitted(Table table, String location) {
    table.refresh();
    return table.statisticsFiles().stream().anyMatch(f -> f.path().equals(location));
  }

  private static String location(Table table, String jobId, AnalyzeRecord record) {
    return ThetaStatisticsFile.location(table, record.getSnapshotId(), fileName(jobId));
  }

  private static String fileName(String jobId) {
    return "analyze-" + jobId;
  }

  private static TableIdentifier identifier(AnalyzeRecord record) {
    return TableIdentifier.of(Namespace.of(record.getNamespaceList().toArray(String[]::new)), record.getTable());
  }
}

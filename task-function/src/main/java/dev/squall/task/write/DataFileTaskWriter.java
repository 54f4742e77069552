package dev.squall.task.write;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.ArrowColumns;
import dev.squall.engine.column.Column;
import dev.squall.proto.v1.ErrorCode;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.LocationProviders;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.parquet.schema.MessageType;

/**
 * Writes the output batches of one writer task attempt as Iceberg data files, column by column
 * ({@link ColumnarParquetWriter}: Parquet with field ids, the table's Parquet settings and Iceberg
 * column metrics), one open file per partition value ({@link PartitionKey} applies identity, day,
 * bucket and the other transforms), rolling to a new file once one passes
 * {@code write.target-file-size-bytes} (checked every 1,000 rows of a file, as Iceberg's rolling
 * writers do). The size is counted as the file will be written, not as it is buffered: row groups
 * are at most the target size, and the open one counts at the compression ratio of the row groups
 * already written (of this file, else of the attempt's previous file;
 * {@link ColumnarParquetWriter#estimatedLength()}).
 *
 * <p>A batch is first checked and conformed to the table schema ({@link BatchConformer}); in a
 * partitioned table its rows are then grouped by partition value (one key per row, computed from the
 * partition source columns only), and each group is written to its file as one run of selected rows.
 *
 * <p>Files are placed by Iceberg's {@link LocationProvider} for the table location and properties
 * ({@code <table>/data/<partition path>/} by default) and named by {@link DataFileNames}. Every
 * file this attempt creates is remembered, so that {@link #abort()} can delete them all.
 *
 * <p>Memory: each open file buffers up to a Parquet row group ({@code write.parquet.row-group-size-bytes})
 * on the heap, outside the task's Arrow budget. To bound that, at most {@code maxOpenFiles} files
 * are open at once: a group of yet another partition value first finishes the least recently written
 * file (so unsorted input over many partition values makes more, smaller files).
 *
 * <p>Not thread-safe; one instance per attempt. Usage: {@link #write} per batch, then either
 * {@link #complete()} or {@link #abort()}.
 */
public final class DataFileTaskWriter implements AutoCloseable {
  /** Rows of a file between file-size checks. */
  private static final int ROWS_PER_SIZE_CHECK = 1000;
  /** Default bound on files open at once (one per partition value being written). */
  public static final int DEFAULT_MAX_OPEN_FILES = 64;

  private final FileIO io;
  private final WriteTarget target;
  private final DataFileNames names;
  private final LocationProvider locations;
  private final BatchConformer conformer;
  private final ParquetWriteSettings settings;
  private final MessageType fileSchema;
  private final PartitionKey key;
  private final ColumnsRow row;
  private final long targetFileSizeBytes;
  private final int maxOpenFiles;
  // Access order: the first entry is the least recently written file.
  private final Map<PartitionKey, OpenFile> open = new LinkedHashMap<>(16, 0.75f, true);
  private final List<String> created = new ArrayList<>();
  private final List<DataFile> finished = new ArrayList<>();
  private BooleanSupplier cancelled = () -> false;
  /** Bytes per buffered byte of the files finished so far (see {@link ColumnarParquetWriter#estimatedLength}). */
  private double writtenPerBuffered = Double.NaN;
  private int nextSeq;
  private long rows;
  private boolean ended;

  private static final class OpenFile {
    final ColumnarParquetWriter writer;
    final String location;
    final PartitionKey partition;

    OpenFile(ColumnarParquetWriter writer, String location, PartitionKey partition) {
      this.writer = writer;
      this.location = location;
      this.partition = partition;
    }
  }

  /**
   * @param io where files are written (S3FileIO on AWS); not closed here
   * @param target the table's location, schema, spec and properties
   * @param names the attempt's file names
   * @throws EngineException INTERNAL_ERROR when the schema has columns that cannot be written;
   *     USER_ERROR when a Parquet table property is invalid
   */
  public DataFileTaskWriter(FileIO io, WriteTarget target, DataFileNames names) {
    this(io, target, names, DEFAULT_MAX_OPEN_FILES);
  }

  /**
   * @param maxOpenFiles files open at once, at least 1
   * @throws EngineException as {@link #DataFileTaskWriter(FileIO, WriteTarget, DataFileNames)}
   */
  public DataFileTaskWriter(FileIO io, WriteTarget target, DataFileNames names, int maxOpenFiles) {
    if (maxOpenFiles < 1) {
      throw new IllegalArgumentException("maxOpenFiles must be at least 1: " + maxOpenFiles);
    }
    this.maxOpenFiles = maxOpenFiles;
    this.io = io;
    this.target = target;
    this.names = names;
    this.locations = LocationProviders.locationsFor(target.tableLocation(), target.properties());
    this.conformer = new BatchConformer(target.schema());
    this.settings = ParquetWriteSettings.of(target.schema(), target.properties());
    this.fileSchema = ColumnarParquetWriter.fileSchema(target.schema());
    this.key = new PartitionKey(target.spec(), target.schema());
    this.row = new ColumnsRow(target.schema().columns());
    this.targetFileSizeBytes = PropertyUtil.propertyAsLong(target.properties(),
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
  }

  /**
   * Writes every row of an Arrow batch (column {@code i} is the table's top-level field {@code i});
   * the batch is converted to engine columns in one pass ({@link ArrowColumns#read}) and not kept.
   *
   * @throws EngineException as {@link #write(Column[], int)}
   */
  public void write(VectorSchemaRoot batch) {
    checkOpen();
    write(ArrowColumns.read(batch), batch.getRowCount());
  }

  /**
   * Writes rows {@code 0 .. rows)} of a batch of engine columns (column {@code i} is the table's
   * top-level field {@code i}). The columns are not modified or kept.
   *
   * @throws EngineException USER_ERROR for values that do not fit their column (see
   *     {@link BatchConformer}), INTERNAL_ERROR for columns that do not match the table, EXTERNAL
   *     when a file cannot be written, CANCELLED once the attempt is cancelled
   */
  public void write(Column[] columns, int rows) {
    checkOpen();
    checkCancelled();
    Column[] batch = conformer.conform(columns, rows);
    try {
      if (target.spec().isUnpartitioned()) {
        writeGroup(batch, null, 0, rows, key);
      } else {
        writePartitioned(batch, rows);
      }
    } catch (UncheckedIOException e) {
      throw writeFailed(e);
    }
  }

  /** Groups the rows by partition value (counting sort by group) and writes each group as one run. */
  private void writePartitioned(Column[] batch, int rows) {
    Map<PartitionKey, Integer> groups = new HashMap<>();
    List<PartitionKey> keys = new ArrayList<>();
    int[] groupOf = new int[rows];
    int[] counts = new int[8];
    for (int r = 0; r < rows; r++) {
      key.partition(row.at(batch, r));
      Integer g = groups.get(key);
      if (g == null) {
        g = keys.size();
        PartitionKey copy = key.copy();
        groups.put(copy, g);
        keys.add(copy);
        if (g == counts.length) {
          counts = Arrays.copyOf(counts, g * 2);
        }
      }
      groupOf[r] = g;
      counts[g]++;
    }
    int[] starts = new int[keys.size() + 1];
    for (int g = 0; g < keys.size(); g++) {
      starts[g + 1] = starts[g] + counts[g];
    }
    int[] next = Arrays.copyOf(starts, keys.size());
    int[] selection = new int[rows];
    for (int r = 0; r < rows; r++) {
      selection[next[groupOf[r]]++] = r;
    }
    // Groups whose file is open go first, so that a new partition value evicts a file this batch
    // has already written rather than one it is about to write.
    boolean[] written = new boolean[keys.size()];
    for (int pass = 0; pass < 2; pass++) {
      for (int g = 0; g < keys.size(); g++) {
        if (!written[g] && (pass == 1 || open.containsKey(keys.get(g)))) {
          writeGroup(batch, selection, starts[g], starts[g + 1] - starts[g], keys.get(g));
          written[g] = true;
        }
      }
    }
  }

  /**
   * Writes rows {@code selection[from .. from + n)} (or {@code from .. from + n)} when selection is
   * null), all of one partition value, to that value's file, rolling files at the target size.
   */
  private void writeGroup(Column[] batch, int[] selection, int from, int n, PartitionKey partition) {
    int done = 0;
    while (done < n) {
      OpenFile file = open.get(partition);
      if (file == null) {
        file = openFile(partition);
      }
      long fileRows = file.writer.rows();
      int run = (int) Math.min(n - done, ROWS_PER_SIZE_CHECK - fileRows % ROWS_PER_SIZE_CHECK);
      file.writer.write(batch, selection, from + done, run);
      done += run;
      rows += run;
      if (file.writer.rows() % ROWS_PER_SIZE_CHECK == 0 && file.writer.estimatedLength() >= targetFileSizeBytes) {
        open.remove(file.partition);
        finish(file);
      }
    }
  }

  private OpenFile openFile(PartitionKey partition) {
    // Opening a file is the expensive step of a group (unsorted input over many partitions).
    checkCancelled();
    if (open.size() >= maxOpenFiles) {
      Iterator<OpenFile> eldest = open.values().iterator();
      OpenFile evicted = eldest.next();
      eldest.remove();
      finish(evicted);
    }
    PartitionKey copy = partition.copy();
    OpenFile file = newFile(copy);
    open.put(copy, file);
    return file;
  }

  /**
   * What the writer polls at each batch and before opening each file; when it turns true it stops
   * with CANCELLED (the caller then aborts, deleting the attempt's files).
   */
  public void cancelWhen(BooleanSupplier condition) {
    this.cancelled = condition;
  }

  private void checkCancelled() {
    if (cancelled.getAsBoolean()) {
      throw EngineException.cancelled();
    }
  }

  /**
   * Closes every open file and returns the attempt's data files, ordered by path. When a file
   * cannot be closed, the attempt's files are deleted (as by {@link #abort()}) and the error thrown.
   *
   * @throws EngineException EXTERNAL when a file cannot be finished
   */
  public List<DataFile> complete() {
    checkOpen();
    try {
      for (OpenFile file : open.values()) {
        finish(file);
      }
      open.clear();
    } catch (RuntimeException e) {
      abort();
      throw e instanceof UncheckedIOException io ? writeFailed(io) : e;
    }
    ended = true;
    List<DataFile> files = new ArrayList<>(finished);
    files.sort(Comparator.comparing(DataFile::location));
    return files;
  }

  /**
   * Closes the open files and deletes every file this attempt created, finished or not. Best
   * effort: a file that cannot be deleted is logged, not thrown. Safe to call more than once.
   */
  public void abort() {
    ended = true;
    for (OpenFile file : open.values()) {
      file.writer.abandon();
    }
    open.clear();
    DataFileNames.deleteAttemptFiles(io, created, "data file");
    created.clear();
    finished.clear();
  }

  /** Rows written so far. */
  public long rowsWritten() {
    return rows;
  }

  /** Files open now (for tests of the open-file bound). */
  int openFiles() {
    return open.size();
  }

  /** Locations of the files created so far (finished or open); empty after {@link #abort()}. */
  public List<String> createdLocations() {
    return List.copyOf(created);
  }

  /** Aborts unless {@link #complete()} succeeded. */
  @Override
  public void close() {
    if (!ended) {
      abort();
    }
  }

  private OpenFile newFile(PartitionKey partition) {
    String name = names.fileName(nextSeq++);
    String location = target.spec().isUnpartitioned()
        ? locations.newDataLocation(name)
        : locations.newDataLocation(target.spec(), partition, name);
    // Remembered before the first byte goes out, so that abort() also finds a half-written file.
    created.add(location);
    // A row group no larger than the target: a file then writes a row group before it reaches the
    // target, and its size is estimated from what that group compressed to.
    ColumnarParquetWriter writer = new ColumnarParquetWriter(io.newOutputFile(location), target.schema(),
        fileSchema, settings, targetFileSizeBytes, writtenPerBuffered);
    return new OpenFile(writer, location, partition);
  }

  private void finish(OpenFile file) {
    file.writer.close();
    if (!Double.isNaN(file.writer.writtenPerBuffered())) {
      writtenPerBuffered = file.writer.writtenPerBuffered();
    }
    DataFiles.Builder builder = DataFiles.builder(target.spec())
        .withPath(file.location)
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(file.writer.length())
        .withMetrics(file.writer.metrics())
        .withSplitOffsets(file.writer.splitOffsets())
        .withSortOrder(target.sortOrder());
    if (!target.spec().isUnpartitioned()) {
      builder.withPartition(file.partition);
    }
    finished.add(builder.build());
  }

  private void checkOpen() {
    if (ended) {
      throw new IllegalStateException("the data file writer was completed or aborted");
    }
  }

  private static EngineException writeFailed(UncheckedIOException e) {
    return new EngineException(ErrorCode.EXTERNAL, "writing a data file failed: " + e.getMessage(), e);
  }
}

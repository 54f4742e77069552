package dev.squall.task.write;

import dev.squall.engine.EngineException;
import dev.squall.proto.v1.ErrorCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.LocationProviders;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.util.PropertyUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the output batches of one writer task attempt as Iceberg data files through Iceberg's
 * generic writers ({@link GenericAppenderFactory}: Parquet with field ids and column metrics), one
 * open file per partition value ({@link PartitionKey} applies identity, day, bucket and the other
 * transforms), rolling to a new file once one passes {@code write.target-file-size-bytes}.
 *
 * <p>Files are placed by Iceberg's {@link LocationProvider} for the table location and properties
 * ({@code <table>/data/<partition path>/} by default) and named by {@link DataFileNames}. Every
 * file this attempt creates is remembered, so that {@link #abort()} can delete them all.
 *
 * <p>Memory: each open file buffers up to a Parquet row group ({@code write.parquet.row-group-size-bytes})
 * on the heap, outside the task's Arrow budget. To bound that, at most {@code maxOpenFiles} files
 * are open at once: a row of yet another partition value first finishes the least recently written
 * file (so unsorted input over many partition values makes more, smaller files).
 *
 * <p>Not thread-safe; one instance per attempt. Usage: {@link #write} per batch, then either
 * {@link #complete()} or {@link #abort()}.
 */
public final class DataFileTaskWriter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DataFileTaskWriter.class);
  /** Rows between file-size checks (a size check asks the Parquet writer for its buffered size). */
  private static final int ROWS_PER_SIZE_CHECK = 1000;
  /** Default bound on files open at once (one per partition value being written). */
  public static final int DEFAULT_MAX_OPEN_FILES = 64;

  private final FileIO io;
  private final WriteTarget target;
  private final DataFileNames names;
  private final GenericAppenderFactory appenders;
  private final LocationProvider locations;
  private final ArrowRecordConverter converter;
  private final PartitionKey key;
  private final InternalRecordWrapper internal;
  private final long targetFileSizeBytes;
  private final int maxOpenFiles;
  // Access order: the first entry is the least recently written file.
  private final Map<PartitionKey, OpenFile> open = new LinkedHashMap<>(16, 0.75f, true);
  private final List<String> created = new ArrayList<>();
  private final List<DataFile> finished = new ArrayList<>();
  private int nextSeq;
  private long rows;
  private boolean ended;

  private static final class OpenFile {
    final DataWriter<Record> writer;
    final String location;
    long rows;

    OpenFile(DataWriter<Record> writer, String location) {
      this.writer = writer;
      this.location = location;
    }
  }

  /**
   * @param io where files are written (S3FileIO on AWS); not closed here
   * @param target the table's location, schema, spec and properties
   * @param names the attempt's file names
   * @throws EngineException INTERNAL_ERROR when the schema has columns that cannot be written
   */
  public DataFileTaskWriter(FileIO io, WriteTarget target, DataFileNames names) {
    this(io, target, names, DEFAULT_MAX_OPEN_FILES);
  }

  /**
   * @param maxOpenFiles files open at once, at least 1
   * @throws EngineException INTERNAL_ERROR when the schema has columns that cannot be written
   */
  private java.util.function.BooleanSupplier cancelled = () -> false;

  public DataFileTaskWriter(FileIO io, WriteTarget target, DataFileNames names, int maxOpenFiles) {
    if (maxOpenFiles < 1) {
      throw new IllegalArgumentException("maxOpenFiles must be at least 1: " + maxOpenFiles);
    }
    this.maxOpenFiles = maxOpenFiles;
    this.io = io;
    this.target = target;
    this.names = names;
    this.appenders = new GenericAppenderFactory(target.schema(), target.spec()).setAll(target.properties());
    this.locations = LocationProviders.locationsFor(target.tableLocation(), target.properties());
    this.converter = new ArrowRecordConverter(target.schema());
    this.key = new PartitionKey(target.spec(), target.schema());
    this.internal = new InternalRecordWrapper(target.schema().asStruct());
    this.targetFileSizeBytes = PropertyUtil.propertyAsLong(target.properties(),
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
  }

  /**
   * Writes every row of the batch (column {@code i} is the table's top-level field {@code i}).
   * The batch is not kept.
   *
   * @throws EngineException USER_ERROR for values that do not fit their column (see
   *     {@link ArrowRecordConverter}), EXTERNAL when a file cannot be written
   */
  public void write(VectorSchemaRoot batch) {
    checkOpen();
    checkCancelled();
    converter.checkShape(batch);
    // One record reused for every row: the Parquet writer copies values out on write.
    GenericRecord record = converter.newRecord();
    int n = batch.getRowCount();
    try {
      for (int row = 0; row < n; row++) {
        converter.fill(batch, row, record);
        key.partition(internal.wrap(record));
        OpenFile file = open.get(key);
        if (file == null) {
          // Opening a file is the expensive step of a row (unsorted input over many partitions).
          checkCancelled();
          if (open.size() >= maxOpenFiles) {
            Iterator<OpenFile> eldest = open.values().iterator();
            OpenFile evicted = eldest.next();
            eldest.remove();
            finish(evicted);
          }
          PartitionKey partition = key.copy();
          file = newFile(partition);
          open.put(partition, file);
        }
        file.writer.write(record);
        file.rows++;
        rows++;
        if (file.rows % ROWS_PER_SIZE_CHECK == 0 && file.writer.length() >= targetFileSizeBytes) {
          open.remove(key);
          finish(file);
        }
      }
    } catch (UncheckedIOException e) {
      throw writeFailed(e);
    }
  }

  /**
   * What the writer polls at each batch and before opening each file; when it turns true it stops
   * with CANCELLED (the caller then aborts, deleting the attempt's files).
   */
  public void cancelWhen(java.util.function.BooleanSupplier condition) {
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
      try {
        file.writer.close();
      } catch (IOException | RuntimeException e) {
        LOG.debug("closing {} while aborting: {}", file.location, e.toString());
      }
    }
    open.clear();
    for (String location : created) {
      try {
        io.deleteFile(location);
      } catch (RuntimeException e) {
        LOG.warn("could not delete data file {} of an aborted attempt: {}", location, e.toString());
      }
    }
    created.clear();
    finished.clear();
  }

  /** Rows written so far. */
  public long rowsWritten() {
    return rows;
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
    DataWriter<Record> writer = appenders.newDataWriter(
        EncryptedFiles.plainAsEncryptedOutput(io.newOutputFile(location)), target.format(),
        target.spec().isUnpartitioned() ? null : partition);
    return new OpenFile(writer, location);
  }

  private void finish(OpenFile file) {
    try {
      file.writer.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    finished.add(file.writer.toDataFile());
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

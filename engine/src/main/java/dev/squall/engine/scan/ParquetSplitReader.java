package dev.squall.engine.scan;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.BytesColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.DataType.Kind;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.schema.MessageType;

/**
 * Reads one Iceberg split (a {@link FileScanTask} over a Parquet data file) into engine
 * {@link Column} batches, decoding pages straight into column arrays.
 *
 * <p>Use: {@code open(task, projected, filter, io)}, then {@link #next(Column[])} until it returns
 * 0, then {@link #close()}. Each call fills {@code out[i]} with a new column of the i-th column of
 * {@code projected} (engine type {@link #types()}[i], see {@link #engineType(Type)}) holding at most
 * {@code maxRows} rows; a batch may span pages and row groups. Columns the data file lacks read as
 * NULLs. Rows deleted by the task's delete files (positions, deletion vectors, equality deletes)
 * are left out. The filter and the task's residual only skip row groups; rows are not filtered.
 *
 * <p>Only the projected column chunks (plus equality delete columns) of the chosen row groups are
 * fetched, and the small chunks between them ({@link GapColumns}), each run of adjacent chunks with
 * one read through the {@link FileIO} (a ranged GET on S3), and the next row group is fetched on
 * another thread while the current one is decoded.
 * Decompression is parquet-mr's codec factory (snappy, gzip, zstd, lz4, brotli when present).
 * Flat columns only: a projected nested column is refused.
 *
 * <p>Two of Iceberg's metadata columns may be projected as well ({@link MetadataColumns#FILE_PATH}
 * {@code _file} and {@link MetadataColumns#ROW_POSITION} {@code _pos}, by their field ids): the data
 * file's location and each row's position in the file (from 0, counted before deletes), which is
 * what a row-level delete names a row by.
 */
public final class ParquetSplitReader implements AutoCloseable {
  private final String location;
  private final ParquetFileReader reader;
  private final List<RowGroupSelector.RowGroup> rowGroups;
  private final SqlType[] readTypes;
  private final ColumnChunkReader[] chunkReaders;
  private final int projectedCount;
  private final RowDeletes deletes;
  private final int maxRows;
  /** Per read column: {@link #DATA}, {@link #FILE_PATH} or {@link #ROW_POSITION}. */
  private final int[] metadataKinds;
  /** The data file's location as a one-entry dictionary, when {@code _file} is read. */
  private final BytesColumn filePath;

  private static final int DATA = 0;
  private static final int FILE_PATH = 1;
  private static final int ROW_POSITION = 2;
  /** Threads that fetch the next row group of a split (I/O only; daemon, idle ones expire). */
  private static final ExecutorService PREFETCH = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "squall-parquet-prefetch");
    t.setDaemon(true);
    return t;
  });

  private int nextRowGroup;
  /** The fetch of row group {@code rowGroups.get(nextRowGroup)}, when one is under way. */
  private Future<PageReadStore> prefetched;
  private long rowGroupLeft;
  private long nextPosition;
  /** Per read column, the data bytes of its last batch: the first guess for the next one's room. */
  private final int[] bytesHint;
  /** Whether each batch is decoded into the previous one's arrays ({@link #recycleBatches()}). */
  private boolean recycle;
  /** The buffers of the last batch, when recycling. */
  private ColumnBuffer[] spare;

  private ParquetSplitReader(String location, ParquetFileReader reader, List<RowGroupSelector.RowGroup> rowGroups,
      SqlType[] readTypes, ColumnChunkReader[] chunkReaders, int projectedCount, RowDeletes deletes, int maxRows) {
    this.location = location;
    this.reader = reader;
    this.rowGroups = rowGroups;
    this.readTypes = readTypes;
    this.chunkReaders = chunkReaders;
    this.projectedCount = projectedCount;
    this.deletes = deletes;
    this.maxRows = maxRows;
    this.bytesHint = new int[readTypes.length];
    this.metadataKinds = new int[readTypes.length];
    this.filePath = BytesColumn.of(SqlType.VARCHAR, location.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    java.util.Arrays.fill(bytesHint, 16 * maxRows);
  }

  /** {@link #open(FileScanTask, Schema, Expression, FileIO, int)} with batches of up to 8192 rows. */
  public static ParquetSplitReader open(FileScanTask task, Schema projected, Expression filter, FileIO io) {
    return open(task, projected, filter, io, 8192);
  }

  /**
   * Opens a split: reads the data file's footer, chooses the split's row groups and loads its
   * delete files.
   *
   * @param task the split; its {@code schema()} is the table schema the filters bind to
   * @param projected the columns to read, in output order (top-level fields of the table schema)
   * @param filter the scan's pushed Iceberg filter (unbound), or null; ANDed with the task's residual
   * @param io the FileIO of the table's data and delete files
   * @param maxRows the largest batch
   * @throws EngineException USER_ERROR for a data file that is not Parquet, a nested or unsupported
   *     column or corrupt data; EXTERNAL when the file cannot be read
   */
  public static ParquetSplitReader open(FileScanTask task, Schema projected, Expression filter, FileIO io, int maxRows) {
    return open(task, projected, filter, null, null, io, maxRows);
  }

  /**
   * As {@link #open(FileScanTask, Schema, Expression, FileIO, int)}, also skipping the row groups a
   * runtime filter ({@code runtime}, unbound Iceberg predicate, or null) excludes, counted in
   * {@code counters} (may be null).
   */
  public static ParquetSplitReader open(FileScanTask task, Schema projected, Expression filter, Expression runtime,
      ScanCounters counters, FileIO io, int maxRows) {
    String location = task.file().location();
    if (task.file().format() != FileFormat.PARQUET) {
      throw ParquetScanException.unsupported("data file " + location + " is " + task.file().format() + "; only Parquet is read");
    }
    Schema tableSchema = task.schema();
    List<Types.NestedField> fields = new ArrayList<>(projected.columns());
    Set<Integer> projectedIds = new LinkedHashSet<>();
    fields.forEach(f -> projectedIds.add(f.fieldId()));
    for (int id : RowDeletes.equalityFieldIds(task)) {
      if (!projectedIds.contains(id)) {
        Types.NestedField f = tableSchema.findField(id);
        if (f == null) {
          throw ParquetScanException.corrupt("equality delete field id " + id + " of " + location + " is not in the table schema");
        }
        fields.add(f);
      }
    }
    SqlType[] readTypes = new SqlType[fields.size()];
    List<Integer> readIds = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      Types.NestedField f = fields.get(i);
      if (!f.type().isPrimitiveType()) {
        throw ParquetScanException.unsupported("column " + f.name() + " of " + location + " is " + f.type()
            + "; only top-level primitive columns are read");
      }
      readTypes[i] = engineType(f.type());
      if (!isMetadataField(f.fieldId())) {
        readIds.add(f.fieldId());
      }
    }
    ParquetFileReader reader = null;
    try {
      reader = ParquetFileReader.open(new IcebergInputFile(io.newInputFile(location, task.file().fileSizeInBytes())),
          ParquetReadOptions.builder(new PlainParquetConfiguration()).build());
      MessageType fileSchema = reader.getFileMetaData().getSchema();
      MessageType withIds = ParquetSchemaUtil.hasIds(fileSchema) ? fileSchema : ParquetSchemaUtil.addFallbackIds(fileSchema);
      Map<Integer, Integer> fieldIndexById = new HashMap<>();
      for (int i = 0; i < withIds.getFieldCount(); i++) {
        org.apache.parquet.schema.Type.ID id = withIds.getType(i).getId();
        if (id != null) {
          fieldIndexById.put(id.intValue(), i);
        }
      }
      ColumnChunkReader[] chunkReaders = new ColumnChunkReader[fields.size()];
      List<org.apache.parquet.schema.Type> requested = new ArrayList<>();
      for (int i = 0; i < fields.size(); i++) {
        Integer index = fieldIndexById.get(fields.get(i).fieldId());
        if (index == null) {
          continue; // not in this data file (added later): NULLs
        }
        org.apache.parquet.schema.Type t = fileSchema.getType(index);
        if (!t.isPrimitive()) {
          throw ParquetScanException.unsupported("column " + t.getName() + " of " + location + " is nested in the data file");
        }
        if (!requested.contains(t)) {
          requested.add(t);
        }
        chunkReaders[i] = ColumnChunkReaders.create(fileSchema.getColumnDescription(new String[] {t.getName()}), fields.get(i).type());
      }
      // Small unprojected chunks between projected ones are fetched too (not decoded), so that a
      // row group's chunks come in fewer requests.
      reader.setRequestedSchema(
          new MessageType(fileSchema.getName(), GapColumns.fetched(reader.getRowGroups(), fileSchema, requested)));
      Expression pruning = Expressions.and(filter == null ? Expressions.alwaysTrue() : filter, task.residual());
      List<RowGroupSelector.RowGroup> rowGroups =
          RowGroupSelector.select(reader, withIds, tableSchema, pruning, runtime, counters, task.start(), task.length());
      RowDeletes deletes = rowGroups.isEmpty() ? null : RowDeletes.load(task, tableSchema, readIds, io);
      ParquetSplitReader split = new ParquetSplitReader(location, reader, rowGroups, readTypes, chunkReaders,
          projected.columns().size(), deletes, maxRows);
      for (int i = 0; i < fields.size(); i++) {
        int id = fields.get(i).fieldId();
        split.metadataKinds[i] = id == MetadataColumns.FILE_PATH.fieldId() ? FILE_PATH
            : id == MetadataColumns.ROW_POSITION.fieldId() ? ROW_POSITION : DATA;
      }
      return split;
    } catch (IOException | RuntimeException e) {
      closeQuietly(reader);
      throw translate(location, e);
    }
  }

  /**
   * Decodes each batch into the arrays of the one before (where large enough) instead of fresh
   * ones: for a caller that keeps no column of a batch once it asks for the next, as a scan whose
   * consumer promised so ({@code BatchOperator.consumerKeepsNoBatch}). A batch's columns then
   * change at the next call.
   */
  public void recycleBatches() {
    recycle = true;
  }

  /** True for the field ids of the metadata columns this reader produces ({@code _file}, {@code _pos}). */
  public static boolean isMetadataField(int fieldId) {
    return fieldId == MetadataColumns.FILE_PATH.fieldId() || fieldId == MetadataColumns.ROW_POSITION.fieldId();
  }

  /** The engine type each projected column is read as, in projection order. */
  public List<SqlType> types() {
    return List.of(readTypes).subList(0, projectedCount);
  }

  /**
   * Opens a split on another thread and starts fetching its first row group, so that a scan can
   * have the next data file's footer and first column chunks on hand when the current split ends
   * (the open itself is {@link #open(FileScanTask, Schema, Expression, FileIO, int)}; its failure
   * is the future's). Whoever takes the future closes the reader, also when it is not used:
   * {@link #closeWhenOpened(Future)}.
   */
  public static Future<ParquetSplitReader> openAhead(FileScanTask task, Schema projected, Expression filter, FileIO io,
      int maxRows) {
    return openAhead(task, projected, filter, null, null, io, maxRows);
  }

  /** {@link #openAhead(FileScanTask, Schema, Expression, FileIO, int)} with a runtime filter (see {@code open}). */
  public static Future<ParquetSplitReader> openAhead(FileScanTask task, Schema projected, Expression filter,
      Expression runtime, ScanCounters counters, FileIO io, int maxRows) {
    return PREFETCH.submit(() -> {
      ParquetSplitReader split = open(task, projected, filter, runtime, counters, io, maxRows);
      split.fetchAhead();
      return split;
    });
  }

  /** Closes the reader of an {@link #openAhead} once its open ends (at once when it already has). */
  public static void closeWhenOpened(Future<ParquetSplitReader> opening) {
    PREFETCH.execute(() -> {
      try {
        opening.get().close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException | RuntimeException ignored) {
        // Not opened, or its close failed: nothing is left to release.
      }
    });
  }

  /** Starts fetching the next row group unless a fetch is under way or none is left. */
  private void fetchAhead() {
    if (prefetched == null && nextRowGroup < rowGroups.size()) {
      int index = rowGroups.get(nextRowGroup).index();
      prefetched = PREFETCH.submit(() -> reader.readRowGroup(index));
    }
  }

  /**
   * True once the split's last row group has been fetched (or none is to be read): reading on
   * needs no more requests, so the next split can be opened ahead without holding more than two
   * row groups' column chunks at once.
   */
  public boolean fetchedAll() {
    return nextRowGroup >= rowGroups.size();
  }

  /** How many row groups of the data file this split reads (after the split and filter tests). */
  public int rowGroupCount() {
    return rowGroups.size();
  }

  /**
   * Reads the next batch into {@code out[0 .. projected columns)}.
   *
   * @return the batch's row count, at least 1; 0 when the split is exhausted
   */
  public int next(Column[] out) {
    return next(out, maxRows);
  }

  /**
   * Reads the next batch of at most {@code limit} rows (and at most {@code maxRows}), so that a
   * caller can fill up a batch that the previous split ended early.
   *
   * @return the batch's row count, at least 1; 0 when the split is exhausted
   */
  public int next(Column[] out, int limit) {
    int batchRows = Math.max(1, Math.min(limit, maxRows));
    try {
      while (true) {
        int rows = 0;
        ColumnBuffer[] buffers = new ColumnBuffer[readTypes.length];
        for (int c = 0; c < buffers.length; c++) {
          buffers[c] = spare != null ? spare[c].recycled(batchRows, bytesHint[c])
              : new ColumnBuffer(readTypes[c], batchRows, bytesHint[c]);
        }
        if (recycle) {
          spare = buffers;
        }
        long[] positions = deletes != null && deletes.needsPositions() ? new long[batchRows] : null;
        while (rows < batchRows) {
          if (rowGroupLeft == 0) {
            if (!startNextRowGroup()) {
              break;
            }
            continue;
          }
          int k = (int) Math.min(batchRows - rows, rowGroupLeft);
          for (int c = 0; c < chunkReaders.length; c++) {
            if (metadataKinds[c] == FILE_PATH) {
              buffers[c].fillDictionaryEntry(filePath, rows, k);
            } else if (metadataKinds[c] == ROW_POSITION) {
              buffers[c].fillSequence(nextPosition, rows, k);
            } else if (chunkReaders[c] == null) {
              buffers[c].markAllNull(rows, k);
            } else {
              chunkReaders[c].read(buffers[c], rows, k);
            }
          }
          if (positions != null) {
            for (int i = 0; i < k; i++) {
              positions[rows + i] = nextPosition + i;
            }
          }
          nextPosition += k;
          rowGroupLeft -= k;
          rows += k;
        }
        if (rows == 0) {
          return 0;
        }
        Column[] cols = new Column[readTypes.length];
        for (int c = 0; c < cols.length; c++) {
          cols[c] = buffers[c].toColumn(rows);
          if (buffers[c].offsets != null && buffers[c].ids == null) {
            // A little over what the last batch needed, so a similar batch never grows its array.
            bytesHint[c] = (int) Math.min(1 << 30, (long) buffers[c].offsets[rows] * maxRows / rows * 9 / 8 + 64);
          }
        }
        int live = rows;
        if (deletes != null) {
          int[] keep = new int[rows];
          live = deletes.live(cols, positions, rows, keep);
          if (live < rows) {
            for (int c = 0; c < projectedCount; c++) {
              cols[c] = cols[c].gather(keep, live);
            }
          }
        }
        if (live == 0) {
          continue;
        }
        System.arraycopy(cols, 0, out, 0, projectedCount);
        return live;
      }
    } catch (IOException | RuntimeException e) {
      throw translate(location, e);
    }
  }

  private boolean startNextRowGroup() throws IOException {
    if (nextRowGroup >= rowGroups.size()) {
      return false;
    }
    RowGroupSelector.RowGroup g = rowGroups.get(nextRowGroup++);
    PageReadStore store = prefetched != null ? awaitPrefetch() : reader.readRowGroup(g.index());
    // Fetch the next row group's column chunks while this one is decoded. Only the fetch runs
    // on the other thread: parquet-mr decompresses a page when the decoder asks for it.
    fetchAhead();
    if (store == null) {
      throw ParquetScanException.corrupt("row group " + g.index() + " of " + location + " is missing");
    }
    for (ColumnChunkReader r : chunkReaders) {
      if (r != null) {
        r.startRowGroup(store.getPageReader(r.column));
      }
    }
    rowGroupLeft = g.rows();
    nextPosition = g.firstRow();
    return true;
  }

  private PageReadStore awaitPrefetch() throws IOException {
    Future<PageReadStore> f = prefetched;
    prefetched = null;
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while fetching a row group", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof RuntimeException re) {
        throw re;
      }
      throw new IOException(cause);
    }
  }

  /** The engine type an Iceberg column is read as (the mapping the scan's plan types follow). */
  public static SqlType engineType(Type type) {
    return switch (type.typeId()) {
      case BOOLEAN -> SqlType.BOOLEAN;
      case INTEGER -> SqlType.INTEGER;
      case LONG -> SqlType.BIGINT;
      case FLOAT -> new SqlType(Kind.REAL, 0, 0);
      case DOUBLE -> SqlType.DOUBLE;
      case DECIMAL -> SqlType.decimal(((Types.DecimalType) type).precision(), ((Types.DecimalType) type).scale());
      case DATE -> SqlType.DATE;
      case TIMESTAMP -> SqlType.TIMESTAMP;
      case STRING, UUID -> SqlType.VARCHAR;
      case BINARY, FIXED -> new SqlType(Kind.VARBINARY, 0, 0);
      default -> throw EngineException.badPlan("Iceberg type " + type + " is not supported by the engine");
    };
  }

  private static EngineException translate(String location, Exception e) {
    if (e instanceof EngineException ee) {
      if (ee.getMessage() != null && !ee.getMessage().contains(location)) {
        return new EngineException(ee.code(), ee.getMessage() + " (data file " + location + ")", ee);
      }
      return ee;
    }
    if (e instanceof IndexOutOfBoundsException || e instanceof org.apache.parquet.io.ParquetDecodingException
        || e instanceof IllegalArgumentException) {
      return ParquetScanException.corrupt(location + ": " + e.getMessage());
    }
    return ParquetScanException.io(location, e);
  }

  private static void closeQuietly(ParquetFileReader reader) {
    if (reader != null) {
      try {
        reader.close();
      } catch (IOException ignored) {
        // The open already failed; that failure is the one reported.
      }
    }
  }

  @Override
  public void close() {
    try {
      if (prefetched != null) {
        // The reader's stream must not close under a fetch in flight.
        try {
          awaitPrefetch();
        } catch (IOException | RuntimeException ignored) {
          // The fetched row group is not needed any more.
        }
      }
      reader.close();
    } catch (IOException e) {
      throw ParquetScanException.io(location, e);
    }
  }
}

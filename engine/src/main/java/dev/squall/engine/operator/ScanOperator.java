package dev.squall.engine.operator;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.expr.Casts;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.memory.OperatorMemory;
import dev.squall.engine.runtimefilter.ProbeKeyFilter;
import dev.squall.engine.scan.ParquetSplitReader;
import dev.squall.engine.scan.ScanCounters;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.KeyFilter;
import dev.squall.proto.v1.Scan;
import dev.squall.proto.v1.ScanSplit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.ScanTaskParser;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * Reads the Iceberg splits of one scan input: each split is a {@link FileScanTask} (Iceberg's own
 * JSON, {@link ScanTaskParser}) over a Parquet data file, read through the injected {@link FileIO}
 * by the vectorized {@link ParquetSplitReader}, projected to the plan's field ids, with the pushed
 * filter and the split's residual used to skip row groups and the split's delete files applied.
 * Exact filtering is left to a Filter above.
 *
 * <p>Splits are opened ahead on other threads ({@link ParquetSplitReader#openAhead}: footer,
 * row-group choice, delete files and the first row group's column chunks), several at once, so
 * that a task reading many small data files does not wait for those round trips to S3 one file
 * after another: up to {@link #MAX_SPLITS_AHEAD} splits whose byte ranges add up to at most
 * {@link #MAX_BYTES_AHEAD}. A split larger than that is opened ahead alone, and only once the
 * current split has fetched its last row group, so that at most two of its row groups' column
 * chunks are held.
 */
public final class ScanOperator extends BatchOperator {
  private final String table;
  private final org.apache.iceberg.Schema projected;
  private final int[] fieldPositions;
  private final Type[] fieldTypes;
  private final Expression filter;
  /** The runtime filters' row-group predicate (null when none) and row tests. */
  private final Expression runtime;
  private final List<ProbeKeyFilter> probeFilters = new ArrayList<>();
  private final ScanCounters counters = new ScanCounters();
  private long runtimeRowsDropped;
  /** The data files and split bytes the coordinator left out by runtime filters (Scan's own count). */
  private final long runtimeFilesSkipped;
  private final long runtimeFileBytesSkipped;
  private final FileIO io;
  private final List<ScanSplit> splits;
  private int nextSplit;
  private ParquetSplitReader current;
  /** A split being opened ahead, and its byte range. */
  private record Ahead(Future<ParquetSplitReader> reader, long bytes) {}

  /** The next splits, in order, each being opened ahead. */
  private final ArrayDeque<Ahead> opening = new ArrayDeque<>();
  /** The byte ranges of the splits in {@link #opening}, added up. */
  private long bytesAhead;

  /**
   * The most splits opened ahead at once. Each open is a few ranged GETs one after another (footer,
   * dictionary pages a filter tests, column chunks), so overlapping four of them hides most of a
   * small data file's round trips.
   */
  public static final int MAX_SPLITS_AHEAD = 4;

  /** A batch with at least this many rows when its split ends is handed on short rather than joined to the next split's rows. */
  static final int MIN_JOINED_BATCH_ROWS = BATCH_ROWS / 8;

  /** The most split bytes opened ahead at once, beyond one split (an upper bound of the chunks held). */
  public static final long MAX_BYTES_AHEAD = 32L << 20;

  public ScanOperator(OperatorMemory memory, Schema schema, Scan scan, List<ScanSplit> splits, FileIO io) {
    super(memory, schema, List.of());
    this.table = scan.getTable();
    this.runtimeFilesSkipped = scan.getRuntimeFilterFilesSkipped();
    this.runtimeFileBytesSkipped = scan.getRuntimeFilterFileBytesSkipped();
    this.io = io;
    this.splits = splits;
    org.apache.iceberg.Schema tableSchema = SchemaParser.fromJson(scan.getIcebergSchemaJson());
    Set<Integer> ids = new HashSet<>(scan.getProjectedFieldIdsList());
    this.projected = withMetadataColumns(TypeUtil.select(tableSchema, ids), ids);
    int n = scan.getProjectedFieldIdsCount();
    if (n != types.size()) {
      throw EngineException.badPlan("scan of " + table + " projects " + n + " fields but its output schema has " + types.size());
    }
    this.fieldPositions = new int[n];
    this.fieldTypes = new Type[n];
    List<Types.NestedField> columns = projected.columns();
    for (int i = 0; i < n; i++) {
      int id = scan.getProjectedFieldIds(i);
      int pos = -1;
      for (int p = 0; p < columns.size(); p++) {
        if (columns.get(p).fieldId() == id) {
          pos = p;
        }
      }
      if (pos < 0) {
        throw EngineException.badPlan("field id " + id + " is not a top-level column of " + table);
      }
      fieldPositions[i] = pos;
      fieldTypes[i] = columns.get(pos).type();
    }
    this.filter = scan.getIcebergFilterJson().isEmpty()
        ? Expressions.alwaysTrue()
        : ExpressionParser.fromJson(scan.getIcebergFilterJson(), tableSchema);
    Expression rt = null;
    for (KeyFilter f : scan.getRuntimeFiltersList()) {
      if (f.getColumn() < 0 || f.getColumn() >= n) {
        throw EngineException.badPlan("runtime filter on column " + f.getColumn() + " of a scan of " + n + " columns");
      }
      ProbeKeyFilter probe = new ProbeKeyFilter(f);
      probeFilters.add(probe);
      Types.NestedField field = tableSchema.findField(scan.getProjectedFieldIds(f.getColumn()));
      if (field != null && field.type().isPrimitiveType()) {
        Expression e = probe.iceberg(field.name(), field.type());
        rt = rt == null ? e : Expressions.and(rt, e);
      }
    }
    this.runtime = rt;
  }

  /** Row groups of the scan's splits, those read, and those runtime filters skipped. */
  public ScanCounters counters() {
    return counters;
  }

  /** Data files the coordinator left out of the splits by runtime filters (never opened). */
  public long runtimeFilesSkipped() {
    return runtimeFilesSkipped;
  }

  /** Split bytes of the data files left out by runtime filters. */
  public long runtimeFileBytesSkipped() {
    return runtimeFileBytesSkipped;
  }

  /** Rows of the row groups read that runtime filters dropped. */
  public long runtimeRowsDropped() {
    return runtimeRowsDropped;
  }

  /** The selected table columns followed by the projected metadata columns ({@code _file}, {@code _pos}). */
  private static org.apache.iceberg.Schema withMetadataColumns(org.apache.iceberg.Schema selected, Set<Integer> ids) {
    List<Types.NestedField> columns = new ArrayList<>(selected.columns());
    for (Types.NestedField metadata : List.of(MetadataColumns.FILE_PATH, MetadataColumns.ROW_POSITION)) {
      if (ids.contains(metadata.fieldId())) {
        columns.add(metadata);
      }
    }
    return columns.size() == selected.columns().size() ? selected : new org.apache.iceberg.Schema(columns);
  }

  @Override
  protected ColumnBatch produce() {
    int n = types.size();
    int width = projected.columns().size();
    // A split that ends early in a batch is followed by the next one's first rows, so that batches
    // of small files stay large; one that ends later leaves its batch short, since joining the
    // pieces copies them (and turns dictionary columns of two files into plain ones).
    List<Column[]> parts = new ArrayList<>();
    int rows = 0;
    while (rows < BATCH_ROWS) {
      if (current == null && !openNextSplit()) {
        break;
      }
      Column[] read = new Column[width];
      int got = current.next(read, BATCH_ROWS - rows);
      if (got == 0) {
        closeCurrent();
        if (rows >= MIN_JOINED_BATCH_ROWS) {
          break;
        }
        continue;
      }
      openAhead();
      parts.add(read);
      rows += got;
    }
    if (rows == 0) {
      return null;
    }
    Column[] cols = new Column[n];
    for (int c = 0; c < n; c++) {
      int field = fieldPositions[c];
      Column col = parts.get(0)[field];
      if (parts.size() > 1) {
        List<Column> pieces = new ArrayList<>();
        for (Column[] part : parts) {
          pieces.add(part[field]);
        }
        col = Column.concat(col.type(), pieces);
      }
      cols[c] = Casts.cast(col, types.get(c));
    }
    ColumnBatch batch = new ColumnBatch(cols, rows);
    return probeFilters.isEmpty() ? batch : runtimeFiltered(batch);
  }

  /** The batch without rows whose key fails a runtime filter (NULL keys included), a column at a time. */
  private ColumnBatch runtimeFiltered(ColumnBatch batch) {
    int n = batch.rows();
    int[] keep = new int[n];
    for (int r = 0; r < n; r++) {
      keep[r] = r;
    }
    int kept = n;
    for (ProbeKeyFilter f : probeFilters) {
      kept = f.select(batch.column(f.column()), keep, kept);
    }
    runtimeRowsDropped += n - kept;
    // An empty batch is handed on: null would end the scan.
    return kept == n ? batch : batch.select(keep, kept);
  }

  /**
   * Starts opening the splits after the current one while fewer than {@link #MAX_SPLITS_AHEAD} are
   * under way and their bytes stay within {@link #MAX_BYTES_AHEAD}; a larger split only alone and
   * once the current split has fetched all it reads.
   */
  private void openAhead() {
    while (nextSplit < splits.size() && opening.size() < MAX_SPLITS_AHEAD) {
      long length = Math.max(0, splits.get(nextSplit).getLength());
      boolean fits = bytesAhead + length <= MAX_BYTES_AHEAD;
      boolean alone = opening.isEmpty() && (current == null || current.fetchedAll());
      if (!fits && !alone) {
        return;
      }
      opening.add(new Ahead(ParquetSplitReader.openAhead(parse(splits.get(nextSplit++)), projected, filter, runtime,
          counters, io, BATCH_ROWS), length));
      bytesAhead += length;
    }
  }

  private boolean openNextSplit() {
    if (opening.isEmpty() && splits.size() - nextSplit == 1) {
      current = ParquetSplitReader.open(parse(splits.get(nextSplit++)), projected, filter, runtime, counters, io, BATCH_ROWS);
    } else {
      if (opening.isEmpty()) {
        openAhead();
      }
      if (opening.isEmpty()) {
        return false;
      }
      Ahead next = opening.poll();
      bytesAhead -= next.bytes();
      // The splits after this one start opening while this one's open is awaited.
      openAhead();
      current = opened(next.reader());
    }
    if (consumerKeepsNoBatch()) {
      // A batch is handed on over the reader's arrays (or copied where splits meet or rows are
      // dropped), and the consumer is done with it before asking for the next.
      current.recycleBatches();
    }
    return true;
  }

  private FileScanTask parse(ScanSplit split) {
    try {
      return ScanTaskParser.fromJson(split.getFileScanTaskJson(), true);
    } catch (RuntimeException e) {
      throw EngineException.badPlan("split of " + table + " (" + split.getDataFilePath() + ") is not Iceberg FileScanTask JSON: " + e.getMessage());
    }
  }

  /** The split opened ahead, or the failure of its open as the open would have thrown it. */
  private static ParquetSplitReader opened(Future<ParquetSplitReader> next) {
    try {
      return next.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      ParquetSplitReader.closeWhenOpened(next);
      throw EngineException.cancelled();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  private void closeCurrent() {
    if (current != null) {
      ParquetSplitReader r = current;
      current = null;
      r.close();
    }
  }

  @Override
  protected void releaseState() {
    closeCurrent();
    for (Ahead ahead : opening) {
      ParquetSplitReader.closeWhenOpened(ahead.reader());
    }
    opening.clear();
    bytesAhead = 0;
  }

  /** The engine type a column of an Iceberg type is read as. */
  static SqlType icebergToSql(Type type) {
    return ParquetSplitReader.engineType(type);
  }
}

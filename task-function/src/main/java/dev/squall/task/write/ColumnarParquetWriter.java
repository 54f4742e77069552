package dev.squall.task.write;

import dev.squall.engine.column.Column;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.parquet.ParquetCodecFactory;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;

/**
 * Writes one Parquet data file column by column from engine columns, through parquet-mr's
 * low-level write path: a {@link ColumnWriteStore} of per-column writers (encodings, dictionary,
 * statistics, page cutting) over a {@link ColumnChunkPageWriteStore} (compression, column and offset
 * indexes), flushed into a {@link ParquetFileWriter} one row group at a time. The same parts
 * Iceberg's own Parquet writer drives record by record; here each column's values of a run of rows
 * are handed over in one loop ({@link ColumnChunkEncoder}) and the rows are then ended together.
 *
 * <p>The file schema is Iceberg's conversion of the table schema ({@code ParquetSchemaUtil.convert},
 * field ids kept) and the footer carries the table schema as {@code iceberg.schema}, as Iceberg's
 * writer does. Row groups close as Iceberg's do: the buffered size is checked after at least
 * {@code rowGroupCheckMin} and at most {@code rowGroupCheckMax} rows, at half the rows estimated to
 * fill the group, and a group closes once it is within two rows of
 * {@code write.parquet.row-group-size-bytes}.
 *
 * <p>{@link #metrics()} are Iceberg's column metrics computed from the footer statistics with the
 * table's {@link org.apache.iceberg.MetricsConfig} ({@link ParquetUtil#footerMetrics}), plus the NaN
 * counts and NaN-free bounds of float and double columns.
 *
 * <p>Memory: a row group's pages are buffered on the heap (compressed) until the group closes. Not
 * thread-safe. Usage: {@link #write} any number of times, then {@link #close()} or {@link #abandon()}.
 */
final class ColumnarParquetWriter {
  /** Iceberg's default truncation of column index bounds ({@code parquet.columnindex.truncate.length}). */
  private static final int COLUMN_INDEX_TRUNCATE_LENGTH = 64;

  private final ParquetWriteSettings settings;
  private final MessageType type;
  private final ColumnDescriptor[] descriptors;
  private final ColumnChunkEncoder[] encoders;
  private final Map<String, String> footer;
  private final ParquetOutput output;
  private final ParquetCodecFactory codecs;
  private final CompressionCodecFactory.BytesInputCompressor compressor;
  private final ParquetFileWriter writer;
  private final long rowGroupSizeBytes;
  private final double priorWrittenPerBuffered;
  private ColumnChunkPageWriteStore pageStore;
  private ColumnWriteStore writeStore;
  private int rowGroupOrdinal;
  private long rowGroupRows;
  private long nextCheckRows;
  private long rows;
  private boolean closed;
  private boolean finished;
  private long length;
  /** Buffered bytes of the row groups written so far, as measured just before each was flushed. */
  private long flushedBuffered;
  /** Bytes those row groups took in the file. */
  private long flushedWritten;

  /**
   * Opens the file (creating or overwriting it), with the row group size of the settings and no
   * prior compression estimate.
   *
   * @param type the Parquet schema of {@code schema}, from {@link #fileSchema}
   * @throws UncheckedIOException when the file cannot be created
   */
  ColumnarParquetWriter(org.apache.iceberg.io.OutputFile file, Schema schema, MessageType type,
      ParquetWriteSettings settings) {
    this(file, schema, type, settings, settings.rowGroupSizeBytes(), Double.NaN);
  }

  /**
   * Opens the file (creating or overwriting it).
   *
   * @param type the Parquet schema of {@code schema}, from {@link #fileSchema}
   * @param rowGroupSizeBytes the buffered size at which a row group closes (at most the settings')
   * @param priorWrittenPerBuffered bytes a buffered byte took in earlier files of the same rows
   *     ({@link #writtenPerBuffered()} of such a file), used by {@link #estimatedLength()} until
   *     this file has written a row group; NaN when unknown
   * @throws UncheckedIOException when the file cannot be created
   */
  ColumnarParquetWriter(org.apache.iceberg.io.OutputFile file, Schema schema, MessageType type,
      ParquetWriteSettings settings, long rowGroupSizeBytes, double priorWrittenPerBuffered) {
    this.settings = settings;
    this.rowGroupSizeBytes = Math.max(1, Math.min(rowGroupSizeBytes, settings.rowGroupSizeBytes()));
    this.priorWrittenPerBuffered = priorWrittenPerBuffered;
    this.type = type;
    List<ColumnDescriptor> columns = type.getColumns();
    this.descriptors = columns.toArray(ColumnDescriptor[]::new);
    this.encoders = schema.columns().stream().map(ColumnChunkEncoder::forField).toArray(ColumnChunkEncoder[]::new);
    this.footer = Map.of("iceberg.schema", SchemaParser.toJson(schema));
    this.output = new ParquetOutput(file);
    ParquetProperties props = settings.parquet();
    this.codecs = new ParquetCodecFactory(settings.conf(), props.getPageSizeThreshold());
    this.compressor = codecs.getCompressor(settings.codec());
    try {
      this.writer = new ParquetFileWriter(output, type, ParquetFileWriter.Mode.OVERWRITE,
          this.rowGroupSizeBytes, 0, COLUMN_INDEX_TRUNCATE_LENGTH,
          ParquetProperties.DEFAULT_STATISTICS_TRUNCATE_LENGTH, ParquetProperties.DEFAULT_PAGE_WRITE_CHECKSUM_ENABLED);
      writer.start();
    } catch (IOException e) {
      abandon();
      throw new UncheckedIOException("could not create " + file.location(), e);
    }
    startRowGroup();
  }

  /** The Parquet schema data files of an Iceberg schema get (Iceberg's conversion, with field ids). */
  static MessageType fileSchema(Schema schema) {
    return org.apache.iceberg.parquet.ParquetSchemaUtil.convert(schema, "table");
  }

  /**
   * Appends rows {@code rows[from .. from + n)} of the columns (or rows {@code from .. from + n)} when
   * {@code rows} is null). Column {@code i} is the table's field {@code i}, as conformed by
   * {@link BatchConformer}.
   *
   * @throws UncheckedIOException when a row group cannot be written out
   */
  void write(Column[] columns, int[] rows, int from, int n) {
    int done = 0;
    while (done < n) {
      // Runs end where Iceberg's writer would check the row group's size.
      int run = (int) Math.min(n - done, nextCheckRows - rowGroupRows);
      for (int c = 0; c < encoders.length; c++) {
        encoders[c].write(columns[c], rows, from + done, run);
      }
      for (int i = 0; i < run; i++) {
        writeStore.endRecord();
      }
      done += run;
      rowGroupRows += run;
      this.rows += run;
      if (rowGroupRows >= nextCheckRows) {
        checkRowGroupSize();
      }
    }
  }

  /** Rows written so far. */
  long rows() {
    return rows;
  }

  /** Bytes written to the file plus those buffered for the current row group; exact once closed. */
  long length() {
    if (closed) {
      return length;
    }
    try {
      return writer.getPos() + (rowGroupRows > 0 ? writeStore.getBufferedSize() : 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The file's size as it will be written: bytes written plus the open row group's buffer scaled
   * by the bytes a buffered byte took in this file's written row groups (or in earlier files, or
   * 1:1 when neither is known). The buffer holds values before encoding and compression (a
   * dictionary-encoded value counts 4 bytes until its page is cut), so counting it 1:1, as
   * Iceberg's writer does, makes a file that fits in one row group come out several times smaller
   * than the target. Exact once closed.
   */
  long estimatedLength() {
    if (closed) {
      return length;
    }
    try {
      long pos = writer.getPos();
      if (rowGroupRows == 0) {
        return pos;
      }
      double ratio = flushedBuffered > 0 ? writtenPerBuffered() : priorWrittenPerBuffered;
      long buffered = writeStore.getBufferedSize();
      return pos + (Double.isNaN(ratio) ? buffered : (long) (buffered * ratio));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Bytes in the file per buffered byte over the row groups written so far (the compression and
   * encoding ratio of these rows); NaN before the first row group is written.
   */
  double writtenPerBuffered() {
    return flushedBuffered == 0 ? Double.NaN : (double) flushedWritten / flushedBuffered;
  }

  /**
   * Writes the last row group and the footer and closes the file.
   *
   * @throws UncheckedIOException when the file cannot be finished
   */
  void close() {
    if (closed) {
      return;
    }
    try {
      flushRowGroup();
      writeStore.close();
      writer.end(footer);
      closed = true;
      finished = true;
      length = writer.getPos();
    } catch (IOException e) {
      throw new UncheckedIOException("could not finish " + output.getPath(), e);
    } finally {
      codecs.release();
    }
  }

  /** Closes the file's stream without a footer (the file is to be deleted). Never throws. */
  void abandon() {
    closed = true;
    try {
      if (output.opened() != null) {
        output.opened().close();
      }
    } catch (IOException | RuntimeException e) {
      // The caller deletes the file; a close failure changes nothing.
    } finally {
      codecs.release();
    }
  }

  /** Iceberg column metrics of the closed file. */
  Metrics metrics() {
    checkClosed();
    Stream<org.apache.iceberg.FieldMetrics<?>> fieldMetrics = Stream.of(encoders).flatMap(ColumnChunkEncoder::metrics);
    return ParquetUtil.footerMetrics(writer.getFooter(), fieldMetrics, settings.metrics());
  }

  /** Row group start offsets of the closed file, ascending. */
  List<Long> splitOffsets() {
    checkClosed();
    return ParquetUtil.getSplitOffsets(writer.getFooter());
  }

  /** The footer of the closed file. */
  ParquetMetadata footer() {
    checkClosed();
    return writer.getFooter();
  }

  private void checkClosed() {
    if (!finished) {
      throw new IllegalStateException("the Parquet file is not closed");
    }
  }

  private void checkRowGroupSize() {
    long buffered = writeStore.getBufferedSize();
    double rowSize = (double) buffered / rowGroupRows;
    long target = rowGroupSizeBytes;
    if (buffered > target - 2 * rowSize) {
      flushRowGroup();
      writeStore.close();
      startRowGroup();
    } else {
      long rowsToFill = (long) ((target - buffered) / rowSize);
      long interval = Math.max(rowsToFill / 2, settings.rowGroupCheckMin());
      nextCheckRows = rowGroupRows + Math.min(interval, settings.rowGroupCheckMax());
    }
  }

  private void flushRowGroup() {
    if (rowGroupRows == 0) {
      return;
    }
    try {
      long buffered = writeStore.getBufferedSize();
      long start = writer.getPos();
      writer.startBlock(rowGroupRows);
      writeStore.flush();
      pageStore.flushToFileWriter(writer);
      writer.endBlock();
      flushedBuffered += buffered;
      flushedWritten += writer.getPos() - start;
    } catch (IOException e) {
      throw new UncheckedIOException("could not write a row group of " + output.getPath(), e);
    }
  }

  private void startRowGroup() {
    nextCheckRows = Math.min(Math.max(rowGroupRows / 2, settings.rowGroupCheckMin()), settings.rowGroupCheckMax());
    rowGroupRows = 0;
    ParquetProperties props = settings.parquet();
    pageStore = new ColumnChunkPageWriteStore(compressor, type, props.getAllocator(), COLUMN_INDEX_TRUNCATE_LENGTH,
        ParquetProperties.DEFAULT_PAGE_WRITE_CHECKSUM_ENABLED, null, rowGroupOrdinal++);
    writeStore = props.newColumnWriteStore(type, pageStore, pageStore);
    for (int c = 0; c < encoders.length; c++) {
      encoders[c].startRowGroup(writeStore.getColumnWriter(descriptors[c]));
    }
  }
}

package dev.squall.shuffle;

import dev.squall.engine.column.ArrowColumns;
import dev.squall.engine.column.Column;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.PartitionRange;
import dev.squall.proto.v1.ShuffleOutput;
import dev.squall.proto.v1.TaskSpec;
import dev.squall.shuffle.format.ByteSink;
import dev.squall.shuffle.format.Codecs;
import dev.squall.shuffle.format.ShuffleIndex;
import dev.squall.shuffle.partition.Partitioner;
import dev.squall.shuffle.s3.ObjectUpload;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.types.pojo.Schema;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The map side of a shuffle: partitions a task's batches and writes them to one S3 object per
 * task attempt.
 *
 * <pre>
 *   ShuffleWriter writer = ShuffleWriter.open(s3, allocator, spec);
 *   for (ColumnBatch batch : batches) writer.write(batch, schema);
 *   MapOutput out = writer.close();          // or writer.abort() on failure
 *   out.addTo(taskResult);
 * </pre>
 *
 * <p>Object format: output partitions back to back, each an Arrow IPC stream (schema message,
 * record batches with LZ4_FRAME or ZSTD body compression, end-of-stream marker), then the footer
 * of {@link ShuffleIndex}. Rows are partitioned with the engine's row hash (or range bounds),
 * appended column at a time to engine columns staged per partition, and written to Arrow and
 * encoded once {@code batchRows} rows or a per-partition byte share of the spill threshold are
 * gathered.
 *
 * <p>Bounded memory: when the writer holds more than the spill threshold, it ends a <em>run</em>:
 * each partition's stream is finished and appended to the object in partition order, and
 * whatever reached the part size is sent as a multipart part. A partition that received rows in
 * several runs therefore has several ranges (one IPC stream each). Small outputs are sent with
 * a single PutObject at {@link #close()}.
 *
 * <p>Not thread-safe: one writer belongs to one task attempt.
 */
public final class ShuffleWriter {
  private static final long MIN_STAGING_BYTES = 16 * 1024;

  private final String bucket;
  private final String key;
  private final MapTaskAttempt producer;
  private final Partitioner partitioner;
  private final int partitionCount;
  private final CompressionUtil.CodecType codec;
  private final ShuffleWriterOptions options;
  private final BufferAllocator allocator;
  private final ObjectUpload upload;
  private final ShuffleMetrics metrics = new ShuffleMetrics();
  private final PartitionBuffer[] buffers;
  private final List<PartitionRange> ranges = new ArrayList<>();
  private final boolean[] everWritten;
  private final long stagingBytesPerPartition;
  private Schema schema;
  private long encodedBytes;
  private int[] partitionOf = new int[0];
  private int[] order = new int[0];
  private boolean closed;

  private ShuffleWriter(S3Client s3, BufferAllocator parent, ShuffleOutput output, MapTaskAttempt producer,
      ShuffleWriterOptions options) {
    if (output.getBucket().isEmpty()) {
      throw new IllegalArgumentException("Shuffle output of " + producer + " has no bucket");
    }
    this.bucket = output.getBucket();
    this.key = ShuffleKeys.mapOutputKey(output.getJobPrefix(), producer.stageId(), producer.partition(), producer.attempt());
    this.producer = producer;
    this.partitioner = Partitioner.of(output.getPartitioning());
    this.partitionCount = partitioner.partitionCount();
    this.codec = Codecs.codecOf(output.getCompression());
    this.options = options;
    this.buffers = new PartitionBuffer[partitionCount];
    this.everWritten = new boolean[partitionCount];
    this.stagingBytesPerPartition =
        Math.max(MIN_STAGING_BYTES, options.spillThresholdBytes() / (2L * partitionCount));
    this.allocator = parent.newChildAllocator("shuffle-writer " + producer, 0, Long.MAX_VALUE);
    this.upload = new ObjectUpload(s3, bucket, key, options.partSizeBytes(), options.retry(), metrics);
  }

  /**
   * Opens a writer for one map task attempt.
   *
   * @param s3 client used for PutObject / multipart requests (not closed by the writer)
   * @param allocator parent allocator; the writer takes a child allocator and frees it on close
   * @param output bucket, job prefix, partitioning and compression of the edge
   * @param producer the map task attempt, which names the object
   * @throws IllegalArgumentException on a missing bucket, a bad job prefix or a malformed
   *     partitioning
   */
  public static ShuffleWriter open(S3Client s3, BufferAllocator allocator, ShuffleOutput output,
      MapTaskAttempt producer, ShuffleWriterOptions options) {
    return new ShuffleWriter(s3, allocator, output, producer, options);
  }

  /**
   * Opens a writer for the shuffle output of a task spec, with options sized from its memory
   * budget ({@link ShuffleWriterOptions#forMemoryBudget}).
   *
   * @throws IllegalArgumentException if the spec's output is not a shuffle
   */
  public static ShuffleWriter open(S3Client s3, BufferAllocator allocator, TaskSpec spec) {
    if (!spec.getOutput().hasShuffle()) {
      throw new IllegalArgumentException("Task of stage " + spec.getStageId() + " has no shuffle output but "
          + spec.getOutput().getKindCase());
    }
    return open(s3, allocator, spec.getOutput().getShuffle(),
        new MapTaskAttempt(spec.getStageId(), spec.getPartition(), spec.getAttempt()),
        ShuffleWriterOptions.forMemoryBudget(spec.getMemoryBudgetBytes()));
  }

  /** The object key this writer writes to. */
  public String key() {
    return key;
  }

  /** Live counters of this writer. */
  public ShuffleMetrics metrics() {
    return metrics;
  }

  /**
   * Partitions the rows of {@code batch} and buffers them. The batch is only read; the caller
   * keeps ownership. Every batch must have the schema of the first.
   *
   * @throws IllegalArgumentException if the schema differs from the first batch's
   * @throws IllegalStateException after close or abort
   */
  public void write(VectorSchemaRoot batch) {
    write(ColumnBatch.fromArrow(batch), batch.getSchema());
  }

  /**
   * Partitions the rows of an engine batch of the given Arrow schema and buffers them. The batch
   * is only read. Every batch must have the schema of the first.
   *
   * @throws IllegalArgumentException if the schema differs from the first batch's
   * @throws IllegalStateException after close or abort
   */
  public void write(ColumnBatch batch, Schema batchSchema) {
    checkOpen();
    if (schema == null) {
      schema = batchSchema;
    } else if (!schema.getFields().equals(batchSchema.getFields())) {
      throw new IllegalArgumentException("Shuffle batch schema " + batchSchema
          + " differs from the first batch's " + schema + " in map output " + key);
    }
    int rows = batch.rows();
    if (rows == 0) {
      return;
    }
    if (partitionOf.length < rows) {
      partitionOf = new int[rows];
      order = new int[rows];
    }
    partitioner.assign(batch, partitionOf);
    // Counting sort of row indices by partition, so each partition's rows are copied together.
    int[] start = new int[partitionCount + 1];
    for (int i = 0; i < rows; i++) {
      start[partitionOf[i] + 1]++;
    }
    for (int p = 0; p < partitionCount; p++) {
      start[p + 1] += start[p];
    }
    int[] next = start.clone();
    for (int i = 0; i < rows; i++) {
      order[next[partitionOf[i]]++] = i;
    }
    try {
      for (int p = 0; p < partitionCount; p++) {
        if (start[p] < start[p + 1]) {
          append(p, batch, start[p], start[p + 1]);
        }
      }
      metrics.addRowsWritten(rows);
      if (heldBytes() > options.spillThresholdBytes()) {
        endRun();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Writing shuffle output " + key + " failed", e);
    }
  }

  /**
   * Finishes the object: ends the last run, appends the footer and completes the upload; an object
   * of at most {@link ShuffleWriterOptions#inlineMaxBytes} is kept in memory instead ({@link
   * MapOutput#inlineBytes}), without a request.
   *
   * @return the object and its index
   * @throws IllegalStateException after close or abort
   */
  public MapOutput close() {
    checkOpen();
    try {
      endRun();
      long dataEnd = upload.position();
      for (int p = 0; p < partitionCount; p++) {
        if (!everWritten[p]) {
          ranges.add(PartitionRange.newBuilder().setPartition(p).setOffset(dataEnd).setLength(0).setRows(0).build());
        }
      }
      ranges.sort(Comparator.comparingInt(PartitionRange::getPartition).thenComparingLong(PartitionRange::getOffset));
      ShuffleIndex index = new ShuffleIndex(partitionCount, ranges);
      upload.append(index.encodeFooter());
      byte[] inline = options.inlineMaxBytes() > 0 ? upload.keepIfAtMost(options.inlineMaxBytes()) : null;
      long size = inline != null ? inline.length : upload.complete();
      metrics.addBytesWritten(size);
      if (inline == null) {
        metrics.addObjectWritten();
      }
      return new MapOutput(bucket, key, producer, partitionCount, ranges, size, metrics, inline);
    } catch (IOException e) {
      abort();
      throw new UncheckedIOException("Writing shuffle output " + key + " failed", e);
    } catch (RuntimeException e) {
      abort();
      throw e;
    } finally {
      release();
    }
  }

  /** Drops buffered output and aborts a started multipart upload; safe to call more than once. */
  public void abort() {
    try {
      upload.abort(); // no-op once the upload completed or was aborted
    } finally {
      release();
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("Shuffle writer for " + key + " is closed");
    }
  }

  private void release() {
    if (closed) {
      return;
    }
    closed = true;
    for (PartitionBuffer buffer : buffers) {
      if (buffer != null) {
        buffer.close();
      }
    }
    allocator.close();
  }

  /**
   * Bytes of the current run: Arrow staging buffers and encoded streams. The pending part is
   * bounded by the part size on its own, so it does not count towards the spill threshold.
   */
  private long heldBytes() {
    long staged = 0;
    for (PartitionBuffer buffer : buffers) {
      if (buffer != null) {
        staged += buffer.stagedBytes();
      }
    }
    return allocator.getAllocatedMemory() + encodedBytes + staged;
  }

  private void append(int p, ColumnBatch batch, int from, int to) throws IOException {
    PartitionBuffer buffer = buffers[p];
    if (buffer == null) {
      buffer = new PartitionBuffer(VectorSchemaRoot.create(schema, allocator), schema);
      buffers[p] = buffer;
    }
    int i = from;
    while (i < to) {
      int room = options.batchRows() - buffer.stagedRows;
      int end = Math.min(to, i + room);
      for (int c = 0; c < buffer.columns.length; c++) {
        buffer.columns[c].appendRows(batch.column(c), order, i, end);
      }
      buffer.stagedRows += end - i;
      i = end;
      if (buffer.stagedRows >= options.batchRows() || buffer.stagedBytes() >= stagingBytesPerPartition) {
        flushStaging(buffer);
      }
    }
  }

  /** Encodes the staged rows of a partition as one IPC record batch of its current stream. */
  private void flushStaging(PartitionBuffer buffer) throws IOException {
    if (buffer.stagedRows == 0) {
      return;
    }
    if (buffer.stream == null) {
      buffer.bytes = new ByteSink(8 * 1024);
      buffer.stream = new ArrowStreamWriter(buffer.staging, null, Channels.newChannel(buffer.bytes),
          IpcOption.DEFAULT, Codecs.factory(), codec);
      buffer.stream.start();
    }
    long before = buffer.bytes.size();
    // The stream writes whatever its root holds: move the staged columns' Arrow form into it.
    try (VectorSchemaRoot staged = ArrowColumns.toRoot(schema, buffer.columns, buffer.stagedRows, allocator)) {
      for (int c = 0; c < buffer.columns.length; c++) {
        staged.getVector(c).makeTransferPair(buffer.staging.getVector(c)).transfer();
        buffer.columns[c].clear();
      }
    }
    buffer.staging.setRowCount(buffer.stagedRows);
    buffer.stream.writeBatch();
    encodedBytes += buffer.bytes.size() - before;
    buffer.runRows += buffer.stagedRows;
    buffer.stagedRows = 0;
    for (FieldVector v : buffer.staging.getFieldVectors()) {
      v.reset();
    }
    buffer.staging.setRowCount(0);
  }

  /** Finishes every partition's stream and appends them, in partition order, to the object. */
  private void endRun() throws IOException {
    for (int p = 0; p < partitionCount; p++) {
      PartitionBuffer buffer = buffers[p];
      if (buffer == null) {
        continue;
      }
      flushStaging(buffer);
      if (buffer.stream == null) {
        continue;
      }
      buffer.stream.end();
      buffer.stream.close();
      long offset = upload.position();
      long length = buffer.bytes.size();
      ranges.add(PartitionRange.newBuilder()
          .setPartition(p).setOffset(offset).setLength(length).setRows(buffer.runRows).build());
      everWritten[p] = true;
      upload.append(buffer.bytes);
      encodedBytes -= buffer.bytes.size();
      buffer.stream = null;
      buffer.bytes = null;
      buffer.runRows = 0;
      // Give the staging buffers back: a partition's next rows may be far off or never come.
      for (FieldVector v : buffer.staging.getFieldVectors()) {
        v.clear();
      }
      buffer.resetColumns();
    }
    encodedBytes = 0;
  }

  /** One output partition: its staging batch and the IPC stream of the current run. */
  private static final class PartitionBuffer implements AutoCloseable {
    /** The IPC stream's root: holds one encoded batch at a time. */
    final VectorSchemaRoot staging;
    /** Rows staged since the last flush, in the engine's form. */
    final Column[] columns;
    int stagedRows;
    ArrowStreamWriter stream;
    ByteSink bytes;
    long runRows;

    PartitionBuffer(VectorSchemaRoot staging, Schema schema) {
      this.staging = staging;
      this.columns = new Column[schema.getFields().size()];
      resetColumns();
    }

    /** Fresh, small staging columns: a partition's next rows may be far off or never come. */
    void resetColumns() {
      for (int c = 0; c < columns.length; c++) {
        columns[c] = Column.empty(SqlType.fromArrow(staging.getSchema().getFields().get(c).getType()), 64);
      }
    }

    long stagedBytes() {
      long bytes = 0;
      for (Column c : columns) {
        bytes += c.bytes();
      }
      return bytes;
    }

    @Override
    public void close() {
      staging.close();
    }
  }
}

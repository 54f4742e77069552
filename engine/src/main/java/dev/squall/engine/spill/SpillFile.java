package dev.squall.engine.spill;

import dev.squall.engine.expr.ColumnBatch;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One spill file: engine batches written in order and read back in the same order. The format is
 * an Arrow IPC stream whose record batch bodies are ZSTD-compressed (level 1, arrow-compression's
 * codec, as the shuffle's ZSTD setting uses), so a reader needs nothing but the file. Written
 * bytes count against the task's disk budget ({@link TaskSpill}); {@link #delete()} gives them back.
 *
 * <p>Write every batch, then {@link #finish()}, then {@link #open} to read; not thread-safe.
 */
public final class SpillFile {
  private static final int IO_BUFFER = 64 * 1024;
  private static final CompressionCodec CODEC =
      CommonsCompressionFactory.INSTANCE.createCodec(CompressionUtil.CodecType.ZSTD, 1);

  private final TaskSpill task;
  private final String operator;
  private final Path path;
  private WriteChannel out;
  private Schema schema;
  private long bytes;
  private long rows;
  private boolean finished;
  private boolean deleted;

  SpillFile(TaskSpill task, String operator, Path path) {
    this.task = task;
    this.operator = operator;
    this.path = path;
  }

  /** The operator that spilled this file, e.g. {@code Sort#3}. */
  public String operator() {
    return operator;
  }

  /** Bytes written so far (compressed, as on disk). */
  public long bytes() {
    return bytes;
  }

  /** Rows written so far. */
  public long rows() {
    return rows;
  }

  /**
   * Appends a batch of {@code schema} (the operator's Arrow schema), converted through Arrow
   * buffers of {@code allocator} that are freed before this returns.
   *
   * @throws SpillDiskExceededException when the task's disk budget would be passed
   */
  public void write(ColumnBatch batch, Schema schema, BufferAllocator allocator) {
    if (batch.rows() == 0) {
      return;
    }
    try {
      if (out == null) {
        this.schema = schema;
        out = new WriteChannel(Channels.newChannel(new BufferedOutputStream(
            Files.newOutputStream(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), IO_BUFFER)));
        MessageSerializer.serialize(out, schema, IpcOption.DEFAULT);
      }
      try (VectorSchemaRoot root = batch.toArrow(this.schema, allocator);
          ArrowRecordBatch body = new VectorUnloader(root, true, CODEC, true).getRecordBatch()) {
        MessageSerializer.serialize(out, body, IpcOption.DEFAULT);
      }
      long end = out.getCurrentPosition();
      task.charge(this, end - bytes);
      bytes = end;
      rows += batch.rows();
    } catch (IOException e) {
      throw TaskSpill.ioFailure(operator, e);
    }
  }

  /** Ends the file; it can then be read. */
  public void finish() {
    if (finished) {
      return;
    }
    finished = true;
    if (out == null) {
      return;
    }
    try {
      ArrowStreamWriter.writeEndOfStream(out, IpcOption.DEFAULT);
      out.close();
      long end = out.getCurrentPosition();
      task.charge(this, end - bytes);
      bytes = end;
    } catch (IOException e) {
      throw TaskSpill.ioFailure(operator, e);
    } finally {
      out = null;
    }
  }

  /** A reader of the batches written, allocating its Arrow buffers from {@code allocator}. */
  public Reader open(BufferAllocator allocator) {
    finish();
    return new Reader(allocator);
  }

  /** Deletes the file (also unfinished) and gives its bytes back to the disk budget. Idempotent. */
  public void delete() {
    if (deleted) {
      return;
    }
    deleted = true;
    try {
      if (out != null) {
        out.close();
        out = null;
      }
    } catch (IOException e) {
      // The file is deleted next; a failed close loses nothing.
    }
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      throw TaskSpill.ioFailure(operator, e);
    } finally {
      task.deleted(this, bytes);
    }
  }

  /** Reads a spill file's batches in the order they were written. */
  public final class Reader implements AutoCloseable {
    private final ArrowStreamReader arrow;

    private Reader(BufferAllocator allocator) {
      if (rows == 0) {
        arrow = null;
        return;
      }
      try {
        InputStream in = new BufferedInputStream(Files.newInputStream(path), IO_BUFFER);
        arrow = new ArrowStreamReader(in, allocator, CommonsCompressionFactory.INSTANCE);
      } catch (IOException e) {
        throw TaskSpill.ioFailure(operator, e);
      }
    }

    /** The next batch (on the heap; its Arrow buffers are freed), or null at the end. */
    public ColumnBatch next() {
      if (arrow == null) {
        return null;
      }
      try {
        while (arrow.loadNextBatch()) {
          VectorSchemaRoot root = arrow.getVectorSchemaRoot();
          if (root.getRowCount() > 0) {
            ColumnBatch b = ColumnBatch.fromArrow(root);
            root.clear();
            return b;
          }
        }
        return null;
      } catch (IOException e) {
        throw TaskSpill.ioFailure(operator, e);
      }
    }

    @Override
    public void close() {
      if (arrow != null) {
        try {
          arrow.close();
        } catch (IOException e) {
          throw TaskSpill.ioFailure(operator, e);
        }
      }
    }
  }
}

package dev.squall.engine.spill;

import com.github.luben.zstd.ZstdInputStream;
import com.github.luben.zstd.ZstdOutputStream;
import dev.squall.engine.expr.ColumnBatch;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One spill file: engine batches written in order and read back in the same order. The format is
 * an Arrow IPC stream (uncompressed record batches) compressed whole with ZSTD at level 1 (zstd-jni,
 * the library behind the shuffle's ZSTD codec): compressing the stream rather than each buffer
 * needs no Arrow memory beyond one slice of a batch, so an operator can spill when its budget is
 * all but used. Batches are written in slices of at most {@value #SLICE_BYTES} bytes. Written
 * (compressed) bytes count against the task's disk budget ({@link TaskSpill}); {@link #delete()}
 * gives them back.
 *
 * <p>Write every batch, then {@link #finish()}, then {@link #open} to read; not thread-safe.
 */
public final class SpillFile {
  private static final int IO_BUFFER = 64 * 1024;
  /** Largest engine bytes converted to Arrow at once. */
  public static final long SLICE_BYTES = 128 * 1024;
  private static final int ZSTD_LEVEL = 1;

  private final TaskSpill task;
  private final String operator;
  private final Path path;
  private CountingOutputStream counted;
  private OutputStream compressed;
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
   * Appends a batch of {@code schema} (the operator's Arrow schema), converted slice by slice
   * through Arrow buffers of {@code allocator} that are freed before this returns.
   *
   * @throws SpillDiskExceededException when the task's disk budget would be passed
   */
  public void write(ColumnBatch batch, Schema schema, BufferAllocator allocator) {
    int n = batch.rows();
    if (n == 0) {
      return;
    }
    try {
      if (out == null) {
        this.schema = schema;
        counted = new CountingOutputStream(new BufferedOutputStream(
            Files.newOutputStream(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), IO_BUFFER));
        compressed = new ZstdOutputStream(counted, ZSTD_LEVEL);
        out = new WriteChannel(Channels.newChannel(compressed));
        MessageSerializer.serialize(out, schema, IpcOption.DEFAULT);
      }
      long batchBytes = Math.max(1, batch.bytes());
      int sliceRows = (int) Math.max(1, Math.min(n, n * SLICE_BYTES / batchBytes));
      for (int start = 0; start < n; start += sliceRows) {
        int len = Math.min(sliceRows, n - start);
        ColumnBatch slice = start == 0 && len == n ? batch : batch.slice(start, len);
        try (VectorSchemaRoot root = slice.toArrow(this.schema, allocator);
            ArrowRecordBatch body = new VectorUnloader(root).getRecordBatch()) {
          MessageSerializer.serialize(out, body, IpcOption.DEFAULT);
        }
      }
      rows += n;
      chargeWritten();
    } catch (IOException e) {
      throw TaskSpill.ioFailure(operator, e);
    }
  }

  private void chargeWritten() {
    long now = counted.count;
    task.charge(this, now - bytes);
    bytes = now;
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
      compressed.close();
      chargeWritten();
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
      if (compressed != null) {
        compressed.close();
      }
      out = null;
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
        InputStream in = new ZstdInputStream(new BufferedInputStream(Files.newInputStream(path), IO_BUFFER));
        arrow = new ArrowStreamReader(in, allocator);
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

  /** Counts the bytes that reach the file. */
  private static final class CountingOutputStream extends FilterOutputStream {
    long count;

    CountingOutputStream(OutputStream out) {
      super(out);
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      count++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      count += len;
    }
  }
}

package dev.squall.task.write;

import dev.squall.engine.expr.ColumnBatch;
import dev.squall.proto.v1.DeleteFileWrite;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import dev.squall.task.OutputSink;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.io.FileIO;

/**
 * The output of a row-level delete's writer task: position delete files or deletion vectors
 * ({@link PositionDeleteTaskWriter}) under the table location, reported as commit messages (one
 * Iceberg content-file JSON per delete file). The coordinator commits them; the task never talks
 * to a catalog.
 */
public final class DeleteFileOutputSink implements OutputSink {
  private final PositionDeleteTaskWriter writer;
  private final java.util.function.BooleanSupplier cancelled;

  private DeleteFileOutputSink(PositionDeleteTaskWriter writer, java.util.function.BooleanSupplier cancelled) {
    this.writer = writer;
    this.cancelled = cancelled;
  }

  /**
   * The sink for a spec whose output is {@code delete_files}; it stops with CANCELLED once
   * {@code cancelled} is true.
   *
   * @throws dev.squall.engine.EngineException INTERNAL_ERROR for a malformed DeleteFileWrite or job id
   */
  public static DeleteFileOutputSink open(TaskSpec spec, FileIO io, java.util.function.BooleanSupplier cancelled) {
    DeleteFileWrite write = spec.getOutput().getDeleteFiles();
    DataFileNames names = new DataFileNames(spec.getJobId(), spec.getStageId(), spec.getPartition(),
        spec.getAttempt(), write.getFormatVersion() >= 3 ? FileFormat.PUFFIN : FileFormat.PARQUET);
    return new DeleteFileOutputSink(new PositionDeleteTaskWriter(io, write, names), cancelled);
  }

  @Override
  public void write(ColumnBatch batch, Schema schema, BufferAllocator allocator) {
    if (cancelled.getAsBoolean()) {
      throw dev.squall.engine.EngineException.cancelled();
    }
    writer.write(batch.columns(), batch.rows());
  }

  /** Writes the delete files and adds one commit message per file; on failure they are deleted. */
  @Override
  public void finish(TaskResult.Builder result) {
    List<DeleteFile> files = writer.complete();
    List<String> messages;
    try {
      messages = files.stream().map(file -> ContentFileParser.toJson(file, writer.specOf(file))).toList();
    } catch (RuntimeException e) {
      writer.abort();
      throw e;
    }
    result.addAllCommitMessages(messages);
    result.getMetricsBuilder().setObjectsWritten(files.stream().map(DeleteFile::location).distinct().count());
  }

  @Override
  public void abort() {
    writer.abort();
  }
}

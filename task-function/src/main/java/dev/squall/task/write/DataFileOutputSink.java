package dev.squall.task.write;

import dev.squall.engine.expr.ColumnBatch;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import dev.squall.task.OutputSink;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.io.FileIO;

/**
 * The output of a writer task: Iceberg data files under the table location, reported as commit
 * messages ({@link CommitMessages}) in the TaskResult. The coordinator commits them; the task never
 * talks to a catalog. The engine's batches are written column by column
 * ({@link DataFileTaskWriter#write(dev.squall.engine.column.Column[], int)}), without an Arrow step.
 */
public final class DataFileOutputSink implements OutputSink {
  private final WriteTarget target;
  private final DataFileTaskWriter writer;

  private DataFileOutputSink(WriteTarget target, DataFileTaskWriter writer) {
    this.target = target;
    this.writer = writer;
  }

  /**
   * The sink for a spec whose output is {@code data_files}.
   *
   * @throws dev.squall.engine.EngineException INTERNAL_ERROR for a malformed DataFileWrite or job id
   */
  public static DataFileOutputSink open(TaskSpec spec, FileIO io) {
    return open(spec, io, () -> false);
  }

  /**
   * As {@link #open(TaskSpec, FileIO)}; the writer stops with CANCELLED once {@code cancelled} is
   * true, also within a batch.
   */
  public static DataFileOutputSink open(TaskSpec spec, FileIO io, java.util.function.BooleanSupplier cancelled) {
    WriteTarget target = WriteTarget.of(spec.getOutput().getDataFiles());
    DataFileNames names = new DataFileNames(spec.getJobId(), spec.getStageId(), spec.getPartition(),
        spec.getAttempt(), target.format());
    // Rows sorted by partition value need one open file; others keep several open.
    DataFileTaskWriter writer = new DataFileTaskWriter(io, target, names,
        spec.getOutput().getDataFiles().getClustered() ? 1 : DataFileTaskWriter.DEFAULT_MAX_OPEN_FILES);
    writer.cancelWhen(cancelled);
    return new DataFileOutputSink(target, writer);
  }

  @Override
  public void write(ColumnBatch batch, Schema schema, BufferAllocator allocator) {
    writer.write(batch.columns(), batch.rows());
  }

  /**
   * Finishes the files, adds one commit message per data file and sets {@code objects_written}.
   * On failure the attempt's files are deleted.
   */
  @Override
  public void finish(TaskResult.Builder result) {
    List<DataFile> files = writer.complete();
    List<String> messages;
    try {
      messages = files.stream().map(file -> CommitMessages.toJson(file, target.spec())).toList();
    } catch (RuntimeException e) {
      writer.abort();
      throw e;
    }
    result.addAllCommitMessages(messages);
    result.getMetricsBuilder().setObjectsWritten(files.size());
  }

  @Override
  public void abort() {
    writer.abort();
  }
}

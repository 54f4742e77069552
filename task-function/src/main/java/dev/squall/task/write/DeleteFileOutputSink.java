package dev.squall.task.write;

import dev.squall.engine.column.BoolColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.proto.v1.DeleteFileWrite;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import dev.squall.task.OutputSink;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.io.FileIO;

/**
 * The output of a row-level delete's writer task: position delete files or deletion vectors
 * ({@link PositionDeleteTaskWriter}) under the table location, reported as commit messages (one
 * Iceberg content-file JSON per delete file). For UPDATE the rows also carry the new values after
 * the two position columns, written as data files ({@link DataFileTaskWriter}) and reported beside
 * the delete files. For MERGE a BOOLEAN after the positions says whether the row is written, and a
 * row without a position (an inserted source row) deletes nothing. The coordinator commits them; the task never talks to a catalog.
 */
public final class DeleteFileOutputSink implements OutputSink {
  private final PositionDeleteTaskWriter writer;
  /** UPDATE: the writer of the new rows (columns 2 and on); null for DELETE. */
  private final DataFileTaskWriter rows;
  private final WriteTarget rowsTarget;
  private final java.util.function.BooleanSupplier cancelled;
  /** MERGE: rows carry a write flag, and inserted rows no position. */
  private final boolean merge;
  /** Copy-on-write: rewrites the data files instead of writing delete files; null otherwise. */
  private CopyOnWriteRewriter rewriter;
  /** Copy-on-write: each data file's content-file JSON as planned, by location. */
  private java.util.Map<String, String> originals;

  private DeleteFileOutputSink(PositionDeleteTaskWriter writer, DataFileTaskWriter rows, WriteTarget rowsTarget,
      java.util.function.BooleanSupplier cancelled, boolean merge) {
    this.writer = writer;
    this.merge = merge;
    this.rows = rows;
    this.rowsTarget = rowsTarget;
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
    PositionDeleteTaskWriter deletes = new PositionDeleteTaskWriter(io, write, names);
    DeleteFileOutputSink sink;
    if (!write.hasUpdatedRows()) {
      sink = new DeleteFileOutputSink(deletes, null, null, cancelled, false);
    } else {
      WriteTarget target = WriteTarget.of(write.getUpdatedRows());
      DataFileTaskWriter rowWriter = new DataFileTaskWriter(io, target, new DataFileNames(spec.getJobId(),
          spec.getStageId(), spec.getPartition(), spec.getAttempt(), target.format()));
      rowWriter.cancelWhen(cancelled);
      sink = new DeleteFileOutputSink(deletes, rowWriter, target, cancelled, write.getMerge());
    }
    if (write.getCopyOnWrite()) {
      sink.rewriter = new CopyOnWriteRewriter(io, write, deletes.schema(), deletes.specs(), new DataFileNames(
          spec.getJobId(), spec.getStageId(), spec.getPartition(), spec.getAttempt(), FileFormat.PARQUET));
      sink.originals = CopyOnWriteRewriter.originalsJson(write);
    }
    return sink;
  }

  @Override
  public void write(ColumnBatch batch, Schema schema, BufferAllocator allocator) {
    if (cancelled.getAsBoolean()) {
      throw dev.squall.engine.EngineException.cancelled();
    }
    Column[] all = batch.columns();
    if (merge) {
      writeMerged(all, batch.rows());
      return;
    }
    writer.write(all, batch.rows());
    if (rows != null) {
      rows.write(java.util.Arrays.copyOfRange(all, 2, all.length), batch.rows());
    }
  }

  /**
   * A MERGE's batch: {@code _file, _pos, write, values...}. Rows with a position delete it; rows
   * whose {@code write} is TRUE are written as new rows (updated or inserted).
   */
  private void writeMerged(Column[] all, int n) {
    int[] positioned = new int[n];
    int[] written = new int[n];
    int p = 0;
    int w = 0;
    if (!(all[2] instanceof BoolColumn write)) {
      throw new dev.squall.engine.EngineException(dev.squall.proto.v1.ErrorCode.INTERNAL_ERROR,
          "a MERGE batch must carry a BOOLEAN write flag in column 2");
    }
    for (int i = 0; i < n; i++) {
      if (!all[0].isNull(i)) {
        positioned[p++] = i;
      }
      if (write.isTrue(i)) {
        written[w++] = i;
      }
    }
    if (p > 0) {
      writer.write(new Column[] {all[0].gather(positioned, p), all[1].gather(positioned, p)}, p);
    }
    if (w > 0) {
      Column[] values = new Column[all.length - 3];
      for (int c = 0; c < values.length; c++) {
        values[c] = all[c + 3].gather(written, w);
      }
      rows.write(values, w);
    }
  }

  /**
   * Writes the delete files (copy-on-write: the rewritten data files) and adds one commit message
   * per file, and for copy-on-write one per replaced data file; on failure they are deleted.
   */
  @Override
  public void finish(TaskResult.Builder result) {
    List<DataFile> added;
    try {
      added = rows == null ? List.of() : rows.complete();
    } catch (RuntimeException e) {
      writer.abort();
      throw e;
    }
    List<DeleteFile> files = rewriter == null ? writer.complete() : List.of();
    List<DataFile> rewritten = rewriter == null ? List.of()
        : rewriter.rewrite(writer.positions(), writer.dataFiles(), writer.specs());
    List<String> messages = new ArrayList<>();
    try {
      files.forEach(file -> messages.add(ContentFileParser.toJson(file, writer.specOf(file))));
      added.forEach(file -> messages.add(CommitMessages.toJson(file, rowsTarget.spec())));
      rewritten.forEach(file -> messages.add(CommitMessages.toJson(file, writer.specs().get(file.specId()))));
      if (rewriter != null) {
        writer.positions().keySet().forEach(path -> messages.add(originals.get(path)));
      }
    } catch (RuntimeException e) {
      abort();
      throw e;
    }
    result.addAllCommitMessages(messages);
    result.getMetricsBuilder().setObjectsWritten(files.stream().map(DeleteFile::location).distinct().count()
        + added.size() + rewritten.size());
  }

  @Override
  public void abort() {
    writer.abort();
    if (rewriter != null) {
      rewriter.abort();
    }
    if (rows != null) {
      rows.abort();
    }
  }
}

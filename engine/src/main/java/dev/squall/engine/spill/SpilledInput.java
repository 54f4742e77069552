package dev.squall.engine.spill;

import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.memory.OperatorMemory;
import dev.squall.engine.operator.BatchOperator;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An operator whose output is the batches of spill files, file after file, each file deleted as
 * soon as it has been read: the input of the second pass of a spilling operator (a partition of a
 * hash aggregation or hash join, a run of a sort).
 */
public final class SpilledInput extends BatchOperator {
  private final Deque<SpillFile> files;
  private SpillFile current;
  private SpillFile.Reader reader;

  /** @param files read in this order; this operator deletes them */
  public SpilledInput(OperatorMemory memory, Schema schema, List<SpillFile> files) {
    super(memory, schema, List.of());
    this.files = new ArrayDeque<>(files);
  }

  /** Rows in the files not read yet (the one being read counted whole). */
  public long rows() {
    long r = current == null ? 0 : current.rows();
    for (SpillFile f : files) {
      r += f.rows();
    }
    return r;
  }

  /** Bytes of the files not read yet (the one being read counted whole). */
  public long bytes() {
    long b = current == null ? 0 : current.bytes();
    for (SpillFile f : files) {
      b += f.bytes();
    }
    return b;
  }

  @Override
  protected ColumnBatch produce() {
    while (true) {
      if (reader == null) {
        current = files.poll();
        if (current == null) {
          return null;
        }
        reader = current.open(memory.allocator());
      }
      ColumnBatch b = reader.next();
      if (b != null) {
        return b;
      }
      closeCurrent();
    }
  }

  private void closeCurrent() {
    try {
      if (reader != null) {
        reader.close();
      }
    } finally {
      reader = null;
      if (current != null) {
        current.delete();
        current = null;
      }
    }
  }

  @Override
  protected void releaseState() {
    try {
      closeCurrent();
    } finally {
      files.forEach(SpillFile::delete);
      files.clear();
    }
  }
}

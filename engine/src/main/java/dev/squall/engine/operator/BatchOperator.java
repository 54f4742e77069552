package dev.squall.engine.operator;

import dev.squall.engine.column.Column;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.memory.OperatorMemory;
import dev.squall.engine.types.SqlType;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A pull-based physical operator: {@link #next()} returns the next {@link ColumnBatch} of the
 * operator's output schema (never empty), or {@code null} at the end. Operators exchange engine
 * batches only; Arrow is read and written at the task's edges. State an operator keeps (hash
 * tables, sort buffers) is reserved against its share of the task memory, so an operator over the
 * task budget fails with {@code TaskMemoryExceededException} naming it.
 */
public abstract class BatchOperator implements AutoCloseable {
  /** Rows per output batch for operators that build their own batches. */
  public static final int BATCH_ROWS = 8192;

  protected final OperatorMemory memory;
  protected final Schema schema;
  protected final List<SqlType> types;
  private final List<BatchOperator> children;
  private boolean closed;
  private boolean consumerKeepsNoBatch;
  private long rowsOut;
  private long wallNanos;

  protected BatchOperator(OperatorMemory memory, Schema schema, List<BatchOperator> children) {
    this.memory = memory;
    this.schema = schema;
    this.types = new ArrayList<>();
    schema.getFields().forEach(f -> types.add(SqlType.fromArrow(f.getType())));
    this.children = children;
  }

  /** The output schema (Arrow form of the plan's {@code Operator.output_schema}). */
  public Schema schema() {
    return schema;
  }

  public String name() {
    return memory.operator();
  }

  /**
   * The next output batch, or null when the operator is exhausted.
   *
   * @throws dev.squall.engine.EngineException CANCELLED when the task was told to stop
   */
  public final ColumnBatch next() {
    memory.checkCancelled();
    long start = System.nanoTime();
    try {
      ColumnBatch b;
      do {
        b = produce();
      } while (b != null && b.rows() == 0);
      memory.holdOutput(b == null ? 0 : b.bytes());
      rowsOut += b == null ? 0 : b.rows();
      return b;
    } catch (OutOfMemoryException e) {
      throw memory.translate(e);
    } finally {
      wallNanos += System.nanoTime() - start;
    }
  }

  /**
   * Called by the operator that consumes this one's output, when the fragment is built and before
   * the first {@link #next()}, to promise that it never keeps a batch, or any column of one, after
   * asking for the next batch (it reads each batch completely, copying what it keeps). This
   * operator may then write the next batch into the previous one's arrays. An operator that hands
   * on its input's batches or columns and keeps none itself (a filter, a projection) overrides this
   * to pass the promise on to its input. Never promised by consumers that keep batches: join build
   * sides, sorts, windows, anything that buffers columns.
   */
  public void promiseConsumerKeepsNoBatch() {
    consumerKeepsNoBatch = true;
  }

  /** Whether the consumer promised to keep no batch ({@link #promiseConsumerKeepsNoBatch()}); false by default. */
  public final boolean consumerKeepsNoBatch() {
    return consumerKeepsNoBatch;
  }

  /** The operators this one reads, in plan order (a join: left, then right). */
  public final List<BatchOperator> children() {
    return children;
  }

  /** Rows this operator has handed on so far. */
  public long rowsOut() {
    return rowsOut;
  }

  /** Nanoseconds spent in {@link #next()} so far, its inputs' time included. */
  public long wallNanos() {
    return wallNanos;
  }

  /** The next output batch, or null at the end; an empty batch is skipped by {@link #next()}. */
  protected abstract ColumnBatch produce();

  /** Reads every batch of an input into columns, reserving their heap bytes. */
  protected static List<Column[]> drain(BatchOperator input, OperatorMemory memory) {
    List<Column[]> out = new ArrayList<>();
    ColumnBatch batch;
    while ((batch = input.next()) != null) {
      Column[] cols = batch.columns();
      long bytes = 0;
      for (Column c : cols) {
        bytes += c.bytes();
      }
      memory.reserve(bytes);
      out.add(cols);
    }
    return out;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    RuntimeException failure = null;
    for (BatchOperator c : children) {
      try {
        c.close();
      } catch (RuntimeException e) {
        failure = failure == null ? e : failure;
      }
    }
    try {
      releaseState();
      memory.close();
    } catch (RuntimeException e) {
      failure = failure == null ? e : failure;
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** Drops operator state before the memory is closed. */
  protected void releaseState() {}
}

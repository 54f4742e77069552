package dev.squall.engine;

import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.input.BatchSource;
import dev.squall.engine.input.InputProvider;
import dev.squall.engine.memory.OperatorMemory;
import dev.squall.engine.memory.TaskMemory;
import dev.squall.engine.operator.BatchOperator;
import dev.squall.engine.operator.OperatorBuilder;
import dev.squall.engine.spill.TaskSpill;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.OperatorMetrics;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Runs one stage fragment (a plan-proto {@link Operator} tree) for one partition of one task.
 *
 * <pre>{@code
 * try (FragmentExecutor.Execution run = FragmentExecutor.execute(spec.getFragment(), inputs, allocator,
 *     spec.getMemoryBudgetBytes())) {
 *   while (run.hasNext()) {
 *     try (VectorSchemaRoot batch = run.next()) {
 *       shuffleWriter.write(batch);
 *     }
 *   }
 * }
 * }</pre>
 *
 * <p>Errors are {@link EngineException}s carrying a wire {@code ErrorCode}: USER_ERROR for division
 * by zero, overflow, bad casts; INSUFFICIENT_RESOURCES ({@link TaskMemoryExceededException}) when
 * the memory budget would be exceeded; INTERNAL_ERROR for plans the engine cannot run. Exceptions
 * of the input provider (e.g. a missing shuffle output) pass through unchanged.
 */
public final class FragmentExecutor {
  private FragmentExecutor() {}

  /**
   * Builds the operators of {@code fragment} and returns its output as a stream of batches.
   *
   * @param fragment the operator tree (every node has its output schema)
   * @param inputs the task's inputs by index
   * @param allocator the allocator the task's Arrow buffers come from
   * @param memoryBudgetBytes the task's memory budget ({@code TaskSpec.memory_budget_bytes}); 0 = unlimited
   * @return the output batches; each returned batch belongs to the caller, who closes it
   */
  public static Execution execute(Operator fragment, InputProvider inputs, BufferAllocator allocator, long memoryBudgetBytes) {
    return execute(fragment, inputs, allocator, memoryBudgetBytes, () -> false);
  }

  /**
   * As {@link #execute(Operator, InputProvider, BufferAllocator, long)}; every operator polls
   * {@code cancelled} at each batch it is asked for and the run stops with an
   * {@link EngineException} CANCELLED once it is true.
   */
  public static Execution execute(Operator fragment, InputProvider inputs, BufferAllocator allocator, long memoryBudgetBytes,
      java.util.function.BooleanSupplier cancelled) {
    return execute(fragment, inputs, allocator, memoryBudgetBytes, cancelled, TaskSpill.disabled());
  }

  /**
   * As {@link #execute(Operator, InputProvider, BufferAllocator, long, java.util.function.BooleanSupplier)};
   * sort, hash aggregation and hash join spill to {@code spill}'s files when their state passes
   * the memory budget (see docs/engine.md, "Spilling"). The caller owns {@code spill} and closes
   * it (deleting every spill file) when the task ends, fails or is cancelled.
   */
  public static Execution execute(Operator fragment, InputProvider inputs, BufferAllocator allocator, long memoryBudgetBytes,
      java.util.function.BooleanSupplier cancelled, TaskSpill spill) {
    TaskMemory memory = new TaskMemory(allocator, memoryBudgetBytes);
    memory.cancelWhen(cancelled);
    memory.spillTo(spill);
    try {
      OperatorBuilder builder = new OperatorBuilder(memory, inputs);
      BatchOperator root = builder.build(fragment);
      return new Execution(memory, root, memory.forOperator("Output"), builder);
    } catch (RuntimeException e) {
      memory.close();
      throw e;
    }
  }

  /**
   * Runs the fragment to the end, handing every output batch to {@code sink} (which must not keep
   * it: the batch is closed when the sink returns).
   *
   * @return the number of rows produced
   */
  public static long run(Operator fragment, InputProvider inputs, BufferAllocator allocator, long memoryBudgetBytes,
      Consumer<VectorSchemaRoot> sink) {
    long rows = 0;
    try (Execution ex = execute(fragment, inputs, allocator, memoryBudgetBytes)) {
      while (ex.hasNext()) {
        try (VectorSchemaRoot batch = ex.next()) {
          rows += batch.getRowCount();
          sink.accept(batch);
        }
      }
    }
    return rows;
  }

  /**
   * A running fragment: its output batches, its schema and its memory figures. {@link #nextBatch()}
   * gives the engine's own batches; {@link #next()} gives them as Arrow batches (the task's edge
   * to the shuffle and result writers), allocated from the task budget.
   */
  public static final class Execution implements BatchSource {
    private final TaskMemory memory;
    private final BatchOperator root;
    private final OperatorMemory output;
    private final OperatorBuilder operators;
    private ColumnBatch lookahead;
    private boolean done;

    Execution(TaskMemory memory, BatchOperator root, OperatorMemory output, OperatorBuilder operators) {
      this.memory = memory;
      this.root = root;
      this.output = output;
      this.operators = operators;
    }

    /** Rows in and out and wall time per operator so far, in the fragment's pre-order. */
    public List<OperatorMetrics> operatorMetrics() {
      return operators.metrics();
    }

    /** The Arrow schema of the output batches. */
    public Schema schema() {
      return root.schema();
    }

    /** The most bytes held at once (Arrow buffers plus reserved heap state) so far. */
    public long peakMemoryBytes() {
      return memory.peak();
    }

    /**
     * Promises that each batch taken from this execution is done with (copied or dropped) before
     * the next is asked for, so the operators may reuse their arrays batch after batch. Call before
     * the first batch.
     */
    public void promiseConsumerKeepsNoBatch() {
      root.promiseConsumerKeepsNoBatch();
    }

    @Override
    public boolean hasNext() {
      if (lookahead == null && !done) {
        lookahead = root.next();
        done = lookahead == null;
      }
      return lookahead != null;
    }

    @Override
    public VectorSchemaRoot next() {
      ColumnBatch b = nextBatch();
      try {
        VectorSchemaRoot arrow = b.toArrow(root.schema(), output.allocator());
        // The edge's Arrow buffers sit on top of the batches in flight.
        memory.notePeak();
        return arrow;
      } catch (org.apache.arrow.memory.OutOfMemoryException e) {
        throw output.translate(e);
      }
    }

    /** The next output batch in the engine's form (never empty). */
    public ColumnBatch nextBatch() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      ColumnBatch b = lookahead;
      lookahead = null;
      return b;
    }

    /**
     * Closes the operators and returns the task's memory. Every batch taken with {@link #next()}
     * must be closed first: Arrow reports buffers still held at this point as a leak
     * ({@link IllegalStateException}).
     */
    @Override
    public void close() {
      try {
        lookahead = null;
        try {
          root.close();
        } finally {
          output.close();
        }
      } finally {
        memory.close();
      }
    }
  }
}

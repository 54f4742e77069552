package dev.squall.engine.memory;

import dev.squall.engine.TaskMemoryExceededException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;

/**
 * The memory budget of one task: one Arrow allocator (limited to the budget) from which every
 * operator takes a child allocator, plus reservations for operator state kept on the Java heap
 * (hash tables, sort buffers). A heap reservation lowers the Arrow allocator's limit by the same
 * amount, so Arrow buffers and heap state share one budget.
 *
 * <p>Running over the budget raises {@link TaskMemoryExceededException} naming the operator; Arrow's
 * own {@link OutOfMemoryException} is translated by {@link OperatorMemory#translate}.
 */
public final class TaskMemory implements AutoCloseable {
  private final BufferAllocator allocator;
  private final long budget;
  private long heapReserved;
  private long peak;
  private dev.squall.engine.spill.TaskSpill spill = dev.squall.engine.spill.TaskSpill.disabled();

  /**
   * An operator that can spill may fill the task's memory with its state up to its spill limit
   * and then spills: the limit leaves room for twice the largest batch handed between operators
   * so far (one in flight, the next) plus the most Arrow memory the task has held at once (a
   * shuffle input's decoded batch, the output edge), and lies between a quarter and three quarters
   * of the budget.
   */
  private long largestBatch;

  /**
   * @param parent the allocator the task's buffers come from (its own limit still applies)
   * @param budgetBytes the task's budget in bytes; zero or negative means unlimited
   */
  private volatile java.util.function.BooleanSupplier cancelled = () -> false;

  /**
   * What operators poll at every batch they are asked for; when it turns true they stop with
   * CANCELLED (so a join or aggregation stops while it takes in its input, not only between
   * output batches).
   */
  public void cancelWhen(java.util.function.BooleanSupplier condition) {
    this.cancelled = condition;
  }

  /**
   * @throws EngineException CANCELLED once the task was told to stop
   */
  void checkCancelled() {
    if (cancelled.getAsBoolean()) {
      throw dev.squall.engine.EngineException.cancelled();
    }
  }

  public TaskMemory(BufferAllocator parent, long budgetBytes) {
    this.budget = budgetBytes <= 0 ? Long.MAX_VALUE : budgetBytes;
    this.allocator = parent.newChildAllocator("task", 0, budget);
  }

  /** Lets operators spill to {@code spill}'s files when their state passes the budget. */
  public void spillTo(dev.squall.engine.spill.TaskSpill spill) {
    this.spill = spill;
  }

  /** Where the task's operators spill (a disabled registry when spilling is off or the budget unlimited). */
  public dev.squall.engine.spill.TaskSpill spill() {
    return spill;
  }

  /** Whether operators spill rather than fail when their state passes the budget. */
  public boolean canSpill() {
    return spill.enabled() && budget != Long.MAX_VALUE;
  }

  public long budget() {
    return budget;
  }

  /** A child allocator for one operator, named after it (e.g. {@code Sort#4}). */
  public OperatorMemory forOperator(String name) {
    return new OperatorMemory(this, name, allocator.newChildAllocator(name, 0, Long.MAX_VALUE));
  }

  /** Bytes in use: Arrow buffers plus heap reservations. */
  public synchronized long used() {
    return allocator.getAllocatedMemory() + heapReserved;
  }

  /** The most bytes in use at once so far. */
  public synchronized long peak() {
    return Math.max(Math.max(peak, used()), allocator.getPeakMemoryAllocation());
  }

  /** Records the bytes in use now (heap reservations plus Arrow buffers) in the peak. */
  public synchronized void notePeak() {
    peak = Math.max(peak, used());
  }

  synchronized void reserveHeap(String operator, long held, long bytes) {
    long inUse = allocator.getAllocatedMemory() + heapReserved;
    if (bytes > budget - inUse) {
      throw new TaskMemoryExceededException(operator, held, bytes, budget, null);
    }
    heapReserved += bytes;
    peak = Math.max(peak, inUse + bytes);
    if (budget != Long.MAX_VALUE) {
      allocator.setLimit(budget - heapReserved);
    }
  }

  /** Bytes the task may hold before an operator that can spill spills (see {@link #largestBatch}). */
  synchronized long spillLimit() {
    long flow = 2 * largestBatch + allocator.getPeakMemoryAllocation();
    return Math.max(budget / 4, Math.min(budget / 4 * 3, budget - flow));
  }

  /** Bytes the task can still reserve before it reaches its {@link #spillLimit()} (0 when past it). */
  synchronized long spillHeadroom() {
    return Math.max(0, spillLimit() - allocator.getAllocatedMemory() - heapReserved);
  }

  /** Notes the bytes of a batch handed from one operator to the next. */
  synchronized void noteBatch(long bytes) {
    largestBatch = Math.max(largestBatch, bytes);
  }

  /**
   * Reserves heap bytes while the task's use stays within its {@link #spillLimit()}; false
   * (nothing reserved) otherwise, so that the operator spills.
   */
  synchronized boolean tryReserveHeap(long bytes) {
    long inUse = allocator.getAllocatedMemory() + heapReserved;
    if (inUse + bytes > spillLimit()) {
      return false;
    }
    heapReserved += bytes;
    peak = Math.max(peak, inUse + bytes);
    allocator.setLimit(budget - heapReserved);
    return true;
  }

  synchronized void releaseHeap(long bytes) {
    heapReserved -= bytes;
    if (budget != Long.MAX_VALUE) {
      allocator.setLimit(budget - heapReserved);
    }
  }

  @Override
  public void close() {
    allocator.close();
  }
}

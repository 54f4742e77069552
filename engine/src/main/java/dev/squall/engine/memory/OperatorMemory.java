package dev.squall.engine.memory;

import dev.squall.engine.TaskMemoryExceededException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;

/**
 * The share of the task's memory held by one operator: an Arrow child allocator for the batches it
 * produces or keeps, and a counter of the heap bytes its state reserves. Closing it returns both.
 */
public final class OperatorMemory implements AutoCloseable {
  private final TaskMemory task;
  private final String operator;
  private final BufferAllocator allocator;
  private long heapReserved;
  private long inFlight;

  OperatorMemory(TaskMemory task, String operator, BufferAllocator allocator) {
    this.task = task;
    this.operator = operator;
    this.allocator = allocator;
  }

  /**
   * @throws dev.squall.engine.EngineException CANCELLED once the task was told to stop
   */
  public void checkCancelled() {
    task.checkCancelled();
  }

  public String operator() {
    return operator;
  }

  public BufferAllocator allocator() {
    return allocator;
  }

  /**
   * Reserves heap bytes for operator state (hash table, buffered rows).
   *
   * @throws TaskMemoryExceededException when the task budget would be exceeded
   */
  public void reserve(long bytes) {
    if (bytes <= 0) {
      return;
    }
    task.reserveHeap(operator, heapReserved, bytes);
    heapReserved += bytes;
  }

  /** Where this operator spills; check {@link #canSpill()} first. */
  public dev.squall.engine.spill.TaskSpill spill() {
    return task.spill();
  }

  /** Whether the operator may spill its state instead of failing when it passes the budget. */
  public boolean canSpill() {
    return task.canSpill();
  }

  /**
   * A share of the task memory for a part of this operator (the pass over one spilled partition),
   * named after it with {@code suffix}, e.g. {@code HashJoin#3/p5}.
   */
  public OperatorMemory child(String suffix) {
    return task.forOperator(operator + suffix);
  }

  /**
   * As {@link #reserveTotal}, but when the operator can spill and its state would take the task
   * past its spill threshold, reserves nothing and answers false: the operator spills instead.
   * Without spilling it behaves as {@link #reserveTotal} (fails over the budget).
   *
   * @throws TaskMemoryExceededException over the budget when spilling is off
   */
  public boolean tryReserveTotal(long bytes) {
    long state = heapReserved - inFlight;
    if (bytes <= state) {
      release(state - bytes);
      return true;
    }
    if (!task.canSpill()) {
      reserve(bytes - state);
      return true;
    }
    if (!task.tryReserveHeap(bytes - state)) {
      return false;
    }
    heapReserved += bytes - state;
    return true;
  }

  /**
   * Bytes the task can still reserve before an operator that can spill would be told to spill
   * ({@link #tryReserveTotal} answering false); 0 when it is past that point.
   */
  public long spillHeadroom() {
    return task.spillHeadroom();
  }

  /** The task's memory budget in bytes ({@code Long.MAX_VALUE} when unlimited). */
  public long taskBudget() {
    return task.budget();
  }

  /** Returns heap bytes reserved earlier. */
  public void release(long bytes) {
    long b = Math.min(bytes, heapReserved);
    if (b > 0) {
      task.releaseHeap(b);
      heapReserved -= b;
    }
  }

  /**
   * Sets the reservation for the operator's state to exactly {@code bytes} (its output batch in
   * flight, see {@link #holdOutput}, is kept apart), reserving or releasing the difference.
   */
  public void reserveTotal(long bytes) {
    long state = heapReserved - inFlight;
    if (bytes > state) {
      reserve(bytes - state);
    } else {
      release(state - bytes);
    }
  }

  /**
   * Accounts the operator's current output batch ({@code bytes} on the heap): the batch handed out
   * before is taken to be consumed, so its bytes are released and these reserved. Batches in
   * flight between operators thus count against the task budget and show in its peak.
   *
   * @throws TaskMemoryExceededException when the task budget would be exceeded
   */
  public void holdOutput(long bytes) {
    task.noteBatch(bytes);
    if (bytes > inFlight) {
      reserve(bytes - inFlight);
    } else {
      release(inFlight - bytes);
    }
    inFlight = bytes;
  }

  public long reserved() {
    return heapReserved;
  }

  /** Turns Arrow's allocation failure into the task's memory error naming this operator. */
  public TaskMemoryExceededException translate(OutOfMemoryException e) {
    return new TaskMemoryExceededException(operator, -1, task.budget(), e);
  }

  @Override
  public void close() {
    release(heapReserved);
    allocator.close();
  }
}

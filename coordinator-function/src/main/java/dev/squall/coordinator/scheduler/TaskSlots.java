package dev.squall.coordinator.scheduler;

import dev.squall.proto.v1.TaskSpec;
import java.util.function.BooleanSupplier;

/**
 * Concurrency slots an attempt must hold while it runs, shared beyond one coordinator (a job-wide
 * and an account-wide cap kept in the job store), so that parallel jobs and coordinators together
 * never start more task invocations than Lambda lets the account run (which would answer 429).
 * The scheduler takes them on the invoker's thread just before an attempt is sent and gives them
 * back when the attempt has ended.
 */
public interface TaskSlots {
  /** Slots held for one attempt; closing gives them back (at most once). */
  interface Held extends AutoCloseable {
    @Override
    void close();
  }

  /** No cap beyond the invoker's own. */
  TaskSlots UNLIMITED = (spec, stop) -> () -> {};

  /**
   * Takes the slots {@code spec} needs, waiting while none is free.
   *
   * @param stop polled while waiting; when it turns true the wait ends without slots
   * @return the slots, or null when {@code stop} turned true first
   */
  Held acquire(TaskSpec spec, BooleanSupplier stop) throws InterruptedException;
}

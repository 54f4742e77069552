package dev.squall.coordinator.scheduler;

import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import java.util.concurrent.CompletableFuture;

/**
 * Runs one task attempt somewhere (a task-function invocation) and completes with its result.
 * Failures of the transport (throttling, a crashed function, a timeout) complete normally with a
 * {@link TaskResult} whose error has code EXTERNAL, so that the scheduler sees one shape.
 */
public interface TaskInvoker {
  /**
   * Queues an attempt. Just before the invocation is sent, {@code gate} decides whether it still
   * should be: attempts queued behind the concurrency cap when the job stops are never sent.
   *
   * @return the attempt's result, or {@code null} when the gate refused it (it never ran)
   */
  CompletableFuture<TaskResult> invoke(TaskSpec spec, StartGate gate);

  /**
   * Says that the next {@code tasks} calls of {@link #invoke} for stage {@code stageId} of job
   * {@code jobId} start that stage together, so that an invoker may send them together ({@link FanOutTaskInvoker}); later calls
   * for the stage (retries) come one by one. Nothing by default.
   */
  default void stageStarting(String jobId, int stageId, int tasks) {}

  /** Invocations this invoker runs at once at most; further attempts queue. */
  default int maxConcurrent() {
    return Integer.MAX_VALUE;
  }

  /**
   * The task-size tiers this invoker can send attempts to ({@link TaskSpec#getFunctionMemoryMb()}
   * names one); null when it has one task function and specs name none.
   */
  default TaskTiers tiers() {
    return null;
  }

  /** Decides, at the moment an attempt would be sent, whether it still is; records the start. */
  @FunctionalInterface
  interface StartGate {
    boolean admit(TaskSpec spec);
  }
}

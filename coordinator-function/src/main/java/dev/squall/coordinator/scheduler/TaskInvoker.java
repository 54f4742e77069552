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
  CompletableFuture<TaskResult> invoke(TaskSpec spec);
}

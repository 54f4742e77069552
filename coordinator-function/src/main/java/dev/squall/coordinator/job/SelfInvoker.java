package dev.squall.coordinator.job;

/**
 * Starts an asynchronous invocation of the coordinator function itself that resumes a job
 * (Lambda Invoke with InvocationType Event): how a job outlives one request or one invocation.
 */
@FunctionalInterface
public interface SelfInvoker {
  /**
   * Asks for an invocation that resumes {@code jobId}; returns once the request is accepted.
   *
   * @throws RuntimeException when the invocation could not be queued
   */
  void resume(String jobId);
}

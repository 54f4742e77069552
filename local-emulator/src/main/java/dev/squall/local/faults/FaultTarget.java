package dev.squall.local.faults;

/** What a fault rule acts on. */
public enum FaultTarget {
  /** A task function invocation. */
  TASK,
  /** The coordinator, at a named job state. */
  COORDINATOR,
  /** One S3 request of the coordinator or a task (shuffle, answers, plans, markers). */
  S3,
  /** The catalog commit of a write. */
  COMMIT
}

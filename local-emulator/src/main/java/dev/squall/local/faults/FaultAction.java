package dev.squall.local.faults;

/** What an injected fault does. */
public enum FaultAction {
  /** TASK: the function fails (a function error); S3: the connection is reset; COMMIT: the catalog call fails without committing. */
  CRASH,
  /** Waits {@code seconds} and then goes on (past a task's timeout, the invocation times out). */
  HANG,
  /** Waits {@code seconds} and then goes on. */
  DELAY,
  /** TASK: the Invoke API answers 429 TooManyRequests; S3: 503 SlowDown. */
  THROTTLE,
  /** S3: the request is answered 503 SlowDown (the SDK and the shuffle reader retry it). */
  SLOW_DOWN,
  /** S3: the object is deleted just before the request reads it (a lost shuffle output). */
  DELETE_OBJECT,
  /** TASK: the task runs to its end but its answer is lost; COMMIT: the commit lands but its answer is lost. */
  LOSE_ANSWER,
  /** COORDINATOR: the invocation dies at the named state (its lease lapses; another takes the job over). */
  KILL
}

package dev.squall.jobstore;

/** The state of one task attempt. */
public enum AttemptState {
  RUNNING,
  SUCCEEDED,
  FAILED
}

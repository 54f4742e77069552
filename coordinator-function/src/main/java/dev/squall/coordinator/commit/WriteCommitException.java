package dev.squall.coordinator.commit;

/**
 * The commit of a write did not succeed.
 *
 * <p>{@link #outcomeUnknown()} tells the caller what it may do with the job's data files: when
 * false the table certainly does not reference them and they may be deleted; when true (the
 * catalog could not say whether the commit landed, and a re-check did not find it) they must be
 * kept, and a later run of the same job decides: it finds the job's snapshot, or commits.
 */
public final class WriteCommitException extends RuntimeException {
  private final boolean outcomeUnknown;
  private final boolean targetConflict;

  public WriteCommitException(String message, boolean outcomeUnknown, Throwable cause) {
    this(message, outcomeUnknown, false, cause);
  }

  private WriteCommitException(String message, boolean outcomeUnknown, boolean targetConflict, Throwable cause) {
    super(message, cause);
    this.outcomeUnknown = outcomeUnknown;
    this.targetConflict = targetConflict;
  }

  /**
   * Nothing was committed because the target table changed under the write in a way the user
   * must resolve: a CREATE TABLE AS whose name another writer took, an INSERT whose table was
   * dropped. Reported as the user's error, not as a failure of Squall or AWS.
   */
  public static WriteCommitException targetConflict(String message, Throwable cause) {
    return new WriteCommitException(message, false, true, cause);
  }

  /** True when the table was created or dropped by someone else meanwhile ({@link #targetConflict}). */
  public boolean targetConflict() {
    return targetConflict;
  }

  /** True when the data files may be referenced by the table and must not be deleted. */
  public boolean outcomeUnknown() {
    return outcomeUnknown;
  }
}

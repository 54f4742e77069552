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

  public WriteCommitException(String message, boolean outcomeUnknown, Throwable cause) {
    super(message, cause);
    this.outcomeUnknown = outcomeUnknown;
  }

  /** True when the data files may be referenced by the table and must not be deleted. */
  public boolean outcomeUnknown() {
    return outcomeUnknown;
  }
}

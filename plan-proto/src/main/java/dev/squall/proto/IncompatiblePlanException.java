package dev.squall.proto;

/**
 * A task spec was built against another version of the wire contract than the receiver's.
 * The message names both fingerprints so that the mismatched deployment can be found.
 */
public final class IncompatiblePlanException extends RuntimeException {
  private final String received;
  private final String expected;

  public IncompatiblePlanException(String received, String expected) {
    super(String.format(
        "incompatible plan-proto: task spec has schema fingerprint '%s', this task function expects '%s';"
            + " deploy the coordinator and task functions from the same build",
        received.isEmpty() ? "<none>" : received, expected));
    this.received = received;
    this.expected = expected;
  }

  /** The fingerprint the task spec carried (empty if none). */
  public String received() {
    return received;
  }

  /** The receiver's own fingerprint. */
  public String expected() {
    return expected;
  }
}

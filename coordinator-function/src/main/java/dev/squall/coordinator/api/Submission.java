package dev.squall.coordinator.api;

/**
 * What a submission answers: the result of a job that finished in time, or the status of one that
 * carries on asynchronously (exactly one is non-null).
 */
public record Submission(QueryAnswer answer, QueryStatus accepted) {
  public static Submission answered(QueryAnswer answer) {
    return new Submission(answer, null);
  }

  public static Submission accepted(QueryStatus status) {
    return new Submission(null, status);
  }

  public boolean isAnswered() {
    return answer != null;
  }
}

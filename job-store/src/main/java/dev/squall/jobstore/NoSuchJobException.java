package dev.squall.jobstore;

/** The job id is not in the store (never created, or deleted after its retention). */
public class NoSuchJobException extends JobStoreException {
  public NoSuchJobException(String jobId) {
    super("no such job: " + jobId);
  }
}

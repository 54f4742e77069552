package dev.squall.jobstore;

/** A job store operation failed: the store could not be reached, or refused the request. */
public class JobStoreException extends RuntimeException {
  public JobStoreException(String message) {
    super(message);
  }

  public JobStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}

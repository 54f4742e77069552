package dev.squall.jobstore;

import java.util.Objects;

/**
 * Why a job failed, as reported to the client.
 *
 * @param code the error code name (e.g. {@code USER_ERROR}, {@code EXTERNAL})
 * @param message what went wrong
 * @param line 1-based line in the SQL text, 0 when not applicable
 * @param column 1-based column in the SQL text, 0 when not applicable
 */
public record JobError(String code, String message, int line, int column) {
  public JobError {
    Objects.requireNonNull(code, "code");
    Objects.requireNonNull(message, "message");
  }
}

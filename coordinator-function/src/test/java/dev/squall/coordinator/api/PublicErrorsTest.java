package dev.squall.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class PublicErrorsTest {
  private final PublicErrors errors = new PublicErrors(List.of("acme-shuffle-eu"));

  @Test
  void internalDetailIsRemovedAndAReferenceAdded() {
    String detail = "task 1.0 (attempt 2) failed: shuffle output s3://acme-shuffle-eu/jobs/j/0a/s0/m0/a0.arrows is missing;"
        + " Unable to execute HTTP request: Connect to 10.1.2.3:443 [https://s3.eu-west-1.amazonaws.com/x] failed;"
        + " User: arn:aws:sts::123456789012:assumed-role/squall-task/i-1 is not authorized;"
        + " key AKIAABCDEFGHIJKLMNOP in bucket acme-shuffle-eu; account 123456789012";
    String shown = errors.publicMessage("job j", "EXTERNAL", detail);
    assertThat(shown).doesNotContain("acme-shuffle-eu", "s3://", "10.1.2.3", "amazonaws.com", "arn:aws",
        "123456789012", "AKIAABCDEFGHIJKLMNOP");
    assertThat(shown).contains("task 1.0 (attempt 2) failed", "is missing", "is not authorized")
        .containsPattern("\\(reference [0-9a-f]{12}\\)$");
  }

  @Test
  void anUnexpectedExceptionShowsNothingButAReference() {
    String shown = PublicErrors.internal("job j", new IllegalStateException("s3://acme-shuffle-eu/secret"));
    assertThat(shown).matches("internal error \\(reference [0-9a-f]{12}\\)");
    assertThat(errors.publicMessage("job j", "INTERNAL_ERROR", shown)).isEqualTo(shown);
  }
}

package dev.squall.coordinator.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A crashed task function's error as users read it: its message, no Java class names. */
class FunctionErrorsTest {
  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void theUsersMessageHasNoJavaClassName() {
    byte[] payload = bytes("{\"errorType\": \"java.lang.RuntimeException\", \"errorMessage\":"
        + " \"java.lang.IllegalStateException: buffer closed in dev.squall.engine.operator.SortOperator$Run\","
        + " \"stackTrace\": [\"dev.squall.task.TaskRunner.run(TaskRunner.java:80)\"]}");
    String shown = FunctionErrors.forUsers(payload);
    assertThat(shown).isEqualTo("buffer closed in <class>");
    assertThat(shown).doesNotContain("java.").doesNotContain("Exception").doesNotContain("TaskRunner");
    // The coordinator's log keeps the type.
    assertThat(FunctionErrors.summary(payload)).startsWith("java.lang.RuntimeException: ");
  }

  @Test
  void aMessageOfOnlyAClassNameReadsAsACrash() {
    assertThat(FunctionErrors.forUsers(bytes("{\"errorType\": \"java.lang.OutOfMemoryError\","
        + " \"errorMessage\": \"java.lang.OutOfMemoryError\"}"))).isEqualTo("the function crashed");
  }

  @Test
  void tableNamesAndPlainTextStay() {
    assertThat(FunctionErrors.forUsers(bytes("{\"errorMessage\": \"cannot read tpch.orders: timed out\"}")))
        .isEqualTo("cannot read tpch.orders: timed out");
    assertThat(FunctionErrors.forUsers(bytes("Task timed out after 30.00 seconds"))).isEqualTo("Task timed out after 30.00 seconds");
  }
}

package dev.squall.local.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Fault plans that are not what docs/faults.md describes are refused naming the rule and field. */
class FaultPlanTest {
  private static FaultPlan parse(String json) {
    return FaultPlan.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aNonNumericStageIsRefusedNamingTheField() {
    // Read leniently, "one" would be stage 0 and the rule would fire on the wrong stage.
    assertThatThrownBy(() -> parse("{\"rules\": [{\"target\": \"task\", \"stage\": \"one\", \"action\": \"crash\"}]}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fault rule 0").hasMessageContaining("\"stage\" must be a whole number");
  }

  @Test
  void fractionalPartitionsAndTextTimesOrSecondsAreRefused() {
    assertThatThrownBy(() -> parse("{\"rules\": [{\"target\": \"task\", \"partition\": 1.5, \"action\": \"crash\"}]}"))
        .hasMessageContaining("\"partition\" must be a whole number");
    assertThatThrownBy(() -> parse("{\"rules\": [{\"target\": \"task\", \"action\": \"crash\", \"times\": \"all\"}]}"))
        .hasMessageContaining("\"times\" must be a whole number");
    assertThatThrownBy(() -> parse("{\"rules\": [{\"target\": \"task\", \"action\": \"hang\", \"seconds\": \"ten\"}]}"))
        .hasMessageContaining("\"seconds\" must be a number");
  }

  @Test
  void aWellFormedPlanIsRead() {
    FaultPlan plan = parse("{\"rules\": [{\"target\": \"task\", \"stage\": 0, \"partition\": 1, \"attempt\": 0,"
        + " \"action\": \"crash\", \"times\": -1}, {\"target\": \"task\", \"action\": \"hang\", \"seconds\": 2.5}]}");
    assertThat(plan.size()).isEqualTo(2);
  }
}

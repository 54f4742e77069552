package dev.squall.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.engine.io.HedgeSettings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The task function's hedging settings from its environment, with their documented defaults and ranges. */
class TaskEnvironmentTest {
  @Test
  void hedgingDefaultsToThe95thPercentileWithin50MsAnd2SecondsAndAFivePercentBudget() {
    assertThat(TaskEnvironment.hedging(Map.of())).isEqualTo(HedgeSettings.DEFAULT);
  }

  @Test
  void hedgingIsSetFromTheEnvironmentAndABudgetOfZeroTurnsItOff() {
    HedgeSettings s = TaskEnvironment.hedging(Map.of("SQUALL_HEDGE_PERCENTILE", "90", "SQUALL_HEDGE_MIN_DELAY_MS",
        "10", "SQUALL_HEDGE_MAX_DELAY_MS", "500", "SQUALL_HEDGE_BUDGET_PERCENT", "0"));
    assertThat(s).isEqualTo(new HedgeSettings(90, Duration.ofMillis(10), Duration.ofMillis(500), 0));
    assertThat(s.enabled()).isFalse();
  }

  @Test
  void aHedgingValueOutsideItsRangeIsRefusedNamingTheVariable() {
    assertThatThrownBy(() -> TaskEnvironment.hedging(Map.of("SQUALL_HEDGE_BUDGET_PERCENT", "80")))
        .hasMessageContaining("SQUALL_HEDGE_BUDGET_PERCENT").hasMessageContaining("0-50");
    assertThatThrownBy(() -> TaskEnvironment.hedging(Map.of("SQUALL_HEDGE_PERCENTILE", "ninety")))
        .hasMessageContaining("SQUALL_HEDGE_PERCENTILE");
    assertThatThrownBy(() -> TaskEnvironment.hedging(Map.of("SQUALL_HEDGE_MIN_DELAY_MS", "300",
        "SQUALL_HEDGE_MAX_DELAY_MS", "200"))).hasMessageContaining("at least");
  }
}

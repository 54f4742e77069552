package dev.squall.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.engine.io.HedgeSettings;
import dev.squall.engine.spill.SpillSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The task function's hedging and spill settings from its environment, with their documented defaults and ranges. */
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

  @Test
  void spillingDefaultsTo400MbUnderTheTemporaryDirectoryAndZeroTurnsItOff() {
    SpillSettings defaults = TaskEnvironment.spilling(Map.of());
    assertThat(defaults.directory()).isEqualTo(Path.of(System.getProperty("java.io.tmpdir"), "squall-spill"));
    assertThat(defaults.diskBudgetBytes()).isEqualTo(400L << 20);
    assertThat(defaults.enabled()).isTrue();
    SpillSettings set = TaskEnvironment.spilling(Map.of("SQUALL_SPILL_DIR", "/mnt/spill", "SQUALL_SPILL_DISK_MB", "2048"));
    assertThat(set).isEqualTo(new SpillSettings(Path.of("/mnt/spill"), 2048L << 20));
    assertThat(TaskEnvironment.spilling(Map.of("SQUALL_SPILL_DISK_MB", "0")).enabled()).isFalse();
  }

  @Test
  void aSpillDiskBudgetOutsideItsRangeIsRefusedNamingTheVariable() {
    assertThatThrownBy(() -> TaskEnvironment.spilling(Map.of("SQUALL_SPILL_DISK_MB", "20000")))
        .hasMessageContaining("SQUALL_SPILL_DISK_MB").hasMessageContaining("0-10240");
  }
}

package dev.squall.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PlannerSettingsTest {
  @Test
  void queryPropertiesOverrideTheDefaults() {
    PlannerSettings s = PlannerSettings.defaults().withProperties(Map.of(
        PlannerSettings.DEFAULT_SCHEMA, "tpch",
        PlannerSettings.BROADCAST_THRESHOLD_BYTES, "1048576",
        PlannerSettings.TARGET_SPLIT_SIZE_BYTES, "4096",
        PlannerSettings.TARGET_BYTES_PER_TASK, "8192",
        PlannerSettings.MAX_TASKS_PER_STAGE, "12",
        "engine.something", "ignored"));
    assertThat(s).isEqualTo(new PlannerSettings("tpch", 1 << 20, 4096, 8192, 12, PlannerSettings.DEFAULT_MAX_NESTED_LOOP_JOIN_ROWS,
        PlannerSettings.DEFAULT_MIN_RETENTION));
  }

  @Test
  void badPropertiesAreNamed() {
    assertThatThrownBy(() -> PlannerSettings.defaults().withProperties(Map.of("planner.nope", "1")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("planner.nope");
    assertThatThrownBy(() -> PlannerSettings.defaults().withProperties(Map.of(PlannerSettings.MAX_TASKS_PER_STAGE, "many")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("many");
    assertThatThrownBy(() -> PlannerSettings.defaults().withTargetSplitSizeBytes(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("split size");
  }
}

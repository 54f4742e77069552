package dev.squall.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.coordinator.api.SquallException;
import dev.squall.planner.PlannerSettings;
import dev.squall.planner.stage.CombiningExchanges;
import dev.squall.proto.v1.ErrorCode;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QueryPropertiesTest {
  private static final QueryProperties.Limits LIMITS = QueryProperties.Limits.defaults();

  private static void refused(String name, String value, String range) {
    assertThatThrownBy(() -> QueryProperties.apply(PlannerSettings.defaults(), LIMITS, Map.of(name, value)))
        .isInstanceOfSatisfying(SquallException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.USER_ERROR))
        .hasMessageContaining(name).hasMessageContaining(range);
  }

  @Test
  void everyCapIsEnforcedWithItsRangeInTheMessage() {
    refused("max_tasks_per_stage", "4294967297", "from 1 to 10000"); // once wrapped around to 1
    refused("max_tasks_per_stage", "0", "from 1 to 10000");
    refused("max_total_tasks", "100001", "from 1 to 100000");
    refused("target_split_size_bytes", "1", "from 1048576 to 4294967296");
    refused("target_bytes_per_task", "1024", "from 1048576 to 68719476736");
    refused("broadcast_threshold_bytes", "536870913", "from 0 to 536870912");
    refused("broadcast_threshold_bytes", "-1", "from 0 to 536870912");
    refused("target_split_size_bytes", "12MB", "whole number of bytes");
    refused("max_concurrent_tasks", "0", "from 1 to 10000");
    refused("max_concurrent_tasks", "10001", "from 1 to 10000");
  }

  @Test
  void thePriorityIsOneToNineAndFiveUnlessGiven() {
    assertThat(QueryProperties.priority(Map.of())).isEqualTo(5);
    assertThat(QueryProperties.priority(Map.of("priority", "9"))).isEqualTo(9);
    QueryProperties.validate(LIMITS, Map.of("priority", "1"));
    refused("priority", "0", "from 1 to 9");
    refused("priority", "10", "from 1 to 9");
    refused("priority", "high", "from 1 to 9");
  }

  @Test
  void theTableProceduresMinimumRetentionIsADurationAndSevenDaysUnlessGiven() {
    assertThat(QueryProperties.apply(PlannerSettings.defaults(), LIMITS, Map.of()).planner().minRetention())
        .isEqualTo(java.time.Duration.ofDays(7));
    assertThat(QueryProperties.apply(PlannerSettings.defaults(), LIMITS,
        Map.of("table_procedure_min_retention", "1.5h")).planner().minRetention())
        .isEqualTo(java.time.Duration.ofMinutes(90));
    refused("table_procedure_min_retention", "7 days", "'7 days' is not a duration");
  }

  @Test
  void theJobsConcurrencyCapIsReadFromItsPropertiesAndIsNoneUnlessGiven() {
    assertThat(QueryProperties.maxConcurrentTasks(Map.of("max_concurrent_tasks", "12"))).isEqualTo(12);
    assertThat(QueryProperties.maxConcurrentTasks(Map.of())).isZero();
    assertThat(QueryProperties.apply(PlannerSettings.defaults(), LIMITS, Map.of("max_concurrent_tasks", " 3"))
        .maxConcurrentTasks()).isEqualTo(3);
  }

  @Test
  void shuffleCombiningIsAutoUnlessGivenAndOnlyAutoOnOrOff() {
    assertThat(QueryProperties.shuffleCombine(Map.of())).isEqualTo(CombiningExchanges.Mode.AUTO);
    assertThat(QueryProperties.shuffleCombine(Map.of("shuffle_combine", "OFF"))).isEqualTo(CombiningExchanges.Mode.OFF);
    QueryProperties.validate(LIMITS, Map.of("shuffle_combine", "on"));
    refused("shuffle_combine", "always", "'always' is not one of auto, on, off");
  }

  @Test
  void theAdaptiveTargetIsLeftToTheDeploymentUnlessGivenAndZeroTurnsCoalescingOff() {
    assertThat(QueryProperties.apply(PlannerSettings.defaults(), LIMITS, Map.of()).adaptiveTargetPartitionBytes())
        .isEmpty();
    assertThat(QueryProperties.apply(PlannerSettings.defaults(), LIMITS, Map.of("adaptive_target_partition_bytes",
        "0")).adaptiveTargetPartitionBytes()).hasValue(0);
    refused("adaptive_target_partition_bytes", "-1", "from 0 to 68719476736");
  }

  @Test
  void valuesInRangeSetThePlannerAndTheJobCap() {
    QueryProperties.Settings s = QueryProperties.apply(PlannerSettings.defaults(), LIMITS, Map.of(
        "max_tasks_per_stage", "10000", "max_total_tasks", "7", "target_split_size_bytes", "1048576",
        "broadcast_threshold_bytes", "0", "default_schema", " tpch "));
    assertThat(s.planner().maxTasksPerStage()).isEqualTo(10_000);
    assertThat(s.maxTotalTasks()).isEqualTo(7);
    assertThat(s.planner().targetSplitSizeBytes()).isEqualTo(1 << 20);
    assertThat(s.planner().broadcastThresholdBytes()).isZero();
    assertThat(s.planner().defaultSchema()).isEqualTo("tpch");
  }

  @Test
  void aDeploymentsLimitsBoundTheDefaultsToo() {
    QueryProperties.Limits tight = new QueryProperties.Limits(1 << 20, 1 << 20, 50, 80);
    QueryProperties.Settings s = QueryProperties.apply(PlannerSettings.defaults(), tight, Map.of());
    assertThat(s.planner().maxTasksPerStage()).isEqualTo(50);
    assertThat(s.maxTotalTasks()).isEqualTo(80);
  }

  @Test
  void unknownPropertiesAreNamed() {
    assertThatThrownBy(() -> QueryProperties.validate(LIMITS, Map.of("max_taskz", "3")))
        .hasMessageContaining("max_taskz").hasMessageContaining("max_tasks_per_stage");
  }
}

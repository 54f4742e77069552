package dev.squall.planner.stage;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TaskCountEstimatorTest {
  private final TaskCountEstimator tasks = new TaskCountEstimator(100, 10, 50);

  @Test
  void tasksAreBytesOverTargetRoundedUpWithinBounds() {
    assertThat(tasks.forBytes(0)).isEqualTo(1);
    assertThat(tasks.forBytes(100)).isEqualTo(1);
    assertThat(tasks.forBytes(101)).isEqualTo(2);
    assertThat(tasks.forBytes(1e12)).isEqualTo(50);
    assertThat(tasks.forBytes(Double.NaN)).isEqualTo(1);
  }

  @Test
  void leafTasksComeFromDataFileBytesOverSplitSize() {
    assertThat(tasks.forScan(95)).isEqualTo(10);
    assertThat(tasks.forScan(0)).isEqualTo(1);
  }
}

package dev.squall.planner.stage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.calcite.rel.core.JoinRelType;
import org.junit.jupiter.api.Test;

class JoinStrategyTest {
  private static final long THRESHOLD = 1000;

  private static JoinStrategy.Side side(double bytes, Distribution d, Integer... keys) {
    return new JoinStrategy.Side(bytes, d, List.of(keys));
  }

  @Test
  void smallRightSideIsBroadcast() {
    assertThat(JoinStrategy.choose(JoinRelType.INNER, side(1e9, Distribution.ANY, 0), side(500, Distribution.ANY, 0), THRESHOLD))
        .isEqualTo(JoinStrategy.BROADCAST_RIGHT);
  }

  @Test
  void smallLeftSideIsBroadcastForInnerJoins() {
    assertThat(JoinStrategy.choose(JoinRelType.INNER, side(500, Distribution.ANY, 0), side(1e9, Distribution.ANY, 0), THRESHOLD))
        .isEqualTo(JoinStrategy.BROADCAST_LEFT);
  }

  @Test
  void aSideUnderTheThresholdIsNotCopiedToManyTasksWhenPartitioningMovesLess() {
    // 900 bytes to each of 10 tasks (9,000) costs more than partitioning 900 + 3,000.
    JoinStrategy.Side probe = new JoinStrategy.Side(3_000, Distribution.ANY, List.of(0), 10);
    JoinStrategy.Side build = new JoinStrategy.Side(900, Distribution.ANY, List.of(0), 1);
    assertThat(JoinStrategy.choose(JoinRelType.INNER, probe, build, THRESHOLD)).isEqualTo(JoinStrategy.HASH_BOTH);
    // Against 10,000 bytes over the same 10 tasks the copies are cheaper.
    JoinStrategy.Side bigProbe = new JoinStrategy.Side(10_000, Distribution.ANY, List.of(0), 10);
    assertThat(JoinStrategy.choose(JoinRelType.INNER, bigProbe, build, THRESHOLD)).isEqualTo(JoinStrategy.BROADCAST_RIGHT);
  }

  @Test
  void smallerSideWinsWhenBothAreSmall() {
    assertThat(JoinStrategy.choose(JoinRelType.INNER, side(100, Distribution.ANY, 0), side(900, Distribution.ANY, 0), THRESHOLD))
        .isEqualTo(JoinStrategy.BROADCAST_LEFT);
    assertThat(JoinStrategy.choose(JoinRelType.INNER, side(900, Distribution.ANY, 0), side(100, Distribution.ANY, 0), THRESHOLD))
        .isEqualTo(JoinStrategy.BROADCAST_RIGHT);
  }

  @Test
  void preservedSideOfAnOuterJoinIsNeverBroadcast() {
    // LEFT join: broadcasting the small left side would emit its unmatched rows once per task.
    assertThat(JoinStrategy.choose(JoinRelType.LEFT, side(500, Distribution.ANY, 0), side(1e9, Distribution.ANY, 0), THRESHOLD))
        .isEqualTo(JoinStrategy.HASH_BOTH);
    assertThat(JoinStrategy.choose(JoinRelType.RIGHT, side(1e9, Distribution.ANY, 0), side(500, Distribution.ANY, 0), THRESHOLD))
        .isEqualTo(JoinStrategy.HASH_BOTH);
    assertThat(JoinStrategy.choose(JoinRelType.FULL, side(500, Distribution.ANY, 0), side(500, Distribution.ANY, 0), THRESHOLD))
        .isEqualTo(JoinStrategy.HASH_BOTH);
    assertThat(JoinStrategy.choose(JoinRelType.ANTI, side(1e9, Distribution.ANY, 0), side(500, Distribution.ANY, 0), THRESHOLD))
        .isEqualTo(JoinStrategy.BROADCAST_RIGHT);
  }

  @Test
  void sideAlreadyHashedOnItsKeysStaysAndOnlyTheOtherIsShuffled() {
    Distribution hashed = Distribution.hashOn(List.of(2));
    assertThat(JoinStrategy.choose(JoinRelType.INNER, side(1e9, hashed, 2), side(1e9, Distribution.ANY, 0), THRESHOLD))
        .isEqualTo(JoinStrategy.SHUFFLE_RIGHT);
    assertThat(JoinStrategy.choose(JoinRelType.INNER, side(1e9, Distribution.ANY, 0), side(1e9, Distribution.hashOn(List.of(0)), 0), THRESHOLD))
        .isEqualTo(JoinStrategy.SHUFFLE_LEFT);
    // Hashed on one of two join keys is enough.
    assertThat(JoinStrategy.choose(JoinRelType.INNER, side(1e9, hashed, 5, 2), side(1e9, Distribution.ANY, 0, 1), THRESHOLD))
        .isEqualTo(JoinStrategy.SHUFFLE_RIGHT);
  }

  @Test
  void twoLargeSidesAreHashPartitioned() {
    assertThat(JoinStrategy.choose(JoinRelType.INNER, side(1e9, Distribution.hashOn(List.of(7)), 0), side(1e9, Distribution.ANY, 0), THRESHOLD))
        .isEqualTo(JoinStrategy.HASH_BOTH);
  }

  @Test
  void keysOfDifferentTypesAreNeverHashPartitioned() {
    assertThat(JoinStrategy.choose(JoinRelType.INNER, side(1e9, Distribution.ANY, 0), side(1e9, Distribution.ANY, 0), THRESHOLD, false))
        .isEqualTo(JoinStrategy.BROADCAST_RIGHT);
    assertThat(JoinStrategy.choose(JoinRelType.RIGHT, side(1e9, Distribution.ANY, 0), side(1e9, Distribution.ANY, 0), THRESHOLD, false))
        .isEqualTo(JoinStrategy.BROADCAST_LEFT);
    assertThat(JoinStrategy.choose(JoinRelType.FULL, side(1e9, Distribution.ANY, 0), side(1e9, Distribution.ANY, 0), THRESHOLD, false))
        .isEqualTo(JoinStrategy.SINGLE_BOTH);
  }

  @Test
  void joinWithoutEquiKeysBroadcastsTheRightOrRunsInOneTask() {
    assertThat(JoinStrategy.choose(JoinRelType.INNER, side(1e9, Distribution.ANY), side(1e9, Distribution.ANY), THRESHOLD))
        .isEqualTo(JoinStrategy.BROADCAST_RIGHT);
    assertThat(JoinStrategy.choose(JoinRelType.FULL, side(10, Distribution.ANY), side(10, Distribution.ANY), THRESHOLD))
        .isEqualTo(JoinStrategy.SINGLE_BOTH);
  }
}

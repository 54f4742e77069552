package dev.squall.jobstore.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class DynamoDbItemKeysTest {
  @Test
  void attemptAndWinnerSortKeysArePaddedAsTheTableSchemaSays() {
    assertThat(DynamoDbJobStore.attemptKey(3, 41, 2)).isEqualTo("ATTEMPT#0003#000041#000002");
    assertThat(DynamoDbJobStore.attemptKey(9999, 999999, 999999)).isEqualTo("ATTEMPT#9999#999999#999999");
    assertThat(DynamoDbJobStore.winnerKey(12, 7)).isEqualTo("WINNER#0012#000007");
  }

  @Test
  void attemptSortKeysOrderLikeStagePartitionAttempt() {
    List<int[]> tasks = List.of(new int[] {0, 10, 0}, new int[] {0, 2, 1}, new int[] {1, 0, 0}, new int[] {0, 2, 0},
        new int[] {10, 0, 3}, new int[] {2, 100, 0});
    List<String> keys = new ArrayList<>();
    for (int[] t : tasks) {
      keys.add(DynamoDbJobStore.attemptKey(t[0], t[1], t[2]));
    }
    Collections.sort(keys);
    assertThat(keys).containsExactly(
        DynamoDbJobStore.attemptKey(0, 2, 0), DynamoDbJobStore.attemptKey(0, 2, 1),
        DynamoDbJobStore.attemptKey(0, 10, 0), DynamoDbJobStore.attemptKey(1, 0, 0),
        DynamoDbJobStore.attemptKey(2, 100, 0), DynamoDbJobStore.attemptKey(10, 0, 3));
  }

  @Test
  void sweepKeysOrderByCreationTimeAcrossTheWholeRangeThenByJobId() {
    List<Instant> times = List.of(Instant.ofEpochMilli(-5), Instant.EPOCH, Instant.ofEpochMilli(9),
        Instant.ofEpochMilli(10), Instant.parse("2026-11-29T20:00:00Z"), Instant.ofEpochMilli(Long.MAX_VALUE),
        Instant.ofEpochMilli(Long.MIN_VALUE));
    List<String> keys = new ArrayList<>();
    for (Instant t : times) {
      keys.add(DynamoDbJobStore.sweepKey(t, "job"));
    }
    List<String> sorted = new ArrayList<>(keys);
    Collections.sort(sorted);
    List<Instant> byTime = new ArrayList<>(times);
    Collections.sort(byTime);
    List<String> expected = new ArrayList<>();
    for (Instant t : byTime) {
      expected.add(DynamoDbJobStore.sweepKey(t, "job"));
    }
    assertThat(sorted).isEqualTo(expected);
    assertThat(keys).allSatisfy(k -> assertThat(k).matches("\\d{20}#job"));
    assertThat(DynamoDbJobStore.sweepKey(Instant.EPOCH, "a")).isLessThan(DynamoDbJobStore.sweepKey(Instant.EPOCH, "b"));
  }
}

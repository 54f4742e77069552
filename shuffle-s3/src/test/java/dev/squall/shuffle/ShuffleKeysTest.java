package dev.squall.shuffle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ShuffleKeysTest {
  @Test
  void keysNameStagePartitionAndAttemptUnderTheJobPrefix() {
    String key = ShuffleKeys.mapOutputKey("shuffle/job-7/", 3, 12, 1);
    assertThat(key).matches("shuffle/job-7/[0-9a-f]{2}/s3/m12/a1\\.arrows");
    assertThat(ShuffleKeys.mapOutputKey("shuffle/job-7", 3, 12, 2)).isNotEqualTo(key).endsWith("/s3/m12/a2.arrows");
  }

  @Test
  void mapOutputsOfAStageSpreadOverManyPrefixes() {
    Set<String> prefixes = new HashSet<>();
    for (int m = 0; m < 1000; m++) {
      prefixes.add(ShuffleKeys.mapOutputKey("j", 1, m, 0).substring(0, 5));
    }
    assertThat(prefixes.size()).isGreaterThan(240);
  }

  @Test
  void emptyOrRootedJobPrefixesAreRefused() {
    assertThatThrownBy(() -> ShuffleKeys.jobRoot("/")).hasMessageContaining("Invalid shuffle job prefix '/'");
    assertThatThrownBy(() -> ShuffleKeys.jobRoot("")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ShuffleKeys.jobRoot("/abs")).isInstanceOf(IllegalArgumentException.class);
  }
}

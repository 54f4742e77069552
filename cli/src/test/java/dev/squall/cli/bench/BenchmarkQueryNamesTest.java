package dev.squall.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The benchmark's query list is checked before anything runs: the DuckDB process is asked for
 * names one at a time and answers by name, so a name it would answer differently (spaces) or not
 * at all (blank) would leave the benchmark waiting.
 */
class BenchmarkQueryNamesTest {
  @Test
  void namesAreTrimmedAndBlanksDropped() {
    assertThat(BenchmarkRunner.queryNames(BenchmarkWorkload.TPCH, " Q1, Q6,,Q22 ,")).containsExactly("Q1", "Q6", "Q22");
  }

  @Test
  void anUnknownQueryIsRefusedByName() {
    assertThatThrownBy(() -> BenchmarkRunner.queryNames(BenchmarkWorkload.TPCH, "Q1,Q99"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown query 'Q99'");
  }

  @Test
  void aListWithoutNamesIsRefused() {
    assertThatThrownBy(() -> BenchmarkRunner.queryNames(BenchmarkWorkload.TPCH, " , "))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no query named");
  }
}

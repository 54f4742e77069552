package dev.squall.planner.sql;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ExplainAnalyzeTest {
  @Test
  void theQueryKeepsItsPositionsWithThePrefixBlanked() {
    assertThat(ExplainStatement.analyzedQuery("explain  ANALYZE\nselect 1")).contains("                \nselect 1");
    assertThat(ExplainStatement.analyzedQuery("EXPLAIN select 1")).isEmpty();
    assertThat(ExplainStatement.analyzedQuery("select 1")).isEmpty();
    assertThat(ExplainStatement.analyzedQuery("explain analyzed_table")).isEmpty();
  }
}

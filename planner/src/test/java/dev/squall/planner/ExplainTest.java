package dev.squall.planner;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.planner.sql.ExplainStatement;
import dev.squall.planner.testing.Planning;
import dev.squall.planner.testing.TpchQueries;
import org.junit.jupiter.api.Test;

class ExplainTest {
  @Test
  void explainTextListsStagesEdgesPartitioningAndEstimates() {
    PlannedQuery planned = Planning.sf100("EXPLAIN " + TpchQueries.query(3));
    assertThat(planned.isExplain()).isTrue();
    assertThat(planned.explainFormat()).isEqualTo(ExplainStatement.Format.TEXT);
    String text = planned.explain();
    for (var stage : planned.stageGraph().getStagesList()) {
      assertThat(text).contains("Stage " + stage.getStageId() + (stage.getStageId() == planned.stageGraph().getRootStageId() ? " [root]" : "")
          + ": tasks=" + stage.getTaskCount() + " rows=" + stage.getEstimates().getRows()
          + " bytes=" + stage.getEstimates().getBytes());
    }
    assertThat(text).contains("hash([0], partitions=").contains("broadcast").contains("single")
        .contains("HashJoin INNER on").contains("Scan tpch.lineitem").contains("TopN limit=10");
  }

  @Test
  void explainJsonHasEveryStageAndEdge() throws Exception {
    PlannedQuery planned = Planning.sf100("explain (format json)\n" + TpchQueries.query(18));
    assertThat(planned.explainFormat()).isEqualTo(ExplainStatement.Format.JSON);
    JsonNode json = new ObjectMapper().readTree(planned.explain());
    assertThat(json.get("rootStageId").asInt()).isEqualTo(planned.stageGraph().getRootStageId());
    assertThat(json.get("stages")).hasSize(planned.stageGraph().getStagesCount());
    assertThat(json.get("edges")).hasSize(planned.stageGraph().getEdgesCount());
    JsonNode firstEdge = json.get("edges").get(0);
    assertThat(firstEdge.get("partitioning").get("kind").asText()).isEqualTo("hash");
    assertThat(firstEdge.get("partitioning").get("partitions").asInt()).isPositive();
    JsonNode root = json.get("stages").get(planned.stageGraph().getStagesCount() - 1);
    assertThat(root.get("tasks").asInt()).isEqualTo(1);
    assertThat(root.get("plan").get("operator").asText()).isNotEmpty();
    assertThat(root.get("output")).hasSize(6);
  }

  @Test
  void explainTakesTrinosTypeDistributedWithAFormatInEitherOrder() {
    PlannedQuery planned = Planning.sf1("explain (type distributed, format json) select count(*) from lineitem");
    assertThat(planned.explainFormat()).isEqualTo(ExplainStatement.Format.JSON);
    planned = Planning.sf1("EXPLAIN ( TYPE DISTRIBUTED ) select count(*) from lineitem");
    assertThat(planned.isExplain()).isTrue();
    assertThat(planned.explainFormat()).isEqualTo(ExplainStatement.Format.TEXT);
  }

  @Test
  void plainQueryIsNotAnExplain() {
    PlannedQuery planned = Planning.sf1("select count(*) from lineitem");
    assertThat(planned.isExplain()).isFalse();
    assertThat(planned.explain()).contains("[root]");
  }

  @Test
  void countStarReadsCountStarInEveryAggregateStep() {
    String text = Planning.sf1("explain select count(*) from lineitem where l_quantity > 1").explain();
    assertThat(text).contains("count(*)").doesNotContain("COUNT_STAR");
  }

  @Test
  void unnamedColumnsReadAsTheResultNamesThem() throws Exception {
    String sql = "select n_regionkey, count(*), max(n_name) as top, min(n_nationkey) + 1 from nation group by n_regionkey";
    String text = Planning.sf1("explain " + sql).explain();
    assertThat(text).contains("_col1").contains("_col3").doesNotContain("EXPR$");
    String json = Planning.sf1("explain (format json) " + sql).explain();
    assertThat(json).contains("_col1").contains("_col3").doesNotContain("EXPR$");
    assertThat(new ObjectMapper().readTree(json)).isNotNull();
  }

  @Test
  void explainPrefixIsBlankedSoThatPositionsStay() {
    ExplainStatement s = ExplainStatement.parse("  explain (format json)\nselect 1");
    assertThat(s.format()).isEqualTo(ExplainStatement.Format.JSON);
    assertThat(s.query()).hasSize("  explain (format json)\nselect 1".length()).endsWith("\nselect 1").startsWith("   ");
    assertThat(ExplainStatement.parse("select explain from t").isExplain()).isFalse();
    assertThat(ExplainStatement.parse("EXPLAIN select 1").format()).isEqualTo(ExplainStatement.Format.TEXT);
  }

  @Test
  void explainListsEachRuntimeFilterWithItsBuildAndProbeColumns() throws Exception {
    String sql = "select sum(l_extendedprice) from lineitem join part on l_partkey = p_partkey"
        + " where p_brand = 'Brand#23' and p_container = 'MED BOX'";
    PlannedQuery planned = Planning.sf1("EXPLAIN " + sql);
    var graph = planned.stageGraph();
    assertThat(graph.getRuntimeFiltersCount()).isEqualTo(1);
    var f = graph.getRuntimeFilters(0);
    assertThat(planned.explain()).contains("Runtime filters:\n  filter 0: stage " + f.getBuildStageId()
        + " keys [p_partkey] -> stage " + f.getProbeStageId() + " scan tpch.lineitem input=" + f.getProbeScanInputIndex()
        + " columns [l_partkey]\n");
    JsonNode json = new ObjectMapper().readTree(Planning.sf1("explain (format json) " + sql).explain());
    JsonNode filter = json.get("runtimeFilters").get(0);
    assertThat(filter.get("buildStage").asInt()).isEqualTo(f.getBuildStageId());
    assertThat(filter.get("buildColumns").get(0).asText()).isEqualTo("p_partkey");
    assertThat(filter.get("probeStage").asInt()).isEqualTo(f.getProbeStageId());
    assertThat(filter.get("probeTable").asText()).isEqualTo("tpch.lineitem");
    assertThat(filter.get("probeColumns").get(0).asText()).isEqualTo("l_partkey");
    assertThat(Planning.sf1("explain select count(*) from lineitem").explain()).doesNotContain("Runtime filters:");
  }
}

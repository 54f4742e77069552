package dev.squall.planner.optimize;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.planner.PlannedQuery;
import dev.squall.planner.sql.SqlFrontEnd;
import dev.squall.planner.testing.Planning;
import dev.squall.planner.testing.StageGraphs;
import dev.squall.proto.v1.Operator;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.tools.RelBuilder;
import org.junit.jupiter.api.Test;

class LiteralAggToProjectTest {

  private static RelBuilder lineitem() {
    return new SqlFrontEnd(Planning.SF1, Planning.SETTINGS).relBuilder().scan("tpch", "lineitem");
  }

  @Test
  void literalBecomesAProjectedConstantAboveTheRemainingAggregate() {
    RelBuilder b = lineitem();
    // l_returnflag is column 8, l_quantity 4.
    RelNode original = b.aggregate(b.groupKey("l_returnflag"),
        b.literalAgg(true).as("matched"), b.sum(b.field("l_quantity")).as("qty")).build();
    assertThat(original).isInstanceOf(Aggregate.class);

    RelNode rewritten = LiteralAggToProject.rewrite(original);

    assertThat(rewritten.getRowType()).isEqualTo(original.getRowType());
    Project project = (Project) rewritten;
    Aggregate below = (Aggregate) project.getInput();
    assertThat(below.getGroupSet().asList()).containsExactly(8);
    assertThat(below.getAggCallList()).extracting(c -> c.getAggregation().getName()).containsExactly("SUM");
    // Output: group key, the constant, then the SUM (column 1 of the aggregate below).
    assertThat(project.getProjects().get(0)).isEqualTo(new RexInputRef(0, below.getRowType().getFieldList().get(0).getType()));
    assertThat(project.getProjects().get(1)).isInstanceOfSatisfying(RexLiteral.class,
        l -> assertThat(l.getValueAs(Boolean.class)).isTrue());
    assertThat(((RexInputRef) project.getProjects().get(2)).getIndex()).isEqualTo(1);
  }

  @Test
  void aggregateWithoutLiteralAggIsLeftAlone() {
    RelBuilder b = lineitem();
    RelNode original = b.aggregate(b.groupKey("l_returnflag"), b.sum(b.field("l_quantity"))).build();

    assertThat(LiteralAggToProject.rewrite(original)).isSameAs(original);
  }

  /**
   * NOT IN over a column that is no key (s_name) keeps Calcite's grouping of the sub-query with a
   * LITERAL_AGG(true) marker; the plan that reaches the stage graph has the marker as a projected
   * TRUE over a plain grouping instead.
   */
  @Test
  void notInOverANonKeyColumnPlansWithoutLiteralAgg() {
    PlannedQuery planned = Planning.sf1(
        "select p_name from part where p_name not in (select s_name from supplier where s_acctbal > 0)");

    assertThat(planned.logicalPlan()).doesNotContain("LITERAL_AGG");
    StageGraphs.assertWellFormed(planned.stageGraph());
    assertThat(StageGraphs.operators(planned.stageGraph(), Operator.OpCase.AGGREGATE))
        .anyMatch(o -> o.getAggregate().getAggregatesCount() == 0);
    assertThat(planned.explain()).contains("TRUE AS");
  }
}

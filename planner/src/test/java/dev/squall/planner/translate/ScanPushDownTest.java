package dev.squall.planner.translate;

import static dev.squall.planner.testing.StageGraphs.operators;
import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.planner.DistributedPlanner;
import dev.squall.planner.testing.Planning;
import dev.squall.planner.testing.TpchCatalog;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Scan;
import dev.squall.proto.v1.StageGraph;
import java.util.Optional;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.junit.jupiter.api.Test;

/** Projection and filter push-down into scans, and the Iceberg pruning filter derived from WHERE. */
class ScanPushDownTest {
  private static Scan scanOf(String sql) {
    StageGraph graph = Planning.sf1(sql).stageGraph();
    return operators(graph, Operator.OpCase.SCAN).get(0).getScan();
  }

  private static Optional<Expression> pruning(String where) {
    Scan scan = scanOf("select l_orderkey from lineitem where " + where);
    if (scan.getIcebergFilterJson().isEmpty()) {
      return Optional.empty();
    }
    Expression e = ExpressionParser.fromJson(scan.getIcebergFilterJson(), TpchCatalog.lineitemSchema());
    Binder.bind(TpchCatalog.lineitemSchema().asStruct(), e, false);
    return Optional.of(e);
  }

  @Test
  void scanReadsOnlyTheColumnsUsedInFieldIdOrder() {
    StageGraph graph = Planning.sf1("select l_comment, l_orderkey from lineitem where l_quantity > 1").stageGraph();
    Operator project = operators(graph, Operator.OpCase.PROJECT).get(0);
    Scan scan = operators(graph, Operator.OpCase.SCAN).get(0).getScan();
    // l_orderkey = 1, l_quantity = 5, l_comment = 16.
    assertThat(scan.getProjectedFieldIdsList()).containsExactly(1, 5, 16);
    assertThat(project.getProject().getExpressionsList()).extracting(e -> e.getColumn()).containsExactly(2, 0);
    Operator filter = operators(graph, Operator.OpCase.FILTER).get(0);
    assertThat(filter.getFilter().getCondition().getCall().getArgs(0).getColumn()).isEqualTo(1);
    assertThat(SchemaParser.fromJson(scan.getIcebergSchemaJson()).sameSchema(TpchCatalog.lineitemSchema())).isTrue();
    assertThat(scan.getTable()).isEqualTo("tpch.lineitem");
  }

  @Test
  void countStarReadsTheNarrowestColumn() {
    // A delete file keeps the count from being answered by the manifests alone.
    InMemoryCatalog catalog = TpchCatalog.create(1);
    TpchCatalog.addPositionDeleteFile(catalog, "lineitem");
    StageGraph graph = new DistributedPlanner(catalog).plan("select count(*) from lineitem", Planning.SETTINGS).stageGraph();
    Scan scan = operators(graph, Operator.OpCase.SCAN).get(0).getScan();
    assertThat(scan.getProjectedFieldIdsList()).containsExactly(4);
  }

  @Test
  void comparisonsWithLiteralsOnEitherSideArePushed() {
    assertThat(pruning("date '1995-01-01' > l_shipdate").orElseThrow().toString()).contains("l_shipdate").contains("<");
    assertThat(pruning("l_quantity >= 24").orElseThrow().toString()).contains("l_quantity").contains(">= 24.00");
  }

  @Test
  void inListAndPrefixLikeArePushed() {
    assertThat(pruning("l_shipmode in ('MAIL', 'SHIP')").orElseThrow().toString()).contains("l_shipmode").contains(" in (");
    assertThat(pruning("l_comment like 'forest%'").orElseThrow().toString()).contains("startsWith");
  }

  @Test
  void untranslatableConjunctsAreDroppedAndTheRestIsKept() {
    Expression e = pruning("l_comment like '%x%' and l_linenumber = 3").orElseThrow();
    assertThat(e.toString()).contains("l_linenumber").doesNotContain("l_comment");
  }

  @Test
  void disjunctionWithAnUntranslatableBranchIsNotPushed() {
    assertThat(pruning("l_comment like '%x%' or l_linenumber = 3")).isEmpty();
    assertThat(pruning("l_commitdate < l_receiptdate")).isEmpty();
  }
}

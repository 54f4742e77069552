package dev.squall.planner.optimize;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.planner.testing.Planning;
import dev.squall.planner.testing.StageGraphs;
import dev.squall.planner.testing.TpchQueries;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.StageGraph;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Filters derived for each side of an inner join from an OR in its condition (TPC-H SF 1 statistics). */
class OrSideFiltersTest {
  private static List<Operator> scansOf(StageGraph graph, String table) {
    return graph.getStagesList().stream()
        .flatMap(s -> StageGraphs.operators(s.getFragment(), Operator.OpCase.SCAN).stream())
        .filter(s -> s.getScan().getTable().endsWith(table)).toList();
  }

  @Test
  void tpchQ7FiltersBothNationScansByTheNamesOfItsOr() {
    StageGraph graph = Planning.sf1(TpchQueries.query(7)).stageGraph();
    StageGraphs.assertWellFormed(graph);
    List<Operator> nations = scansOf(graph, "nation");
    assertThat(nations).hasSize(2);
    // Each scan prunes by n_name, so only France and Germany reach the joins with supplier and customer.
    assertThat(nations).allSatisfy(scan -> assertThat(scan.getScan().getIcebergFilterJson())
        .contains("n_name").contains("FRANCE").contains("GERMANY"));
  }

  @Test
  void anOrWithABranchThatSaysNothingAboutASideOrUnderAnOuterJoinDerivesNothingThere() {
    // The second branch does not restrict n1: no filter on its scan; n2 is restricted by both.
    StageGraph some = Planning.sf1("select count(*) from nation n1 join nation n2 on n1.n_regionkey = n2.n_regionkey"
        + " where (n1.n_name = 'FRANCE' and n2.n_name = 'GERMANY') or n2.n_name = 'CHINA'").stageGraph();
    List<String> filters = scansOf(some, "nation").stream().map(s -> s.getScan().getIcebergFilterJson()).toList();
    assertThat(filters).filteredOn(f -> f.contains("n_name")).hasSize(1);
    assertThat(filters).filteredOn(f -> f.contains("CHINA") && f.contains("GERMANY")).hasSize(1);
    // A LEFT join keeps every n1 row whatever its condition says.
    StageGraph outer = Planning.sf1("select count(*) from nation n1 left join nation n2 on n1.n_regionkey = n2.n_regionkey"
        + " and ((n1.n_name = 'FRANCE' and n2.n_name = 'GERMANY') or (n1.n_name = 'GERMANY' and n2.n_name = 'FRANCE'))")
        .stageGraph();
    assertThat(scansOf(outer, "nation")).allSatisfy(s -> assertThat(s.getScan().getIcebergFilterJson()).doesNotContain("n_name"));
  }
}

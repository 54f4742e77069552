package dev.squall.planner.optimize;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.planner.testing.Planning;
import dev.squall.planner.testing.StageGraphs;
import dev.squall.planner.testing.TpchQueries;
import dev.squall.proto.v1.HashJoin;
import dev.squall.proto.v1.JoinType;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.StageGraph;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Correlated EXISTS and NOT EXISTS planned as semi and anti joins (TPC-H SF 1 statistics). */
class ExistsToSemiJoinTest {
  private static List<Operator> all(StageGraph graph, Operator.OpCase kind) {
    return graph.getStagesList().stream().flatMap(s -> StageGraphs.operators(s.getFragment(), kind).stream()).toList();
  }

  private static long scansOf(StageGraph graph, String table) {
    return all(graph, Operator.OpCase.SCAN).stream().filter(s -> s.getScan().getTable().endsWith(table)).count();
  }

  @Test
  void tpchQ21ReadsEachOfItsTablesOnceAndJoinsItsSubQueriesAsSemiAndAntiJoinsBuiltOnTheOuterRows() {
    StageGraph graph = Planning.sf1(TpchQueries.query(21)).stageGraph();
    StageGraphs.assertWellFormed(graph);
    // l1, l2 (EXISTS) and l3 (NOT EXISTS); the outer join of supplier, orders and nation once.
    assertThat(scansOf(graph, "lineitem")).isEqualTo(3);
    assertThat(scansOf(graph, "orders")).isEqualTo(1);
    assertThat(scansOf(graph, "supplier")).isEqualTo(1);
    assertThat(scansOf(graph, "nation")).isEqualTo(1);
    List<HashJoin> joins = all(graph, Operator.OpCase.HASH_JOIN).stream().map(Operator::getHashJoin).toList();
    assertThat(joins.stream().map(HashJoin::getJoinType)).contains(JoinType.SEMI, JoinType.ANTI);
    // The outer rows (Saudi suppliers' late lines of failed orders) are far fewer than lineitem's:
    // both hash tables are built on them.
    assertThat(joins.stream().filter(j -> j.getJoinType() == JoinType.SEMI || j.getJoinType() == JoinType.ANTI)
        .map(HashJoin::getBuildSide)).containsOnly(HashJoin.BuildSide.BUILD_LEFT);
  }

  @Test
  void tpchQ4AndQ22UseASemiAndAnAntiJoin() {
    StageGraph q4 = Planning.sf1(TpchQueries.query(4)).stageGraph();
    assertThat(all(q4, Operator.OpCase.HASH_JOIN).stream().map(j -> j.getHashJoin().getJoinType())).contains(JoinType.SEMI);
    StageGraph q22 = Planning.sf1(TpchQueries.query(22)).stageGraph();
    assertThat(all(q22, Operator.OpCase.HASH_JOIN).stream().map(j -> j.getHashJoin().getJoinType())).contains(JoinType.ANTI);
  }

  @Test
  void anExistsWithoutAnOuterInnerEqualityIsLeftToTheDecorrelator() {
    // Only a range ties the sub-query to the outer row: a semi join would be a nested loop.
    StageGraph graph = Planning.sf1("select count(*) from orders o where exists (select * from lineitem l"
        + " where l.l_orderkey > o.o_orderkey and l.l_quantity > 49)").stageGraph();
    StageGraphs.assertWellFormed(graph);
    assertThat(all(graph, Operator.OpCase.HASH_JOIN).stream().map(j -> j.getHashJoin().getJoinType()))
        .doesNotContain(JoinType.SEMI, JoinType.ANTI);
  }

  @Test
  void aSubQueryOverACommaJoinKeepsItsOwnJoinAndFiltersOnItsSideOfTheSemiAndAntiJoins() {
    // TPC-DS Q69's shape: each sub-query joins a fact table with a date dimension in its WHERE.
    StageGraph graph = Planning.sf1("select count(*) from customer c"
        + " where exists (select * from orders o, lineitem l where o.o_orderkey = l.l_orderkey"
        + " and o.o_custkey = c.c_custkey and l.l_quantity > 49)"
        + " and not exists (select * from orders o, lineitem l where o.o_orderkey = l.l_orderkey"
        + " and o.o_custkey = c.c_custkey and l.l_returnflag = 'R')").stageGraph();
    StageGraphs.assertWellFormed(graph);
    assertThat(all(graph, Operator.OpCase.NESTED_LOOP_JOIN)).isEmpty();
    List<HashJoin> joins = all(graph, Operator.OpCase.HASH_JOIN).stream().map(Operator::getHashJoin).toList();
    assertThat(joins.stream().map(HashJoin::getJoinType)).contains(JoinType.SEMI, JoinType.ANTI);
  }
}

package dev.squall.planner.stage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.planner.testing.Planning;
import dev.squall.planner.testing.StageGraphs;
import dev.squall.planner.testing.TpchQueries;
import dev.squall.proto.v1.Aggregate;
import dev.squall.proto.v1.JoinType;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.StageGraph;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which SEMI and ANTI joins read their right side as its distinct keys (TPC-H SF 1 statistics). */
class SemiJoinDistinctKeysTest {
  /** Stage roots that are a PARTIAL aggregation with no aggregate: a side's distinct keys. */
  private static List<Operator> distinctKeyRoots(StageGraph graph) {
    return graph.getStagesList().stream().map(s -> s.getFragment())
        .filter(op -> op.hasAggregate() && op.getAggregate().getMode() == Aggregate.Mode.PARTIAL
            && op.getAggregate().getAggregatesCount() == 0)
        .toList();
  }

  @Test
  void aNotExistsOnARepeatedKeyReadsTheDistinctKeysOfItsRightSide() {
    // TPC-H Q22's shape on keys whose domain the test catalog knows: 150,000 customers, 25 nations.
    StageGraph graph = Planning.sf1Graph("select count(*) from supplier where not exists"
        + " (select * from customer where c_nationkey = s_nationkey and c_acctbal > 0)");
    List<Operator> roots = distinctKeyRoots(graph);
    assertThat(roots).hasSize(1);
    Operator distinct = roots.get(0);
    assertThat(distinct.getOutputSchema().getFieldsList()).extracting(f -> f.getName()).containsExactly("c_nationkey");
    assertThat(StageGraphs.operators(distinct, Operator.OpCase.SCAN).get(0).getScan().getTable()).endsWith("customer");
    Operator anti = graph.getStagesList().stream()
        .flatMap(s -> StageGraphs.operators(s.getFragment(), Operator.OpCase.HASH_JOIN).stream())
        .filter(j -> j.getHashJoin().getJoinType() == JoinType.ANTI).findFirst().orElseThrow();
    assertThat(anti.getHashJoin().getRightKeysList()).containsExactly(0);
    assertThat(anti.getHashJoin().getRight().getOutputSchema().getFieldsCount()).isEqualTo(1);
    // The estimate after the exchange counts distinct keys per task, not rows.
    assertThat(graph.getStagesList().stream().filter(s -> s.getFragment() == distinct).findFirst().orElseThrow()
        .getEstimates().getRows()).isLessThan(1_000);
  }

  @Test
  void aSemiJoinWithAResidualOrOnUniqueKeysReadsItsRightSideWhole() {
    // TPC-H Q21: the residual reads l_suppkey of the right side, so its rows matter, not only its keys.
    assertThat(distinctKeyRoots(Planning.sf1Graph(TpchQueries.query(21)))).isEmpty();
    // Order keys are unique in orders: nothing to remove.
    assertThat(distinctKeyRoots(Planning.sf1Graph("select count(*) from lineitem where l_orderkey in"
        + " (select o_orderkey from orders where o_orderdate < date '1995-01-01')"))).isEmpty();
  }
}

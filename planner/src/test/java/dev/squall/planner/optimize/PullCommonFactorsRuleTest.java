package dev.squall.planner.optimize;

import static dev.squall.planner.testing.StageGraphs.edgeKinds;
import static dev.squall.planner.testing.StageGraphs.operators;
import static dev.squall.proto.v1.Partitioning.KindCase.BROADCAST;
import static dev.squall.proto.v1.Partitioning.KindCase.HASH;
import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.planner.DistributedPlanner;
import dev.squall.planner.PlannedQuery;
import dev.squall.planner.testing.Planning;
import dev.squall.planner.testing.StageGraphs;
import dev.squall.planner.testing.TpchQueries;
import dev.squall.proto.v1.HashJoin;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.StageGraph;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.junit.jupiter.api.Test;

class PullCommonFactorsRuleTest {
  private static final JavaTypeFactoryImpl TYPES = new JavaTypeFactoryImpl();
  private static final RexBuilder REX = new RexBuilder(TYPES);
  private static final RelDataType BIGINT = TYPES.createSqlType(SqlTypeName.BIGINT);
  private static final RelDataType BOOLEAN = TYPES.createSqlType(SqlTypeName.BOOLEAN);

  private static RexNode key() {
    return REX.makeCall(SqlStdOperatorTable.EQUALS, REX.makeInputRef(BIGINT, 0), REX.makeInputRef(BIGINT, 1));
  }

  private static RexNode flag(int index) {
    return REX.makeInputRef(BOOLEAN, index);
  }

  private static RexNode and(RexNode... operands) {
    return REX.makeCall(SqlStdOperatorTable.AND, operands);
  }

  private static RexNode or(RexNode... operands) {
    return REX.makeCall(SqlStdOperatorTable.OR, operands);
  }

  @Test
  void equalityInEveryBranchBecomesATopLevelConjunct() {
    RexNode condition = or(and(key(), flag(2), flag(3)), and(key(), flag(4)), and(flag(5), key(), flag(3)));

    RexNode pulled = PullCommonFactorsRule.pull(REX, condition);

    assertThat(pulled.toString()).isEqualTo("AND(=($0, $1), OR(AND($2, $3), $4, AND($5, $3)))");
  }

  @Test
  void pullingTwiceChangesNothing() {
    RexNode once = PullCommonFactorsRule.pull(REX, or(and(key(), flag(2)), and(key(), flag(3))));

    assertThat(PullCommonFactorsRule.pull(REX, once)).isEqualTo(once);
  }

  @Test
  void disjunctionWithoutCommonFactorIsLeftAlone() {
    RexNode condition = and(flag(6), or(and(key(), flag(2)), flag(3)));

    assertThat(PullCommonFactorsRule.pull(REX, condition)).isEqualTo(condition);
  }

  @Test
  void conditionWithoutOrIsReturnedAsIs() {
    RexNode condition = and(key(), flag(2));

    assertThat(PullCommonFactorsRule.pull(REX, condition)).isSameAs(condition);
  }

  /**
   * TPC-H Q19 repeats {@code p_partkey = l_partkey} in each of its three OR branches. With the
   * equality pulled out the join is a hash join on the part key with the rest of the disjunction as
   * its residual, and with a one-byte broadcast threshold both sides are hash-partitioned.
   */
  @Test
  void q19JoinsByHashOnThePartKeyWithTheDisjunctionAsResidual() {
    PlannedQuery planned = new DistributedPlanner(Planning.SF1)
        .plan(TpchQueries.query(19), Planning.SETTINGS.withBroadcastThresholdBytes(1));
    StageGraph graph = planned.stageGraph();

    StageGraphs.assertWellFormed(graph);
    assertThat(operators(graph, Operator.OpCase.NESTED_LOOP_JOIN)).isEmpty();
    assertThat(edgeKinds(graph)).containsEntry(HASH, 2).doesNotContainKey(BROADCAST);
    HashJoin join = operators(graph, Operator.OpCase.HASH_JOIN).get(0).getHashJoin();
    assertThat(join.getLeftKeysCount()).isEqualTo(1);
    assertThat(join.hasResidual()).isTrue();
    assertThat(planned.explain()).containsPattern("HashJoin INNER on (l_partkey = p_partkey|p_partkey = l_partkey)");
  }

  /** Shared one-side conjuncts leave the join too: lineitem is filtered on ship mode and instruction. */
  @Test
  void q19FiltersLineitemOnTheConjunctsAllBranchesShare() {
    StageGraph graph = Planning.sf1(TpchQueries.query(19)).stageGraph();

    String lineitemStage = StageGraphs.stagesScanning(graph, "tpch.lineitem").get(0).getFragment().toString();
    assertThat(lineitemStage).contains("DELIVER IN PERSON").contains("AIR REG");
    assertThat(operators(graph, Operator.OpCase.HASH_JOIN)).hasSize(1);
  }
}

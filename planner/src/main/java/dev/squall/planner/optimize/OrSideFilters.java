package dev.squall.planner.optimize;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.logical.LogicalFilter;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Derives, from an OR in an inner join's condition, a filter for each side of the join that every
 * branch of the OR restricts. TPC-H Q7's {@code (n1 = 'FRANCE' AND n2 = 'GERMANY') OR (n1 =
 * 'GERMANY' AND n2 = 'FRANCE')} implies {@code n1 IN ('FRANCE', 'GERMANY')} on the side that
 * reads n1 and the same on n2's, so both sides are reduced before the join instead of after it;
 * Trino and DuckDB derive the same filters from disjunctions.
 *
 * <p>Sound because the derived filter is implied: a row of a side for which no branch's own
 * conjuncts hold cannot make any branch TRUE, whatever the other side holds. The OR stays in the
 * condition, so the answer never depends on the derived filters. Only inner joins: an outer
 * join's preserved side keeps its rows whatever the condition says.
 */
final class OrSideFilters {
  private OrSideFilters() {}

  /** {@code plan} with the derived filters placed on the join inputs, or {@code plan} itself when none apply. */
  static RelNode derive(RelNode plan) {
    return plan.accept(new RelHomogeneousShuttle() {
      @Override
      public RelNode visit(RelNode other) {
        RelNode node = super.visit(other);
        return node instanceof LogicalJoin join && join.getJoinType() == JoinRelType.INNER ? withSideFilters(join) : node;
      }
    });
  }

  private static RelNode withSideFilters(LogicalJoin join) {
    List<RexNode> ors = new ArrayList<>();
    for (RexNode c : RelOptUtil.conjunctions(join.getCondition())) {
      if (c.getKind() == SqlKind.OR) {
        ors.add(c);
      }
    }
    if (ors.isEmpty()) {
      return join;
    }
    int leftWidth = join.getLeft().getRowType().getFieldCount();
    int width = leftWidth + join.getRight().getRowType().getFieldCount();
    RexBuilder rex = join.getCluster().getRexBuilder();
    RelNode left = withFilter(join.getLeft(), implied(ors, ImmutableBitSet.range(0, leftWidth), 0, rex));
    RelNode right = withFilter(join.getRight(), implied(ors, ImmutableBitSet.range(leftWidth, width), -leftWidth, rex));
    if (left == join.getLeft() && right == join.getRight()) {
      return join;
    }
    return join.copy(join.getTraitSet(), join.getCondition(), left, right, join.getJoinType(), join.isSemiJoinDone());
  }

  /**
   * For each OR, the disjunction of its branches' conjuncts over {@code side} only (shifted by
   * {@code shift} to the side's own columns), when every branch has such a conjunct.
   */
  private static List<RexNode> implied(List<RexNode> ors, ImmutableBitSet side, int shift, RexBuilder rex) {
    List<RexNode> filters = new ArrayList<>();
    for (RexNode or : ors) {
      List<RexNode> branches = new ArrayList<>();
      for (RexNode branch : RelOptUtil.disjunctions(or)) {
        List<RexNode> own = new ArrayList<>();
        for (RexNode c : RelOptUtil.conjunctions(branch)) {
          ImmutableBitSet refs = RelOptUtil.InputFinder.bits(c);
          if (!refs.isEmpty() && side.contains(refs) && RexUtil.isDeterministic(c) && !RexUtil.containsCorrelation(c)) {
            own.add(c);
          }
        }
        if (own.isEmpty()) {
          branches = null; // this branch says nothing about the side: no filter from this OR
          break;
        }
        branches.add(RexUtil.composeConjunction(rex, own));
      }
      if (branches != null) {
        filters.add(RexUtil.shift(RexUtil.composeDisjunction(rex, branches), shift));
      }
    }
    return filters;
  }

  private static RelNode withFilter(RelNode input, List<RexNode> filters) {
    if (filters.isEmpty()) {
      return input;
    }
    RexNode condition = RexUtil.composeConjunction(input.getCluster().getRexBuilder(), filters);
    return LogicalFilter.create(input, condition);
  }
}

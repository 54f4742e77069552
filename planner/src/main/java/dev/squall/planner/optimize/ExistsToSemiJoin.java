package dev.squall.planner.optimize;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.CorrelationId;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.logical.LogicalFilter;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexCorrelVariable;
import org.apache.calcite.rex.RexFieldAccess;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;

/**
 * Turns a WHERE conjunct {@code [NOT] EXISTS (SELECT ... FROM r WHERE cond)}, whose correlation
 * with the outer row lies only in {@code cond}, into a SEMI (ANTI) join of the outer input with
 * {@code r} on {@code cond}, the outer columns standing for the correlation variables: the usual
 * rewrite of correlated EXISTS (Kim; Trino's and DuckDB's semi and anti joins). Calcite's own path
 * (sub-query to Correlate, then {@code RelDecorrelator}) joins the sub-query with the distinct
 * correlation values taken from a copy of the outer input, so the outer input is computed once per
 * sub-query (TPC-H Q21: its four-table outer join three times).
 *
 * <p>Equivalent under three-valued logic: EXISTS is TRUE when some row of {@code r} makes {@code
 * cond} TRUE and FALSE otherwise, never NULL, which is what a semi join's match is (an anti join's
 * absence of one). Only rewritten when {@code cond} holds an equality of an outer and an inner
 * column, so that the join is a hash join; sub-queries with aggregates, limits or correlation
 * below their top filter are left to Calcite.
 */
final class ExistsToSemiJoin {
  private ExistsToSemiJoin() {}

  /** {@code plan} with every such EXISTS conjunct of its filters rewritten. */
  static RelNode rewrite(RelNode plan) {
    return plan.accept(new RelHomogeneousShuttle() {
      @Override
      public RelNode visit(RelNode other) {
        RelNode node = super.visit(other);
        return node instanceof LogicalFilter filter ? rewriteFilter(filter) : node;
      }
    });
  }

  private static RelNode rewriteFilter(LogicalFilter filter) {
    Set<CorrelationId> ids = filter.getVariablesSet();
    if (ids.isEmpty()) {
      return filter;
    }
    RelNode input = filter.getInput();
    List<RexNode> kept = new ArrayList<>();
    boolean changed = false;
    for (RexNode conjunct : RelOptUtil.conjunctions(filter.getCondition())) {
      boolean negated = conjunct.getKind() == SqlKind.NOT;
      RexNode operand = negated ? ((RexCall) conjunct).getOperands().get(0) : conjunct;
      RelNode joined = operand instanceof RexSubQuery sub && sub.getKind() == SqlKind.EXISTS
          ? join(input, sub, ids, negated ? JoinRelType.ANTI : JoinRelType.SEMI) : null;
      if (joined == null) {
        kept.add(conjunct);
      } else {
        input = joined; // semi and anti joins keep the outer columns as they are
        changed = true;
      }
    }
    if (!changed) {
      return filter;
    }
    if (kept.isEmpty()) {
      return input;
    }
    RexBuilder rex = filter.getCluster().getRexBuilder();
    return LogicalFilter.create(input, RexUtil.composeConjunction(rex, kept), com.google.common.collect.ImmutableSet.copyOf(ids));
  }

  /** The join for one EXISTS sub-query, or null when it has another shape. */
  private static RelNode join(RelNode outer, RexSubQuery sub, Set<CorrelationId> ids, JoinRelType type) {
    RelNode rel = sub.rel;
    while (rel instanceof LogicalProject project) {
      if (!RelOptUtil.getVariablesUsed(project).isEmpty()) {
        return null;
      }
      rel = project.getInput();
    }
    if (!(rel instanceof LogicalFilter inner) || !RelOptUtil.getVariablesUsed(inner.getInput()).isEmpty()
        || RexUtil.SubQueryFinder.find(inner.getCondition()) != null) {
      return null;
    }
    RelNode right = inner.getInput();
    List<RelDataTypeField> outerFields = outer.getRowType().getFieldList();
    int outerWidth = outerFields.size();
    RexBuilder rex = outer.getCluster().getRexBuilder();
    boolean[] shapeOk = {true};
    RexNode condition = inner.getCondition().accept(new RexShuttle() {
      @Override
      public RexNode visitInputRef(RexInputRef ref) {
        return rex.makeInputRef(ref.getType(), ref.getIndex() + outerWidth);
      }

      @Override
      public RexNode visitFieldAccess(RexFieldAccess access) {
        if (access.getReferenceExpr() instanceof RexCorrelVariable v && ids.contains(v.id)) {
          int i = access.getField().getIndex();
          if (v.getType().getFieldCount() != outerWidth || i >= outerWidth
              || !outerFields.get(i).getType().equals(access.getType())) {
            shapeOk[0] = false;
            return access;
          }
          return rex.makeInputRef(outerFields.get(i).getType(), i);
        }
        return super.visitFieldAccess(access);
      }

      @Override
      public RexNode visitCorrelVariable(RexCorrelVariable variable) {
        shapeOk[0] = false; // the whole outer row, not one of its columns
        return variable;
      }
    });
    // A correlation left over belongs to an enclosing query: left to Calcite.
    if (!shapeOk[0] || RexUtil.containsCorrelation(condition) || !hasOuterInnerEquality(condition, outerWidth)) {
      return null;
    }
    // Conjuncts over the sub-query's own columns (its joins and filters) stay on its side: as a
    // residual of an anti join, which nothing pushes down, they would leave its joins cross products.
    List<RexNode> innerOnly = new ArrayList<>();
    List<RexNode> across = new ArrayList<>();
    for (RexNode c : RelOptUtil.conjunctions(condition)) {
      int first = RelOptUtil.InputFinder.bits(c).nextSetBit(0);
      (first < 0 || first >= outerWidth ? innerOnly : across).add(c);
    }
    if (!innerOnly.isEmpty()) {
      RexNode own = RexUtil.shift(RexUtil.composeConjunction(rex, innerOnly), -outerWidth);
      right = LogicalFilter.create(right, own);
    }
    return LogicalJoin.create(outer, right, List.of(), RexUtil.composeConjunction(rex, across), Set.of(), type);
  }

  /** Whether a conjunct of {@code condition} equates a column of the outer input with one of the inner. */
  private static boolean hasOuterInnerEquality(RexNode condition, int outerWidth) {
    for (RexNode c : RelOptUtil.conjunctions(condition)) {
      if (c.getKind() == SqlKind.EQUALS && c instanceof RexCall call) {
        RexNode a = call.getOperands().get(0);
        RexNode b = call.getOperands().get(1);
        if (a instanceof RexInputRef x && b instanceof RexInputRef y
            && (x.getIndex() < outerWidth) != (y.getIndex() < outerWidth)) {
          return true;
        }
      }
    }
    return false;
  }
}

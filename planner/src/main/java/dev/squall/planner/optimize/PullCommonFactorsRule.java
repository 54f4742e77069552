package dev.squall.planner.optimize;

import org.apache.calcite.plan.RelOptRule;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.RelFactories;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.tools.RelBuilderFactory;

/**
 * Pulls the conjuncts that every branch of a disjunction shares out of it, in Filter and Join
 * conditions: {@code (a AND b) OR (a AND c)} becomes {@code a AND (b OR c)}
 * ({@link RexUtil#pullFactors}; equivalent under SQL's three-valued logic). A join whose every OR
 * branch holds the same key equality (TPC-H Q19: {@code p_partkey = l_partkey} in each of three
 * branches) thereby gets that equality as a top-level conjunct, so it becomes an equi-join that
 * can be hash-partitioned, with the rest of the disjunction kept as its residual; shared
 * one-side conjuncts can then be pushed below the join.
 *
 * <p>Fires only when the condition changes, so a HepPlanner reaches a fixed point.
 */
public final class PullCommonFactorsRule extends RelRule<PullCommonFactorsRule.Config> {
  /** The rule over Filter conditions. */
  public static final RelOptRule FILTER = new Config("PullCommonFactorsRule(Filter)",
      b -> b.operand(Filter.class).anyInputs(), RelFactories.LOGICAL_BUILDER).toRule();
  /** The rule over Join conditions. */
  public static final RelOptRule JOIN = new Config("PullCommonFactorsRule(Join)",
      b -> b.operand(Join.class).anyInputs(), RelFactories.LOGICAL_BUILDER).toRule();

  private PullCommonFactorsRule(Config config) {
    super(config);
  }

  @Override
  public void onMatch(RelOptRuleCall call) {
    RelNode rel = call.rel(0);
    RexNode condition = rel instanceof Filter filter ? filter.getCondition() : ((Join) rel).getCondition();
    RexNode pulled = pull(rel.getCluster().getRexBuilder(), condition);
    if (pulled.equals(condition)) {
      return;
    }
    if (rel instanceof Filter filter) {
      call.transformTo(filter.copy(filter.getTraitSet(), filter.getInput(), pulled));
    } else {
      Join join = (Join) rel;
      call.transformTo(join.copy(join.getTraitSet(), pulled, join.getLeft(), join.getRight(),
          join.getJoinType(), join.isSemiJoinDone()));
    }
  }

  /**
   * {@code condition} with the common factors of its disjunctions pulled out, or {@code condition}
   * itself when it holds no OR (pullFactors would still re-nest its ANDs).
   */
  public static RexNode pull(RexBuilder rexBuilder, RexNode condition) {
    if (!RexUtil.find(SqlKind.OR).contains(condition)) {
      return condition;
    }
    RexNode pulled = RexUtil.pullFactors(rexBuilder, condition);
    return RexUtil.flatten(rexBuilder, pulled);
  }

  /** Rule configuration: a description and the operand (Filter or Join, any inputs). */
  public record Config(String description, RelRule.OperandTransform operandSupplier,
      RelBuilderFactory relBuilderFactory) implements RelRule.Config {
    @Override
    public Config withRelBuilderFactory(RelBuilderFactory factory) {
      return new Config(description, operandSupplier, factory);
    }

    @Override
    public Config withDescription(String text) {
      return new Config(text, operandSupplier, relBuilderFactory);
    }

    @Override
    public Config withOperandSupplier(RelRule.OperandTransform transform) {
      return new Config(description, transform, relBuilderFactory);
    }

    @Override
    public RelOptRule toRule() {
      return new PullCommonFactorsRule(this);
    }
  }
}

package dev.squall.planner.optimize;

import dev.squall.planner.PlanningException;
import java.util.EnumSet;
import java.util.List;
import org.apache.calcite.plan.RelOptRule;
import org.apache.calcite.plan.hep.HepMatchOrder;
import org.apache.calcite.plan.hep.HepPlanner;
import org.apache.calcite.plan.hep.HepProgram;
import org.apache.calcite.plan.hep.HepProgramBuilder;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelShuttleImpl;
import org.apache.calcite.rel.core.Correlate;
import org.apache.calcite.rel.logical.LogicalCorrelate;
import org.apache.calcite.rel.rules.AggregateReduceFunctionsRule;
import org.apache.calcite.rel.rules.CoreRules;
import org.apache.calcite.rel.rules.PruneEmptyRules;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql2rel.RelDecorrelator;
import org.apache.calcite.tools.RelBuilder;

/**
 * Rewrites a logical plan with Calcite's rules, in phases (each a HepPlanner program):
 * <ol>
 *   <li>sub-queries to joins ({@code SubQueryRemoveRule}), then {@code RelDecorrelator};</li>
 *   <li>window calls with a NULL constant count answered as NULL ({@link NullWindowCounts}), constant
 *       window values projected as columns ({@link WindowValueColumns}); window functions out of
 *       projections into {@code LogicalWindow}s (one group per distinct
 *       PARTITION BY, ORDER BY and frame), as Calcite's {@code ProjectToWindowRule} splits them;</li>
 *   <li>simplification: constant folding ({@code ReduceExpressionsRule}), conjuncts common to
 *       every branch of an OR pulled out of it ({@link PullCommonFactorsRule}, so that such joins
 *       get equi-keys), filters each side of an inner join implied by an OR in its condition
 *       ({@link OrSideFilters}), filter push-down into and through joins, projects, aggregates and windows (on PARTITION BY keys), set operations to aggregates, DISTINCT aggregates
 *       expanded into joins of aggregates, AVG and the variances and standard deviations reduced to
 *       sums and counts ({@code AggregateReduceFunctionsRule}, those only, so that SUM stays SUM),
 *       which split into partial and final aggregates like any SUM and COUNT;</li>
 *   <li>aggregate FILTER arguments turned into CASE arguments ({@link AggregateFilterToCase});
 *       {@code LITERAL_AGG} calls turned into constants projected above the aggregate
 *       ({@link LiteralAggToProject});</li>
 *   <li>unused columns trimmed ({@link ColumnTrimmer}) so that scans read only what is used;</li>
 *   <li>join ordering: inner joins merged into a {@code MultiJoin} and ordered by
 *       {@code LoptOptimizeJoinRule} from the tables' row counts (Iceberg snapshot summaries);</li>
 *   <li>clean-up: semi-joins from joins with a distinct right side, unused columns projected
 *       away below windows, projects merged, filters
 *       pushed again.</li>
 * </ol>
 *
 * <p>A planning thread that is interrupted stops before the next rule or phase
 * ({@link PlanningInterrupts}).
 */
public final class LogicalOptimizer {
  private static final List<RelOptRule> SIMPLIFY = List.of(
      // LIMIT 0 reads nothing: an empty relation, and the sorts and projections over it too.
      PruneEmptyRules.SORT_FETCH_ZERO_INSTANCE,
      PruneEmptyRules.SORT_INSTANCE,
      PruneEmptyRules.PROJECT_INSTANCE,
      CoreRules.FILTER_REDUCE_EXPRESSIONS,
      CoreRules.PROJECT_REDUCE_EXPRESSIONS,
      CoreRules.JOIN_REDUCE_EXPRESSIONS,
      PullCommonFactorsRule.FILTER,
      PullCommonFactorsRule.JOIN,
      CoreRules.FILTER_INTO_JOIN,
      CoreRules.JOIN_CONDITION_PUSH,
      CoreRules.JOIN_PUSH_EXPRESSIONS,
      CoreRules.FILTER_PROJECT_TRANSPOSE,
      CoreRules.FILTER_AGGREGATE_TRANSPOSE,
      CoreRules.FILTER_SET_OP_TRANSPOSE,
      CoreRules.FILTER_WINDOW_TRANSPOSE,
      CoreRules.FILTER_MERGE,
      CoreRules.PROJECT_MERGE,
      CoreRules.PROJECT_REMOVE,
      CoreRules.AGGREGATE_PROJECT_MERGE,
      CoreRules.UNION_TO_DISTINCT,
      CoreRules.INTERSECT_TO_DISTINCT,
      CoreRules.MINUS_TO_DISTINCT,
      CoreRules.AGGREGATE_EXPAND_DISTINCT_AGGREGATES_TO_JOIN,
      AggregateReduceFunctionsRule.Config.DEFAULT
          .withFunctionsToReduce(EnumSet.of(SqlKind.AVG, SqlKind.STDDEV_POP, SqlKind.STDDEV_SAMP,
              SqlKind.VAR_POP, SqlKind.VAR_SAMP)).toRule());

  private static final List<RelOptRule> CLEAN_UP = List.of(
      CoreRules.FILTER_REDUCE_EXPRESSIONS,
      CoreRules.PROJECT_REDUCE_EXPRESSIONS,
      CoreRules.FILTER_INTO_JOIN,
      CoreRules.JOIN_CONDITION_PUSH,
      CoreRules.FILTER_PROJECT_TRANSPOSE,
      CoreRules.FILTER_MERGE,
      CoreRules.PROJECT_JOIN_TRANSPOSE,
      CoreRules.PROJECT_MERGE,
      CoreRules.PROJECT_REMOVE,
      CoreRules.PROJECT_WINDOW_TRANSPOSE,
      CoreRules.PROJECT_TO_SEMI_JOIN,
      CoreRules.JOIN_TO_SEMI_JOIN,
      CoreRules.SORT_PROJECT_TRANSPOSE);

  /**
   * Optimizes a plan.
   *
   * @throws PlanningException UNSUPPORTED when a correlated sub-query cannot be decorrelated
   */
  public RelNode optimize(RelNode rel, RelBuilder builder) {
    RelNode plan = hep(ExistsToSemiJoin.rewrite(ValuesLiterals.normalize(rel)), HepMatchOrder.DEPTH_FIRST, List.of(
        CoreRules.FILTER_SUB_QUERY_TO_CORRELATE,
        CoreRules.PROJECT_SUB_QUERY_TO_CORRELATE,
        CoreRules.JOIN_SUB_QUERY_TO_CORRELATE));
    PlanningInterrupts.check();
    plan = RelDecorrelator.decorrelateQuery(plan, builder);
    plan = NullWindowCounts.rewrite(plan);
    plan = WindowValueColumns.rewrite(plan);
    plan = hep(plan, HepMatchOrder.BOTTOM_UP, List.of(CoreRules.PROJECT_TO_LOGICAL_PROJECT_AND_WINDOW));
    plan = hep(plan, HepMatchOrder.BOTTOM_UP, SIMPLIFY);
    RelNode sideFilters = OrSideFilters.derive(plan);
    if (sideFilters != plan) {
      plan = hep(sideFilters, HepMatchOrder.BOTTOM_UP, SIMPLIFY); // pushes the derived filters down
    }
    plan = AggregateFilterToCase.rewrite(plan);
    plan = LiteralAggToProject.rewrite(plan);
    PlanningInterrupts.check();
    plan = new ColumnTrimmer(builder).trim(plan);
    plan = orderJoins(plan);
    plan = hep(plan, HepMatchOrder.BOTTOM_UP, CLEAN_UP);
    plan = new ColumnTrimmer(builder).trim(plan);
    plan = hep(plan, HepMatchOrder.BOTTOM_UP, List.of(
        CoreRules.FILTER_PROJECT_TRANSPOSE, CoreRules.PROJECT_MERGE, CoreRules.PROJECT_REMOVE,
        CoreRules.FILTER_MERGE));
    plan = MetadataAggregates.rewrite(plan);
    refuseCorrelates(plan);
    return plan;
  }

  private static RelNode orderJoins(RelNode plan) {
    HepProgram program = new HepProgramBuilder()
        .addMatchOrder(HepMatchOrder.BOTTOM_UP)
        .addRuleCollection(List.of(CoreRules.JOIN_TO_MULTI_JOIN,
            CoreRules.PROJECT_MULTI_JOIN_MERGE, CoreRules.FILTER_MULTI_JOIN_MERGE))
        .addRuleInstance(CoreRules.MULTI_JOIN_OPTIMIZE)
        .build();
    return run(plan, program);
  }

  private static RelNode hep(RelNode rel, HepMatchOrder order, List<RelOptRule> rules) {
    HepProgramBuilder program = new HepProgramBuilder().addMatchOrder(order);
    program.addRuleCollection(rules);
    return run(rel, program.build());
  }

  private static RelNode run(RelNode rel, HepProgram program) {
    PlanningInterrupts.check();
    HepPlanner planner = new HepPlanner(program);
    planner.addListener(PlanningInterrupts.LISTENER);
    planner.setRoot(rel);
    return planner.findBestExp();
  }

  private static void refuseCorrelates(RelNode plan) {
    plan.accept(new RelShuttleImpl() {
      @Override
      public RelNode visit(LogicalCorrelate correlate) {
        throw PlanningException.unpositioned(PlanningException.Code.UNSUPPORTED,
            "Unsupported SQL: a correlated sub-query that cannot be turned into a join");
      }

      @Override
      public RelNode visit(RelNode other) {
        if (other instanceof Correlate) {
          throw PlanningException.unpositioned(PlanningException.Code.UNSUPPORTED,
              "Unsupported SQL: a correlated sub-query that cannot be turned into a join");
        }
        return super.visit(other);
      }
    });
  }
}

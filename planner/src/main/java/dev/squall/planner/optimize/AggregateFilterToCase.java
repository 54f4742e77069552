package dev.squall.planner.optimize;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Removes aggregate FILTER arguments, which the engine's aggregate has no field for, by moving
 * the condition into the aggregated value: {@code agg(x) FILTER (WHERE f)} becomes
 * {@code agg(CASE WHEN f IS TRUE THEN x END)} and {@code COUNT(*) FILTER (WHERE f)} becomes
 * {@code COUNT(CASE WHEN f IS TRUE THEN 1 END)}. Exact for SUM, $SUM0, COUNT, MIN and MAX, which
 * all ignore NULL inputs. Calcite itself emits such filters when it rewrites INTERSECT, EXCEPT
 * and several DISTINCT aggregates.
 */
public final class AggregateFilterToCase {
  private AggregateFilterToCase() {}

  /** The plan with no aggregate call carrying a filter. */
  public static RelNode rewrite(RelNode plan) {
    return plan.accept(new RelHomogeneousShuttle() {
      @Override
      public RelNode visit(RelNode other) {
        RelNode visited = super.visit(other);
        return visited instanceof Aggregate aggregate && aggregate.getAggCallList().stream().anyMatch(AggregateCall::hasFilter)
            ? rewrite(aggregate) : visited;
      }
    });
  }

  private static RelNode rewrite(Aggregate aggregate) {
    RelNode input = aggregate.getInput();
    RexBuilder rex = aggregate.getCluster().getRexBuilder();
    List<RexNode> projects = new ArrayList<>();
    List<String> names = new ArrayList<>();
    List<RelDataType> inputTypes = new ArrayList<>();
    for (int i = 0; i < input.getRowType().getFieldCount(); i++) {
      projects.add(rex.makeInputRef(input, i));
      names.add(input.getRowType().getFieldNames().get(i));
      inputTypes.add(input.getRowType().getFieldList().get(i).getType());
    }
    List<AggregateCall> calls = new ArrayList<>();
    for (AggregateCall call : aggregate.getAggCallList()) {
      if (!call.hasFilter()) {
        calls.add(call);
        continue;
      }
      RexNode condition = rex.makeCall(SqlStdOperatorTable.IS_TRUE, rex.makeInputRef(input, call.filterArg));
      RexNode value = call.getArgList().isEmpty()
          ? rex.makeExactLiteral(java.math.BigDecimal.ONE, aggregate.getCluster().getTypeFactory().createSqlType(SqlTypeName.INTEGER))
          : rex.makeInputRef(input, call.getArgList().get(0));
      if (call.getArgList().size() > 1) {
        throw new IllegalStateException("Filtered aggregate with several arguments: " + call);
      }
      RelDataType nullableType = aggregate.getCluster().getTypeFactory().createTypeWithNullability(value.getType(), true);
      RexNode guarded = rex.makeCall(nullableType, SqlStdOperatorTable.CASE,
          List.of(condition, value, rex.makeNullLiteral(nullableType)));
      projects.add(guarded);
      names.add("$filtered" + calls.size());
      calls.add(call.withFilter(-1).withArgList(List.of(projects.size() - 1)));
    }
    RelNode newInput = LogicalProject.create(input, List.of(), projects, names, java.util.Set.of());
    return aggregate.copy(aggregate.getTraitSet(), newInput, aggregate.getGroupSet(), aggregate.getGroupSets(), calls);
  }
}

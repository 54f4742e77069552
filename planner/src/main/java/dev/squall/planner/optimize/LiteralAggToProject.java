package dev.squall.planner.optimize;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;

/**
 * Removes Calcite's {@code LITERAL_AGG}, which the engine's aggregate does not compute. It is a
 * constant per group (Calcite's sub-query removal and decorrelation use it as a "row matched"
 * marker, e.g. {@code LITERAL_AGG(true)} for the sub-query of {@code NOT IN} in TPC-H Q16 when the
 * sub-query's column is not a declared key), so
 * {@code Aggregate(group, calls with LITERAL_AGG(v))} becomes
 * {@code Project(group columns, the other calls, v at its place)} over
 * {@code Aggregate(group, the other calls)}. Row count and row type are unchanged: an aggregate
 * without group keys still yields one row.
 */
public final class LiteralAggToProject {
  private LiteralAggToProject() {}

  /** The plan with no aggregate call to LITERAL_AGG. */
  public static RelNode rewrite(RelNode plan) {
    return plan.accept(new RelHomogeneousShuttle() {
      @Override
      public RelNode visit(RelNode other) {
        RelNode visited = super.visit(other);
        return visited instanceof Aggregate aggregate
            && aggregate.getAggCallList().stream().anyMatch(LiteralAggToProject::isLiteralAgg)
            ? rewrite(aggregate) : visited;
      }
    });
  }

  private static boolean isLiteralAgg(AggregateCall call) {
    return call.getAggregation().getKind() == SqlKind.LITERAL_AGG;
  }

  private static RelNode rewrite(Aggregate aggregate) {
    List<AggregateCall> kept = new ArrayList<>();
    for (AggregateCall call : aggregate.getAggCallList()) {
      if (!isLiteralAgg(call)) {
        kept.add(call);
      }
    }
    Aggregate computed = aggregate.copy(aggregate.getTraitSet(), aggregate.getInput(),
        aggregate.getGroupSet(), aggregate.getGroupSets(), kept);
    RexBuilder rex = aggregate.getCluster().getRexBuilder();
    int groupCount = aggregate.getGroupCount();
    List<RexNode> projects = new ArrayList<>();
    for (int i = 0; i < groupCount; i++) {
      projects.add(rex.makeInputRef(computed, i));
    }
    int next = groupCount;
    List<RelDataTypeField> fields = aggregate.getRowType().getFieldList();
    for (int i = 0; i < aggregate.getAggCallList().size(); i++) {
      AggregateCall call = aggregate.getAggCallList().get(i);
      if (isLiteralAgg(call)) {
        // The literal as the call's own type, so that the row type stays exactly the same.
        projects.add(rex.ensureType(fields.get(groupCount + i).getType(), call.rexList.get(0), true));
      } else {
        projects.add(rex.makeInputRef(computed, next++));
      }
    }
    return LogicalProject.create(computed, List.of(), projects, aggregate.getRowType().getFieldNames(),
        java.util.Set.of());
  }
}

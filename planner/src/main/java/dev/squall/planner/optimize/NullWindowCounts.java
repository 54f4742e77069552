package dev.squall.planner.optimize;

import java.util.List;
import java.util.Locale;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexOver;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.sql.SqlKind;

/**
 * Replaces a window call whose count is the constant NULL by a NULL of the call's type, as Trino
 * answers it on every row: {@code ntile(NULL)}, {@code lag(x, NULL)}, {@code lead(x, NULL)} and
 * {@code nth_value(x, NULL)}. The window operator takes these counts as constants and has no
 * value for "no count"; a count that is NULL on some rows only is an expression (NTILE reads it on
 * each row). Runs before windows are split out of projections.
 */
final class NullWindowCounts {
  private NullWindowCounts() {}

  /** The plan with every such window call replaced by a typed NULL. */
  static RelNode rewrite(RelNode plan) {
    return plan.accept(new RelHomogeneousShuttle() {
      @Override
      public RelNode visit(RelNode other) {
        RelNode visited = super.visit(other);
        if (!(visited instanceof LogicalProject project) || !project.containsOver()) {
          return visited;
        }
        RexBuilder rex = project.getCluster().getRexBuilder();
        RexShuttle nulls = new RexShuttle() {
          @Override
          public RexNode visitOver(RexOver over) {
            return hasNullCount(over) ? rex.makeNullLiteral(over.getType()) : super.visitOver(over);
          }
        };
        List<RexNode> projects = nulls.apply(project.getProjects());
        return projects.equals(project.getProjects()) ? project
            : project.copy(project.getTraitSet(), project.getInput(), projects, project.getRowType());
      }
    });
  }

  private static boolean hasNullCount(RexOver over) {
    String name = over.getOperator().getName().toUpperCase(Locale.ROOT);
    int count = switch (name) {
      case "NTILE" -> 0;
      case "LAG", "LEAD", "NTH_VALUE" -> 1;
      default -> -1;
    };
    return count >= 0 && over.getOperands().size() > count && isNullConstant(over.getOperands().get(count));
  }

  private static boolean isNullConstant(RexNode node) {
    if (node instanceof RexLiteral literal) {
      return literal.isNull();
    }
    return node.getKind() == SqlKind.CAST && isNullConstant(((RexCall) node).getOperands().get(0));
  }
}

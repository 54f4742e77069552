package dev.squall.planner.optimize;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexOver;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.rex.RexWindow;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Gives a window call whose value is a constant ({@code sum(2) over ()}, {@code first_value('x')
 * over w}, {@code lag(0) over w}) a column to read: the constant is projected as one more column of
 * the window's input, and the call reads that column. The window operator reads values from input
 * columns only; counts, offsets and defaults stay constants. Runs before windows are split out of
 * projections.
 */
final class WindowValueColumns {
  private WindowValueColumns() {}

  /** The plan with every constant window value read from a projected column. */
  static RelNode rewrite(RelNode plan) {
    return plan.accept(new RelHomogeneousShuttle() {
      @Override
      public RelNode visit(RelNode other) {
        RelNode visited = super.visit(other);
        return visited instanceof LogicalProject project && project.containsOver() ? rewrite(project) : visited;
      }
    });
  }

  private static RelNode rewrite(LogicalProject project) {
    RexBuilder rex = project.getCluster().getRexBuilder();
    int width = project.getInput().getRowType().getFieldCount();
    List<RexNode> constants = new ArrayList<>();
    RexShuttle shuttle = new RexShuttle() {
      @Override
      public RexNode visitOver(RexOver over) {
        RexOver visited = (RexOver) super.visitOver(over);
        int values = valueOperands(visited);
        List<RexNode> operands = new ArrayList<>(visited.getOperands());
        boolean changed = false;
        for (int i = 0; i < values; i++) {
          RexNode operand = operands.get(i);
          if (RexUtil.isConstant(operand) && operand.getType().getSqlTypeName() != SqlTypeName.NULL) {
            int k = constants.indexOf(operand);
            if (k < 0) {
              k = constants.size();
              constants.add(operand);
            }
            operands.set(i, rex.makeInputRef(operand.getType(), width + k));
            changed = true;
          }
        }
        if (!changed) {
          return visited;
        }
        // RexOver cannot be cloned with other operands; the same window is built anew.
        RexWindow w = visited.getWindow();
        return rex.makeOver(visited.getType(), visited.getAggOperator(), operands, w.partitionKeys, w.orderKeys,
            w.getLowerBound(), w.getUpperBound(), w.getExclude(), w.isRows(), true, false, visited.isDistinct(),
            visited.ignoreNulls());
      }
    };
    List<RexNode> projects = shuttle.apply(project.getProjects());
    if (constants.isEmpty()) {
      return project;
    }
    List<RexNode> below = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (RelDataTypeField field : project.getInput().getRowType().getFieldList()) {
      below.add(rex.makeInputRef(field.getType(), field.getIndex()));
      names.add(field.getName());
    }
    for (int k = 0; k < constants.size(); k++) {
      below.add(constants.get(k));
      names.add("$window_value" + k);
    }
    RelNode input = LogicalProject.create(project.getInput(), List.of(), below, names, Set.of());
    return project.copy(project.getTraitSet(), input, projects, project.getRowType());
  }

  /** How many leading operands of {@code over} are values read on each row (the rest are constants by design). */
  private static int valueOperands(RexOver over) {
    return switch (over.getOperator().getName().toUpperCase(Locale.ROOT)) {
      case "SUM", "$SUM0", "AVG", "MIN", "MAX", "COUNT", "FIRST_VALUE", "LAST_VALUE" -> over.getOperands().size();
      case "LAG", "LEAD", "NTH_VALUE" -> Math.min(1, over.getOperands().size());
      default -> 0;
    };
  }
}

package dev.squall.planner.sql;

import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * Puts Squall's operators in place of those Calcite's parser binds directly: PERCENTILE_CONT and
 * PERCENTILE_DISC ({@link TrinoFunctions}, DOUBLE results; Calcite's take their result type from
 * the ORDER BY column, which it cannot infer again once the query is a plan), and the {@code %}
 * operator, which becomes Squall's MOD (Calcite's {@code %} accepts exact numbers only and would
 * cast a DOUBLE operand to DECIMAL; Trino's {@code %} of a DOUBLE is a DOUBLE).
 */
final class PercentileOperators extends SqlBasicVisitor<Void> {
  private PercentileOperators() {}

  /** Replaces the operators in place in a parsed statement. */
  static void replace(SqlNode node) {
    node.accept(new PercentileOperators());
  }

  @Override
  public Void visit(SqlCall call) {
    if (call instanceof SqlBasicCall basic
        && (call.getKind() == SqlKind.PERCENTILE_CONT || call.getKind() == SqlKind.PERCENTILE_DISC)) {
      basic.setOperator(TrinoFunctions.INSTANCE.function(call.getOperator().getName()));
    } else if (call instanceof SqlBasicCall basic && call.getKind() == SqlKind.MOD) {
      basic.setOperator(TrinoFunctions.INSTANCE.function("MOD"));
    }
    return super.visit(call);
  }
}

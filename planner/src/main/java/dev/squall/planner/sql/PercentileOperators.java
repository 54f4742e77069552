package dev.squall.planner.sql;

import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * Puts Squall's PERCENTILE_CONT and PERCENTILE_DISC ({@link TrinoFunctions}, DOUBLE results) in
 * place of Calcite's, which its parser binds directly (they are reserved words) and whose result
 * type, taken from the ORDER BY column, Calcite cannot infer again once the query is a plan.
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
    }
    return super.visit(call);
  }
}

package dev.squall.planner.sql;

import java.util.List;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * Puts Squall's operators in place of those Calcite's parser binds directly: PERCENTILE_CONT and
 * PERCENTILE_DISC ({@link TrinoFunctions}; Calcite's take their result type from the ORDER BY
 * column, which it cannot infer again once the query is a plan: PERCENTILE_CONT is DOUBLE, and
 * PERCENTILE_DISC gets the ORDER BY expression as a second argument, whose type it answers in, as
 * DuckDB does), and the {@code %}
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
    if (call.getKind() == SqlKind.WITHIN_GROUP && call.operand(0) instanceof SqlBasicCall disc
        && disc.getKind() == SqlKind.PERCENTILE_DISC && disc.operandCount() == 1
        && call.operand(1) instanceof SqlNodeList order && order.size() == 1) {
      // PERCENTILE_DISC(p, x): its result type is x's, which the aggregate call then carries as an argument.
      SqlNode key = order.get(0);
      while (key.getKind() == SqlKind.DESCENDING || key.getKind() == SqlKind.NULLS_FIRST
          || key.getKind() == SqlKind.NULLS_LAST) {
        key = ((SqlCall) key).operand(0);
      }
      call.setOperand(0, new SqlBasicCall(TrinoFunctions.INSTANCE.function("PERCENTILE_DISC"),
          List.of(disc.operand(0), key.clone(key.getParserPosition())), disc.getParserPosition()));
    }
    if (call instanceof SqlBasicCall basic
        && (call.getKind() == SqlKind.PERCENTILE_CONT || call.getKind() == SqlKind.PERCENTILE_DISC)) {
      basic.setOperator(TrinoFunctions.INSTANCE.function(call.getOperator().getName()));
    } else if (call instanceof SqlBasicCall basic && call.getKind() == SqlKind.MOD) {
      basic.setOperator(TrinoFunctions.INSTANCE.function("MOD"));
    }
    return super.visit(call);
  }
}

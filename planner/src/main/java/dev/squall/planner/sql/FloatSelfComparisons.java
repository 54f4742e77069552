package dev.squall.planner.sql;

import java.util.List;
import java.util.Set;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeUtil;

/**
 * Keeps a comparison of a REAL or DOUBLE expression with itself ({@code x = x}, {@code nan() <>
 * nan()}) as IEEE 754 (and Trino) answer it: false for NaN under {@code =}, {@code <=}, {@code
 * >=}, true under {@code <>}, NULL for NULL.
 *
 * <p>Why: Calcite's simplifier rewrites {@code x = x} to {@code x IS NOT NULL OR NULL} and {@code x
 * <> x} to {@code x IS NULL AND NULL} for any deterministic {@code x}, which is right for every type
 * but the floating ones, where NaN is not equal to itself. The right operand of such a comparison
 * is wrapped in {@link #SAME}, an identity the simplifier cannot see through (so the two operands
 * differ); the translator to plan-proto drops it. Comparisons of other types are left to the
 * simplifier.
 */
public final class FloatSelfComparisons {
  /** {@code SAME(x)} is x; marked dynamic so that constant folding never tries to run it. */
  public static final SqlFunction SAME = new SqlFunction("SQUALL_SAME", SqlKind.OTHER_FUNCTION, ReturnTypes.ARG0,
      null, OperandTypes.ANY, SqlFunctionCategory.SYSTEM) {
    @Override
    public boolean isDynamicFunction() {
      return true;
    }

    // Not deterministic to Calcite: otherwise its predicate inference takes x = SAME(x) as a
    // constant binding of x and substitutes it into itself without end (a VALUES input).
    @Override
    public boolean isDeterministic() {
      return false;
    }
  };

  private static final Set<SqlKind> COMPARISONS = Set.of(SqlKind.EQUALS, SqlKind.NOT_EQUALS, SqlKind.LESS_THAN,
      SqlKind.LESS_THAN_OR_EQUAL, SqlKind.GREATER_THAN, SqlKind.GREATER_THAN_OR_EQUAL);

  private FloatSelfComparisons() {}

  /** Whether calls of this kind may need guarding. */
  static boolean isComparison(SqlKind kind) {
    return COMPARISONS.contains(kind);
  }

  /**
   * {@code converted} with its right operand wrapped in {@link #SAME} when both operands are the
   * same floating expression; otherwise {@code converted} itself.
   */
  static RexNode guard(RexBuilder rex, RexNode converted) {
    if (converted instanceof RexCall call && isComparison(call.getKind()) && call.getOperands().size() == 2) {
      RexNode left = call.getOperands().get(0);
      RexNode right = call.getOperands().get(1);
      if (left.equals(right) && SqlTypeUtil.isApproximateNumeric(left.getType())) {
        return rex.makeCall(call.getType(), call.getOperator(), List.of(left, rex.makeCall(SAME, right)));
      }
    }
    return converted;
  }

  /** Whether {@code operator} is {@link #SAME}, which stands for its operand. */
  public static boolean isSame(SqlOperator operator) {
    return operator == SAME;
  }
}

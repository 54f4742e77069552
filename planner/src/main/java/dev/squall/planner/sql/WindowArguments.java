package dev.squall.planner.sql;

import dev.squall.planner.PlanningException;
import java.math.BigDecimal;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.SqlWindow;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * Checks window function calls before validation, where their positions are still known:
 * NTILE's bucket count and NTH_VALUE's index must be positive, LAG's and LEAD's offset zero or
 * more (when written as number literals; other constants are checked when the window is
 * translated; a NULL constant answers NULL, see {@code NullWindowCounts}), and IGNORE NULLS and frame EXCLUDE clauses, which the window operator does not
 * compute, are refused whole.
 *
 * <p>It also gives RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST and NTILE written without ORDER BY
 * a constant ORDER BY: Calcite's validator requires one, while in Trino (and DuckDB) every row of
 * the partition is then a peer of every other (RANK 1, CUME_DIST 1, ...), which is what ordering
 * by a constant computes.
 */
public final class WindowArguments extends SqlBasicVisitor<Void> {
  /** Functions that Calcite refuses without ORDER BY. */
  private static final Set<String> RANKING = Set.of("RANK", "DENSE_RANK", "PERCENT_RANK", "CUME_DIST", "NTILE");

  private WindowArguments() {}

  /**
   * Checks a parsed statement.
   *
   * @throws PlanningException VALIDATION_ERROR for a count out of range, UNSUPPORTED for IGNORE
   *     NULLS and EXCLUDE, each with the line and column of the offending text
   */
  static void check(SqlNode node) {
    node.accept(new WindowArguments());
  }

  @Override
  public Void visit(SqlCall call) {
    if (call.getKind() == SqlKind.OVER) {
      checkOver(call);
    }
    return super.visit(call);
  }

  private static void checkOver(SqlCall over) {
    if (over.operand(0) instanceof SqlCall function) {
      if (function.getKind() == SqlKind.IGNORE_NULLS) {
        throw unsupported("IGNORE NULLS in a window function", function.getParserPosition());
      }
      String name = function.getOperator().getName().toUpperCase(Locale.ROOT);
      if (RANKING.contains(name) && over.operandCount() > 1 && over.operand(1) instanceof SqlWindow window
          && (window.getOrderList() == null || window.getOrderList().isEmpty())) {
        window.setOrderList(new SqlNodeList(
            List.of(SqlLiteral.createExactNumeric("0", window.getParserPosition())), window.getParserPosition()));
      }
      switch (name) {
        case "NTILE" -> atLeast(function, 0, 1);
        case "LAG", "LEAD" -> atLeast(function, 1, 0);
        case "NTH_VALUE" -> atLeast(function, 1, 1);
        default -> { }
      }
    }
    if (over.operandCount() > 1 && over.operand(1) instanceof SqlWindow window && window.getExclude() != null
        && !SqlWindow.isExcludeNoOthers(window.getExclude())) {
      throw unsupported("EXCLUDE in a window frame", window.getExclude().getParserPosition());
    }
  }

  /**
   * Refuses operand {@code index} when it is a number literal (possibly negated) below {@code min},
   * in the words the window operator uses for a count read on each row.
   */
  private static void atLeast(SqlCall function, int index, long min) {
    if (function.operandCount() <= index) {
      return;
    }
    SqlNode operand = function.operand(index);
    BigDecimal value = literalValue(operand);
    // NTILE's operand type check refuses a non-integer in Trino's words; LAG, LEAD and NTH_VALUE
    // would otherwise take a DECIMAL literal's digits.
    if (value != null && value.stripTrailingZeros().scale() > 0 && !function.getOperator().getName().equalsIgnoreCase("NTILE")) {
      SqlParserPos pos = operand.getParserPosition();
      throw new PlanningException(PlanningException.Code.VALIDATION_ERROR, "The count of "
          + function.getOperator().getName().toUpperCase(Locale.ROOT) + " must be an integer, not "
          + value.toPlainString(), pos.getLineNum(), pos.getColumnNum());
    }
    if (value != null && value.compareTo(BigDecimal.valueOf(min)) < 0) {
      SqlParserPos pos = operand.getParserPosition();
      throw new PlanningException(PlanningException.Code.VALIDATION_ERROR,
          countTooSmall(function.getOperator().getName(), min),
          pos.getLineNum(), pos.getColumnNum());
    }
  }

  /**
   * Trino's message for a window count below its minimum: "Buckets must be greater than 0" for
   * NTILE, "Offset must be at least N" for LAG, LEAD (0) and NTH_VALUE (1).
   */
  public static String countTooSmall(String function, long min) {
    return function.equalsIgnoreCase("NTILE") ? "Buckets must be greater than 0" : "Offset must be at least " + min;
  }

  private static BigDecimal literalValue(SqlNode node) {
    if (node instanceof SqlNumericLiteral literal) {
      return literal.getValueAs(BigDecimal.class);
    }
    if (node.getKind() == SqlKind.MINUS_PREFIX && ((SqlCall) node).operand(0) instanceof SqlNumericLiteral literal) {
      return literal.getValueAs(BigDecimal.class).negate();
    }
    return null;
  }

  private static PlanningException unsupported(String what, SqlParserPos pos) {
    return new PlanningException(PlanningException.Code.UNSUPPORTED,
        "Unsupported SQL: " + what + " is not supported by Squall", pos.getLineNum(), pos.getColumnNum());
  }
}

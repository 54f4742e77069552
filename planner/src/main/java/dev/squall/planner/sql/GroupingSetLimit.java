package dev.squall.planner.sql;

import dev.squall.planner.PlanningException;
import java.math.BigInteger;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * Refuses a GROUP BY that denotes more than {@link #MAX_GROUPING_SETS} grouping sets before
 * Calcite expands it (a CUBE of 30 columns is a billion sets, and each set copies every input row
 * once in the task). The count follows SQL's rules: the items of a GROUP BY multiply, GROUPING
 * SETS adds up its elements, ROLLUP of n elements is n + 1 sets and CUBE of n elements 2^n.
 * Trino refuses the same queries by its {@code max_grouping_sets} session property, whose default
 * is this limit.
 */
final class GroupingSetLimit extends SqlBasicVisitor<Void> {
  /** Most grouping sets one GROUP BY may denote. */
  static final int MAX_GROUPING_SETS = 2048;

  private GroupingSetLimit() {}

  /**
   * Checks every SELECT in a parsed statement.
   *
   * @throws PlanningException UNSUPPORTED at the GROUP BY's first item when it denotes too many sets
   */
  static void check(SqlNode node) {
    node.accept(new GroupingSetLimit());
  }

  @Override
  public Void visit(SqlCall call) {
    if (call instanceof SqlSelect select && select.getGroup() != null && !select.getGroup().isEmpty()) {
      SqlNodeList group = select.getGroup();
      BigInteger sets = product(group);
      if (sets.compareTo(BigInteger.valueOf(MAX_GROUPING_SETS)) > 0) {
        SqlParserPos pos = group.get(0).getParserPosition();
        throw new PlanningException(PlanningException.Code.UNSUPPORTED, "Unsupported SQL: this GROUP BY denotes "
            + sets + " grouping sets; at most " + MAX_GROUPING_SETS + " are supported", pos.getLineNum(),
            pos.getColumnNum());
      }
    }
    return super.visit(call);
  }

  /** Sets denoted by items listed side by side (GROUP BY a, ROLLUP(b, c)): the product. */
  private static BigInteger product(Iterable<SqlNode> items) {
    BigInteger sets = BigInteger.ONE;
    for (SqlNode item : items) {
      sets = sets.multiply(count(item));
    }
    return sets;
  }

  private static BigInteger count(SqlNode item) {
    if (!(item instanceof SqlCall call)) {
      return BigInteger.ONE;
    }
    return switch (call.getKind()) {
      case GROUPING_SETS -> {
        BigInteger sum = BigInteger.ZERO;
        for (SqlNode element : call.getOperandList()) {
          sum = sum.add(count(element));
        }
        yield sum;
      }
      case ROLLUP -> BigInteger.valueOf(call.operandCount() + 1L);
      case CUBE -> BigInteger.TWO.pow(call.operandCount());
      default -> BigInteger.ONE; // a column, an expression, or a parenthesised set of them
    };
  }
}

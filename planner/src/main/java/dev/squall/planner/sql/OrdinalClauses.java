package dev.squall.planner.sql;

import dev.squall.planner.PlanningException;
import java.util.Optional;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * Words Calcite's "Ordinal out of range" as Trino does: {@code ORDER BY position 5 is not in select
 * list}, or {@code GROUP BY position 5 ...}, by finding the position number (a literal in an ORDER
 * BY or GROUP BY list) that Calcite's error points at.
 */
final class OrdinalClauses extends SqlBasicVisitor<Void> {
  /** Calcite's message for an ORDER BY or GROUP BY position past the select list. */
  static final String CALCITE_MESSAGE = "Ordinal out of range";

  private final int line;
  private final int column;
  private String found;

  private OrdinalClauses(int line, int column) {
    this.line = line;
    this.column = column;
  }

  /**
   * Trino's message for the position number at {@code line:column} of {@code statement}.
   *
   * @return empty when no ORDER BY or GROUP BY position number is there
   */
  static Optional<String> message(SqlNode statement, int line, int column) {
    OrdinalClauses finder = new OrdinalClauses(line, column);
    statement.accept(finder);
    return Optional.ofNullable(finder.found);
  }

  /**
   * Refuses an ORDER BY position past a validated SELECT's select list that Calcite's validator
   * lets through (it checks {@code ORDER BY 5} but not {@code ORDER BY 5 DESC NULLS FIRST}).
   *
   * @throws PlanningException VALIDATION_ERROR at the position number
   */
  static void check(SqlNode validated) {
    validated.accept(new SqlBasicVisitor<Void>() {
      @Override
      public Void visit(SqlCall call) {
        if (call instanceof SqlSelect select && select.getOrderList() != null) {
          for (SqlNode item : select.getOrderList()) {
            while (item instanceof SqlCall c && (c.getKind() == SqlKind.DESCENDING
                || c.getKind() == SqlKind.NULLS_FIRST || c.getKind() == SqlKind.NULLS_LAST)) {
              item = c.operand(0);
            }
            if (item instanceof SqlNumericLiteral number && number.isInteger()) {
              long position = number.longValue(false);
              if (position < 1 || position > select.getSelectList().size()) {
                SqlParserPos pos = number.getParserPosition();
                throw new PlanningException(PlanningException.Code.VALIDATION_ERROR,
                    "ORDER BY position " + number.toValue() + " is not in select list", pos.getLineNum(),
                    pos.getColumnNum());
              }
            }
          }
        }
        return super.visit(call);
      }
    });
  }

  @Override
  public Void visit(SqlCall call) {
    if (call instanceof SqlSelect select) {
      look(select.getGroup(), "GROUP BY");
      look(select.getOrderList(), "ORDER BY");
    } else if (call instanceof SqlOrderBy orderBy) {
      look(orderBy.orderList, "ORDER BY");
    }
    return super.visit(call);
  }

  private void look(SqlNodeList items, String clause) {
    if (items == null || found != null) {
      return;
    }
    items.accept(new SqlBasicVisitor<Void>() {
      @Override
      public Void visit(org.apache.calcite.sql.SqlLiteral literal) {
        SqlParserPos pos = literal.getParserPosition();
        if (found == null && literal instanceof SqlNumericLiteral number && pos.getLineNum() == line
            && pos.getColumnNum() == column) {
          found = clause + " position " + number.toValue() + " is not in select list";
        }
        return null;
      }
    });
  }
}

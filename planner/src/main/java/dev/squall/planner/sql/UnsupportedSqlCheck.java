package dev.squall.planner.sql;

import dev.squall.planner.PlanningException;
import java.util.Locale;
import java.util.Set;
import org.apache.calcite.avatica.util.TimeUnit;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlIntervalQualifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlWith;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * Refuses, before validation and before any task runs, SQL that Squall's engine does not execute:
 * window functions other than the window operator's (and DISTINCT in them), GROUP_ID and
 * GROUPING_ID, MATCH_RECOGNIZE, UNNEST/LATERAL, TABLESAMPLE, PIVOT, DML other than a top-level
 * INSERT (planned by {@code write.WritePlanner}, which checks only its query), recursive WITH,
 * WITHIN DISTINCT, and every function outside the engine's list.
 * The error names the construct and its line and column.
 */
public final class UnsupportedSqlCheck extends SqlBasicVisitor<Void> {
  /** Functions (by SQL name) the engine evaluates; operators such as + or LIKE are checked by kind. */
  private static final Set<String> FUNCTIONS = functions();

  private static final Set<TimeUnit> EXTRACT_UNITS = Set.of(TimeUnit.YEAR, TimeUnit.MONTH, TimeUnit.DAY,
      TimeUnit.QUARTER, TimeUnit.DOW, TimeUnit.DOY, TimeUnit.WEEK, TimeUnit.HOUR, TimeUnit.MINUTE, TimeUnit.SECOND);

  private static Set<String> functions() {
    Set<String> names = new java.util.HashSet<>(Set.of(
        "SUM", "COUNT", "MIN", "MAX", "AVG", "ANY_VALUE",
        "ROW_NUMBER", "RANK", "DENSE_RANK", "PERCENT_RANK", "CUME_DIST", "NTILE", "LAG", "LEAD",
        "FIRST_VALUE", "LAST_VALUE", "NTH_VALUE",
        "SUBSTRING", "UPPER", "LOWER", "TRIM", "CHAR_LENGTH", "CHARACTER_LENGTH", "POSITION",
        "ABS", "MOD", "ROUND", "TRUNCATE", "CEIL", "CEILING", "FLOOR", "POWER", "SQRT", "CBRT", "EXP", "LN",
        "LOG10", "SIGN", "PI",
        "EXTRACT", "COALESCE", "NULLIF", "CAST", "TRY_CAST", "CURRENT_DATE", "CURRENT_TIMESTAMP",
        "GROUPING", "LISTAGG", "PERCENTILE_CONT", "PERCENTILE_DISC"));
    names.addAll(TrinoFunctions.INSTANCE.names());
    return Set.copyOf(names);
  }

  /** Functions the window operator computes over a window (OVER). */
  private static final Set<String> WINDOW_FUNCTIONS = Set.of("ROW_NUMBER", "RANK", "DENSE_RANK", "PERCENT_RANK",
      "CUME_DIST", "NTILE", "LAG", "LEAD", "FIRST_VALUE", "LAST_VALUE", "NTH_VALUE", "SUM", "AVG", "COUNT", "MIN", "MAX");

  private UnsupportedSqlCheck() {}

  /**
   * Checks a parsed statement.
   *
   * @throws PlanningException with code UNSUPPORTED at the first unsupported construct
   */
  public static void check(SqlNode node) {
    node.accept(new UnsupportedSqlCheck());
  }

  @Override
  public Void visit(SqlCall call) {
    SqlKind kind = call.getKind();
    String refused = switch (kind) {
      case GROUP_ID, GROUPING_ID -> kind + " (use GROUPING)";
      case MATCH_RECOGNIZE -> "MATCH_RECOGNIZE";
      case UNNEST -> "UNNEST";
      case LATERAL -> "LATERAL";
      case TABLESAMPLE -> "TABLESAMPLE";
      case PIVOT, UNPIVOT -> "PIVOT/UNPIVOT";
      case INSERT, UPDATE, DELETE, MERGE -> kind + " statement";
      case WITHIN_DISTINCT -> "WITHIN DISTINCT";
      case SIMILAR -> "SIMILAR TO";
      case COLLECTION_TABLE -> "table function";
      case EXPLAIN -> "EXPLAIN inside a statement";
      default -> null;
    };
    if (refused == null && kind == SqlKind.OVER) {
      refused = checkOver(call);
    }
    if (refused == null && call instanceof SqlWith with && with.getOperator().getName().contains("RECURSIVE")) {
      refused = "WITH RECURSIVE";
    }
    if (refused == null && call.getOperator() instanceof SqlFunction function) {
      String name = function.getName().toUpperCase(Locale.ROOT);
      if (!FUNCTIONS.contains(name) && !ValidationMessages.functionExists(name)) {
        // No such function at all: Trino's wording, not "unsupported".
        SqlParserPos pos = call.getParserPosition();
        throw new PlanningException(PlanningException.Code.VALIDATION_ERROR,
            "Function '" + name.toLowerCase(Locale.ROOT) + "' not registered", pos.getLineNum(), pos.getColumnNum());
      } else if (!FUNCTIONS.contains(name)) {
        refused = "function " + name;
      } else if (name.equals("EXTRACT")) {
        refused = checkExtract(call);
      }
    }
    if (refused == null && call.getOperator().getName().equalsIgnoreCase("ILIKE")) {
      refused = "ILIKE";
    }
    if (refused != null) {
      SqlParserPos pos = call.getParserPosition();
      throw new PlanningException(PlanningException.Code.UNSUPPORTED,
          "Unsupported SQL: " + refused + " is not supported by Squall",
          pos.getLineNum(), pos.getColumnNum());
    }
    return super.visit(call);
  }

  private static String checkOver(SqlCall over) {
    if (over.operand(0) instanceof SqlCall function) {
      String name = function.getOperator().getName().toUpperCase(Locale.ROOT);
      if (!WINDOW_FUNCTIONS.contains(name)) {
        return "window function " + name;
      }
      if (function.getFunctionQuantifier() != null
          && function.getFunctionQuantifier().getValue() == org.apache.calcite.sql.SqlSelectKeyword.DISTINCT) {
        return "DISTINCT in window function " + name;
      }
    }
    return null;
  }

  private static String checkExtract(SqlCall call) {
    if (call.operandCount() > 0 && call.operand(0) instanceof SqlIntervalQualifier qualifier) {
      TimeUnit unit = qualifier.timeUnitRange.startUnit;
      if (qualifier.timeUnitRange.endUnit != null || !EXTRACT_UNITS.contains(unit)) {
        return "EXTRACT(" + qualifier.timeUnitRange + ")";
      }
    }
    return null;
  }
}

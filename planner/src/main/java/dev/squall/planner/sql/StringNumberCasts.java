package dev.squall.planner.sql;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.runtime.CalciteContextException;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.sql.validate.SqlValidatorException;

/**
 * Refuses the implicit casts between strings and numbers that Calcite's type coercion would add and
 * Trino does not: into arithmetic ({@code 'a' + 1}, which would fail in the tasks instead) and into
 * function arguments ({@code length(123)}, {@code substr(1, 2)}, {@code 'a' || 1}, {@code abs('1')}).
 * Numeric widening (INTEGER to DECIMAL or DOUBLE), date and interval arithmetic and NULL arguments
 * are left to Calcite. Errors read as Trino's: {@code Cannot apply operator: VARCHAR + INTEGER},
 * {@code Unexpected parameters (INTEGER) for function length. Expected: length(VARCHAR)}, with the
 * call's position.
 */
final class StringNumberCasts {
  private StringNumberCasts() {}

  /**
   * Refuses binary arithmetic ({@code + - * / %}) with a string operand.
   *
   * @throws CalciteContextException at the call
   */
  static void checkArithmetic(SqlCall call, List<RelDataType> operandTypes) {
    if (!call.getKind().belongsTo(SqlKind.BINARY_ARITHMETIC) || operandTypes.size() != 2
        || operandTypes.stream().noneMatch(SqlTypeUtil::isCharacter)) {
      return;
    }
    throw error(call, "Cannot apply operator: " + SqlTypeNames.of(operandTypes.get(0)) + " "
        + call.getOperator().getName() + " " + SqlTypeNames.of(operandTypes.get(1)));
  }

  /**
   * Refuses a call whose string argument stands where a number is expected, or whose number
   * argument stands where a string is expected.
   *
   * @param expected the families the operator takes, one per operand (may be shorter)
   * @throws CalciteContextException at the call
   */
  static void checkArguments(SqlCall call, List<RelDataType> operandTypes, List<SqlTypeFamily> expected) {
    for (int i = 0; i < Math.min(operandTypes.size(), expected.size()); i++) {
      if (crosses(operandTypes.get(i), expected.get(i))) {
        throw unexpectedParameters(call, operandTypes, expected);
      }
    }
  }

  private static boolean crosses(RelDataType type, SqlTypeFamily expected) {
    boolean wantsString = expected == SqlTypeFamily.CHARACTER || expected == SqlTypeFamily.STRING;
    boolean wantsNumber = expected == SqlTypeFamily.NUMERIC || expected == SqlTypeFamily.INTEGER
        || expected == SqlTypeFamily.EXACT_NUMERIC || expected == SqlTypeFamily.APPROXIMATE_NUMERIC
        || expected == SqlTypeFamily.DECIMAL;
    return (wantsString && SqlTypeUtil.isNumeric(type)) || (wantsNumber && SqlTypeUtil.isCharacter(type));
  }

  private static CalciteContextException unexpectedParameters(SqlCall call, List<RelDataType> operandTypes,
      List<SqlTypeFamily> expected) {
    String actual = operandTypes.stream().map(SqlTypeNames::of).collect(Collectors.joining(", "));
    SqlSyntax syntax = call.getOperator().getSyntax();
    if (syntax == SqlSyntax.PREFIX) {
      return error(call, "Cannot apply operator: " + call.getOperator().getName() + actual);
    }
    // Trino's || is concat.
    String name = call.getOperator().getName().equals("||") ? "concat"
        : call.getOperator().getName().toLowerCase(Locale.ROOT);
    if (syntax == SqlSyntax.BINARY && !name.equals("concat")) {
      return error(call, "Cannot apply operator: " + actual.replace(", ", " " + call.getOperator().getName() + " "));
    }
    String wanted = expected.subList(0, Math.min(expected.size(), operandTypes.size())).stream()
        .map(StringNumberCasts::familyName).collect(Collectors.joining(", "));
    return error(call, "Unexpected parameters (" + actual + ") for function " + name + ". Expected: " + name + "("
        + wanted + ")");
  }

  /** A family as a type name: VARCHAR for the string families, the family's name otherwise. */
  private static String familyName(SqlTypeFamily family) {
    return switch (family) {
      case CHARACTER, STRING -> "VARCHAR";
      case EXACT_NUMERIC -> "NUMERIC";
      case DATETIME_INTERVAL -> "INTERVAL";
      default -> family.name();
    };
  }

  private static CalciteContextException error(SqlCall call, String message) {
    SqlParserPos pos = call.getParserPosition();
    if (pos.getLineNum() <= 0 && call.operandCount() > 0 && call.operand(0) != null) {
      pos = call.operand(0).getParserPosition();
    }
    return new CalciteContextException(message, new SqlValidatorException(message, null),
        pos.getLineNum(), pos.getColumnNum(), pos.getEndLineNum(), pos.getEndColumnNum());
  }
}

package dev.squall.planner.translate;

import dev.squall.planner.PlanningException;
import dev.squall.proto.v1.DataType;
import dev.squall.proto.v1.Expr;
import dev.squall.proto.v1.Function;
import dev.squall.proto.v1.Literal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Calls of named SQL functions (Calcite's and {@code sql.TrinoFunctions}) to plan-proto calls.
 * Some become other functions with the same meaning: CONCAT of n strings a chain of ||, IF a
 * CASE, LTRIM/RTRIM a TRIM, POSITION(a IN b) STRPOS(b, a), LENGTH CHAR_LENGTH, PI(), NAN(), INFINITY() literals,
 * two-argument REPLACE and REGEXP_REPLACE a replacement by ''. The unit of DATE_TRUNC, DATE_ADD and
 * DATE_DIFF must be a literal and is checked here, so that a bad unit is refused before any task runs.
 */
final class FunctionTranslator {
  private static final Set<String> DATE_UNITS = Set.of("day", "week", "month", "quarter", "year");
  private static final Set<String> TIME_UNITS = Set.of("millisecond", "second", "minute", "hour");

  /** Names translated by a rewrite rather than one-to-one. */
  private static final Set<String> REWRITTEN = Set.of("PI", "NAN", "INFINITY", "LENGTH", "POSITION", "CONCAT", "LTRIM", "RTRIM",
      "REPLACE", "REGEXP_REPLACE", "IF", "DATE_TRUNC", "DATE_ADD", "DATE_DIFF", "CEIL", "CEILING", "FLOOR");

  private FunctionTranslator() {}

  /** The plan-proto form of {@code call}, or null when {@code name} is not a function handled here. */
  static Expr translate(RexCall call, String name) {
    Function simple = simple(name);
    if (simple == null && !REWRITTEN.contains(name)) {
      return null;
    }
    List<Expr> args = args(call.getOperands());
    if (simple != null) {
      return RexTranslator.call(simple, call.getType(), args);
    }
    DataType type = TypeTranslator.toProto(call.getType());
    switch (name) {
      case "PI":
        return Expr.newBuilder().setType(type).setLiteral(Literal.newBuilder().setDoubleValue(Math.PI)).build();
      case "NAN":
        return Expr.newBuilder().setType(type).setLiteral(Literal.newBuilder().setDoubleValue(Double.NaN)).build();
      case "INFINITY":
        return Expr.newBuilder().setType(type).setLiteral(Literal.newBuilder().setDoubleValue(Double.POSITIVE_INFINITY)).build();
      case "LENGTH":
        return RexTranslator.call(Function.CHAR_LENGTH, type, args);
      case "POSITION":
        if (args.size() != 2) {
          throw RexTranslator.unsupported("POSITION with FROM");
        }
        return RexTranslator.call(Function.STRPOS, type, List.of(args.get(1), args.get(0)));
      case "CONCAT": {
        Expr result = args.get(0);
        for (int i = 1; i < args.size(); i++) {
          result = RexTranslator.call(Function.CONCAT, type, List.of(result, args.get(i)));
        }
        return result.getType().getKind() == type.getKind() ? result
            : RexTranslator.call(Function.CAST, type, List.of(result));
      }
      case "LTRIM", "RTRIM":
        return RexTranslator.call(Function.TRIM, type,
            List.of(string(name.equals("LTRIM") ? "LEADING" : "TRAILING"), string(" "), args.get(0)));
      case "REPLACE", "REGEXP_REPLACE": {
        List<Expr> all = new ArrayList<>(args);
        if (all.size() == 2) {
          all.add(string(""));
        }
        return RexTranslator.call(name.equals("REPLACE") ? Function.REPLACE : Function.REGEXP_REPLACE, type, all);
      }
      case "IF":
        return RexTranslator.call(Function.CASE, type, args);
      case "DATE_TRUNC":
        return RexTranslator.call(Function.DATE_TRUNC, type, List.of(unit(call, 0, 1), args.get(1)));
      case "DATE_ADD":
        return RexTranslator.call(Function.DATE_ADD, type, List.of(unit(call, 0, 2), args.get(1), args.get(2)));
      case "DATE_DIFF":
        return RexTranslator.call(Function.DATE_DIFF, type, List.of(unit(call, 0, 1), args.get(1), args.get(2)));
      case "CEIL", "CEILING", "FLOOR":
        if (args.size() != 1) {
          throw RexTranslator.unsupported(name + " to a time unit");
        }
        return RexTranslator.call(name.equals("FLOOR") ? Function.FLOOR : Function.CEIL, type, args);
      default:
        return null;
    }
  }

  private static Function simple(String name) {
    return switch (name) {
      case "ROUND" -> Function.ROUND;
      case "TRUNCATE" -> Function.TRUNCATE;
      case "SIGN" -> Function.SIGN;
      case "POWER" -> Function.POWER;
      case "SQRT" -> Function.SQRT;
      case "CBRT" -> Function.CBRT;
      case "EXP" -> Function.EXP;
      case "LN" -> Function.LN;
      case "LOG10" -> Function.LOG10;
      case "LOG2" -> Function.LOG2;
      case "STRPOS" -> Function.STRPOS;
      case "REVERSE" -> Function.REVERSE;
      case "CHR" -> Function.CHR;
      case "CODEPOINT" -> Function.CODEPOINT;
      case "LPAD" -> Function.LPAD;
      case "RPAD" -> Function.RPAD;
      case "SPLIT_PART" -> Function.SPLIT_PART;
      case "STARTS_WITH" -> Function.STARTS_WITH;
      case "REGEXP_LIKE" -> Function.REGEXP_LIKE;
      case "REGEXP_EXTRACT" -> Function.REGEXP_EXTRACT;
      case "GREATEST" -> Function.GREATEST;
      case "LEAST" -> Function.LEAST;
      case "TRY" -> Function.TRY;
      case "YEAR" -> Function.EXTRACT_YEAR;
      case "QUARTER" -> Function.EXTRACT_QUARTER;
      case "MONTH" -> Function.EXTRACT_MONTH;
      case "WEEK", "WEEK_OF_YEAR" -> Function.EXTRACT_WEEK;
      case "DAY", "DAY_OF_MONTH" -> Function.EXTRACT_DAY;
      case "DAY_OF_WEEK", "DOW" -> Function.EXTRACT_ISO_DOW;
      case "DAY_OF_YEAR", "DOY" -> Function.EXTRACT_DOY;
      case "HOUR" -> Function.EXTRACT_HOUR;
      case "MINUTE" -> Function.EXTRACT_MINUTE;
      case "SECOND" -> Function.EXTRACT_SECOND;
      case "FROM_UNIXTIME" -> Function.FROM_UNIXTIME;
      case "TO_UNIXTIME" -> Function.TO_UNIXTIME;
      case "DATE_FORMAT" -> Function.DATE_FORMAT;
      case "DATE_PARSE" -> Function.DATE_PARSE;
      default -> null;
    };
  }

  /**
   * Operand {@code unitIndex}, a unit literal valid for the date/time operand {@code valueIndex},
   * as a lower-case VARCHAR literal.
   */
  private static Expr unit(RexCall call, int unitIndex, int valueIndex) {
    String function = call.getOperator().getName().toUpperCase(Locale.ROOT);
    if (!(call.getOperands().get(unitIndex) instanceof RexLiteral literal) || literal.getValueAs(String.class) == null) {
      throw PlanningException.unpositioned(PlanningException.Code.VALIDATION_ERROR,
          function + " takes its unit as a string literal such as 'day'");
    }
    String unit = literal.getValueAs(String.class).trim().toLowerCase(Locale.ROOT);
    boolean isDate = call.getOperands().get(valueIndex).getType().getSqlTypeName() == SqlTypeName.DATE;
    if (!DATE_UNITS.contains(unit) && (isDate || !TIME_UNITS.contains(unit))) {
      throw PlanningException.unpositioned(PlanningException.Code.VALIDATION_ERROR,
          function + ": '" + unit + "' is not a valid " + (isDate ? "DATE" : "TIMESTAMP") + " unit (one of "
          + (isDate ? "" : "millisecond, second, minute, hour, ") + "day, week, month, quarter, year)");
    }
    return string(unit);
  }

  private static Expr string(String value) {
    return Expr.newBuilder()
        .setType(DataType.newBuilder().setKind(DataType.Kind.VARCHAR))
        .setLiteral(Literal.newBuilder().setStringValue(value))
        .build();
  }

  private static List<Expr> args(List<RexNode> operands) {
    List<Expr> args = new ArrayList<>(operands.size());
    for (RexNode operand : operands) {
      args.add(RexTranslator.toProto(operand));
    }
    return args;
  }
}

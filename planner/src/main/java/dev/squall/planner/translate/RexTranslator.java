package dev.squall.planner.translate;

import dev.squall.planner.PlanningException;
import dev.squall.planner.sql.FloatSelfComparisons;
import dev.squall.planner.sql.WideJunctions;
import dev.squall.proto.v1.Call;
import dev.squall.proto.v1.DataType;
import dev.squall.proto.v1.Expr;
import dev.squall.proto.v1.Function;
import dev.squall.proto.v1.Literal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.avatica.util.TimeUnitRange;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlLikeOperator;
import org.apache.calcite.sql.fun.SqlTrimFunction;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Calcite row expressions (over an operator's input row) to plan-proto {@link Expr}s. Every Expr
 * carries the type Calcite derived for it. SEARCH (Sarg) calls are expanded by {@link SargExpander}
 * into IN lists, BETWEEN and comparisons; NOT LIKE becomes NOT(LIKE); date ± interval becomes
 * DATE_PLUS_INTERVAL / DATE_MINUS_INTERVAL with the date first.
 */
public final class RexTranslator {
  private RexTranslator() {}

  /**
   * @throws PlanningException UNSUPPORTED naming an operator or type the engine does not evaluate
   */
  public static Expr toProto(RexNode node) {
    if (node instanceof RexInputRef ref) {
      return Expr.newBuilder().setType(TypeTranslator.toProto(ref.getType())).setColumn(ref.getIndex()).build();
    }
    if (node instanceof RexLiteral literal) {
      return literal(literal);
    }
    if (node instanceof RexCall call) {
      return call(call);
    }
    throw unsupported("expression " + node + " (" + node.getKind() + ")");
  }

  static Expr literal(RexLiteral literal) {
    return Expr.newBuilder()
        .setType(TypeTranslator.toProto(literal.getType()))
        .setLiteral(LiteralTranslator.toProto(literal))
        .build();
  }

  static Expr call(Function function, RelDataType type, List<Expr> args) {
    return call(function, TypeTranslator.toProto(type), args);
  }

  static Expr call(Function function, DataType type, List<Expr> args) {
    return Expr.newBuilder().setType(type)
        .setCall(Call.newBuilder().setFunction(function).addAllArgs(args)).build();
  }

  private static Expr call(RexCall call) {
    SqlKind kind = call.getKind();
    RelDataType type = call.getType();
    if (WideJunctions.isWide(call.getOperator())) {
      return call(WideJunctions.isAnd(call.getOperator()) ? Function.AND : Function.OR, type, args(call.getOperands()));
    }
    if ((kind == SqlKind.PLUS || kind == SqlKind.TIMES) && !isDatetime(type) && !isInterval(type)) {
      return call(kind == SqlKind.PLUS ? Function.ADD : Function.MULTIPLY, type, args(leftChain(call)));
    }
    if (kind == SqlKind.CASE) {
      return call(Function.CASE, type, args(caseBranches(call)));
    }
    if (kind == SqlKind.SEARCH) {
      return SargExpander.expand(call);
    }
    if (kind == SqlKind.PLUS_PREFIX || FloatSelfComparisons.isSame(call.getOperator())) {
      return toProto(call.getOperands().get(0));
    }
    if (kind == SqlKind.EXTRACT) {
      return extract(call);
    }
    if (kind == SqlKind.TRIM) {
      return trim(call);
    }
    if (kind == SqlKind.LIKE && call.getOperator() instanceof SqlLikeOperator like) {
      if (!like.isCaseSensitive()) {
        throw unsupported("ILIKE");
      }
      Expr positive = call(Function.LIKE, type, args(call.getOperands()));
      return like.isNegated() ? call(Function.NOT, type, List.of(positive)) : positive;
    }
    if (kind == SqlKind.SAFE_CAST) {
      return call(Function.TRY_CAST, type, args(call.getOperands()));
    }
    Expr named = FunctionTranslator.translate(call, call.getOperator().getName().toUpperCase(Locale.ROOT));
    if (named != null) {
      return named;
    }
    if ((kind == SqlKind.PLUS || kind == SqlKind.MINUS) && isDatetime(type)) {
      return datePlusMinus(call, kind == SqlKind.MINUS);
    }
    if (isInterval(type) && kind != SqlKind.CAST) {
      // Interval arithmetic (date - date, interval * n) has no engine function.
      throw unsupported("interval arithmetic " + call.getOperator().getName());
    }
    Function function = switch (kind) {
      case PLUS -> Function.ADD;
      case MINUS -> Function.SUBTRACT;
      case TIMES -> Function.MULTIPLY;
      case DIVIDE -> Function.DIVIDE;
      case MOD -> Function.MOD;
      case MINUS_PREFIX -> Function.NEGATE;
      case EQUALS -> Function.EQUAL;
      case NOT_EQUALS -> Function.NOT_EQUAL;
      case LESS_THAN -> Function.LESS_THAN;
      case LESS_THAN_OR_EQUAL -> Function.LESS_THAN_OR_EQUAL;
      case GREATER_THAN -> Function.GREATER_THAN;
      case GREATER_THAN_OR_EQUAL -> Function.GREATER_THAN_OR_EQUAL;
      case IS_DISTINCT_FROM -> Function.IS_DISTINCT_FROM;
      case IS_NOT_DISTINCT_FROM -> Function.IS_NOT_DISTINCT_FROM;
      case AND -> Function.AND;
      case OR -> Function.OR;
      case NOT -> Function.NOT;
      case IS_NULL -> Function.IS_NULL;
      case IS_NOT_NULL -> Function.IS_NOT_NULL;
      case IS_TRUE -> Function.IS_TRUE;
      case IS_FALSE -> Function.IS_FALSE;
      case IS_NOT_TRUE -> Function.IS_NOT_TRUE;
      case IS_NOT_FALSE -> Function.IS_NOT_FALSE;
      case BETWEEN -> Function.BETWEEN;
      case IN -> Function.IN;
      case CASE -> Function.CASE;
      case COALESCE -> Function.COALESCE;
      case NULLIF -> Function.NULLIF;
      case CAST -> Function.CAST;
      default -> byName(call);
    };
    return call(function, type, args(call.getOperands()));
  }

  /**
   * The operands of a left-nested chain of one associative operator, {@code ((a + b) + c) + d} as
   * {@code a, b, c, d}, descending while the left operand is the same operator with the same type
   * (nullability aside). The engine applies an n-ary ADD or MULTIPLY left to right, each step in
   * the call's type, so the chain computes exactly what the nested calls do (including where an
   * overflow is raised), with one message level instead of one per term.
   */
  private static List<RexNode> leftChain(RexCall call) {
    List<RexNode> reversed = new ArrayList<>();
    RexCall current = call;
    while (true) {
      reversed.add(current.getOperands().get(1));
      RexNode left = current.getOperands().get(0);
      if (left instanceof RexCall inner && inner.getKind() == call.getKind() && inner.getOperands().size() == 2
          && sameType(inner.getType(), call.getType())) {
        current = inner;
      } else {
        reversed.add(left);
        break;
      }
    }
    Collections.reverse(reversed);
    return reversed;
  }

  /**
   * A CASE's operands with a CASE in its ELSE merged in, repeatedly: {@code CASE WHEN a THEN x
   * ELSE CASE WHEN b THEN y ELSE z END END} as {@code CASE WHEN a THEN x WHEN b THEN y ELSE z END}
   * when both have the same type (so no conversion happens in between), which is the same
   * function with one level instead of one per nested CASE.
   */
  private static List<RexNode> caseBranches(RexCall call) {
    List<RexNode> operands = new ArrayList<>();
    RexCall current = call;
    while (true) {
      List<RexNode> ops = current.getOperands();
      boolean hasElse = ops.size() % 2 == 1;
      operands.addAll(hasElse ? ops.subList(0, ops.size() - 1) : ops);
      RexNode otherwise = hasElse ? ops.get(ops.size() - 1) : null;
      if (otherwise instanceof RexCall inner && inner.getKind() == SqlKind.CASE
          && sameType(inner.getType(), call.getType())) {
        current = inner;
      } else {
        if (otherwise != null) {
          operands.add(otherwise);
        }
        return operands;
      }
    }
  }

  private static boolean sameType(RelDataType a, RelDataType b) {
    return a.getSqlTypeName() == b.getSqlTypeName() && a.getPrecision() == b.getPrecision()
        && a.getScale() == b.getScale();
  }

  private static Function byName(RexCall call) {
    String name = call.getOperator().getName().toUpperCase(Locale.ROOT);
    return switch (name) {
      case "SUBSTRING" -> Function.SUBSTRING;
      case "UPPER" -> Function.UPPER;
      case "LOWER" -> Function.LOWER;
      case "CHAR_LENGTH", "CHARACTER_LENGTH" -> Function.CHAR_LENGTH;
      case "||" -> Function.CONCAT;
      case "ABS" -> Function.ABS;
      case "MOD" -> Function.MOD;
      default -> throw unsupported("operator " + call.getOperator().getName());
    };
  }

  private static List<Expr> args(List<RexNode> operands) {
    List<Expr> args = new ArrayList<>(operands.size());
    for (RexNode operand : operands) {
      args.add(toProto(operand));
    }
    return args;
  }

  private static Expr extract(RexCall call) {
    TimeUnitRange unit = ((RexLiteral) call.getOperands().get(0)).getValueAs(TimeUnitRange.class);
    Function function = switch (unit) {
      case YEAR -> Function.EXTRACT_YEAR;
      case MONTH -> Function.EXTRACT_MONTH;
      case DAY -> Function.EXTRACT_DAY;
      case QUARTER -> Function.EXTRACT_QUARTER;
      case DOW -> Function.EXTRACT_DOW;
      case DOY -> Function.EXTRACT_DOY;
      case WEEK -> Function.EXTRACT_WEEK;
      case HOUR -> Function.EXTRACT_HOUR;
      case MINUTE -> Function.EXTRACT_MINUTE;
      case SECOND -> Function.EXTRACT_SECOND;
      default -> throw unsupported("EXTRACT(" + unit + ")");
    };
    return call(function, call.getType(), List.of(toProto(call.getOperands().get(1))));
  }

  private static Expr trim(RexCall call) {
    SqlTrimFunction.Flag flag = ((RexLiteral) call.getOperands().get(0)).getValueAs(SqlTrimFunction.Flag.class);
    Expr mode = Expr.newBuilder()
        .setType(DataType.newBuilder().setKind(DataType.Kind.VARCHAR))
        .setLiteral(Literal.newBuilder().setStringValue(flag.name()))
        .build();
    List<Expr> args = new ArrayList<>();
    args.add(mode);
    args.add(toProto(call.getOperands().get(1)));
    args.add(toProto(call.getOperands().get(2)));
    return call(Function.TRIM, call.getType(), args);
  }

  private static Expr datePlusMinus(RexCall call, boolean minus) {
    RexNode first = call.getOperands().get(0);
    RexNode second = call.getOperands().get(1);
    if (!minus && isInterval(first.getType())) {
      RexNode swap = first;
      first = second;
      second = swap;
    }
    if (!isInterval(second.getType())) {
      throw unsupported("arithmetic " + call + " on dates and timestamps");
    }
    return call(minus ? Function.DATE_MINUS_INTERVAL : Function.DATE_PLUS_INTERVAL, call.getType(),
        List.of(toProto(first), toProto(second)));
  }

  private static boolean isDatetime(RelDataType type) {
    return type.getSqlTypeName() == SqlTypeName.DATE || type.getSqlTypeName() == SqlTypeName.TIMESTAMP;
  }

  private static boolean isInterval(RelDataType type) {
    SqlTypeFamily family = type.getSqlTypeName().getFamily();
    return family == SqlTypeFamily.INTERVAL_DAY_TIME || family == SqlTypeFamily.INTERVAL_YEAR_MONTH;
  }

  static PlanningException unsupported(String what) {
    return PlanningException.unpositioned(PlanningException.Code.UNSUPPORTED,
        "Unsupported SQL: " + what + " is not supported by Squall");
  }
}

package dev.squall.planner.translate;

import dev.squall.planner.PlanningException;
import dev.squall.planner.sql.WindowArguments;
import dev.squall.proto.v1.Expr;
import dev.squall.proto.v1.FrameBound;
import dev.squall.proto.v1.WindowCall;
import dev.squall.proto.v1.WindowFrame;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import org.apache.calcite.rel.core.Window;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexWindowBound;
import org.apache.calcite.rex.RexWindowExclusion;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;

/**
 * One group of a Calcite {@link Window} (the calls that share a PARTITION BY, ORDER BY and frame)
 * as a plan-proto {@link dev.squall.proto.v1.Window}. A group's arguments refer to the window's
 * input columns or, past them, to its constants; constants (LAG/LEAD offsets and defaults, NTILE and
 * NTH_VALUE counts, frame offsets) become literals, so groups stack one above the other with the
 * input columns at the same positions.
 */
public final class WindowTranslator {
  private final Window window;
  private final int inputWidth;

  public WindowTranslator(Window window) {
    this.window = window;
    this.inputWidth = window.getInput().getRowType().getFieldCount();
  }

  /** The PARTITION BY columns of a group, input column indexes in ascending order. */
  public static List<Integer> partitionKeys(Window.Group group) {
    return group.keys.asList();
  }

  /**
   * The window operator of one group (without its input).
   *
   * @param firstOutput the output column of the group's first call (the input width plus the
   *     calls of the groups below), for the calls' names
   * @throws PlanningException UNSUPPORTED for functions, frames or arguments the engine does not run
   */
  public dev.squall.proto.v1.Window.Builder translate(Window.Group group, int firstOutput) {
    if (group.exclude != RexWindowExclusion.EXCLUDE_NO_OTHER) {
      throw unsupported("window frame " + group.exclude);
    }
    dev.squall.proto.v1.Window.Builder w = dev.squall.proto.v1.Window.newBuilder()
        .addAllPartitionKeys(partitionKeys(group))
        .addAllOrderKeys(SortKeys.of(group.orderKeys.getFieldCollations()));
    WindowFrame frame = frame(group);
    List<String> names = window.getRowType().getFieldNames();
    for (int i = 0; i < group.aggCalls.size(); i++) {
      w.addCalls(call(group.aggCalls.get(i), frame, names.get(firstOutput + i)));
    }
    return w;
  }

  private WindowCall call(Window.RexWinAggCall call, WindowFrame frame, String name) {
    String sqlName = call.getOperator().getName();
    if (call.distinct) {
      throw unsupported("DISTINCT in window function " + sqlName);
    }
    if (call.ignoreNulls) {
      throw unsupported("IGNORE NULLS in window function " + sqlName);
    }
    List<RexNode> operands = call.getOperands();
    WindowCall.Function function = switch (call.getKind()) {
      case ROW_NUMBER -> WindowCall.Function.ROW_NUMBER;
      case RANK -> WindowCall.Function.RANK;
      case DENSE_RANK -> WindowCall.Function.DENSE_RANK;
      case PERCENT_RANK -> WindowCall.Function.PERCENT_RANK;
      case CUME_DIST -> WindowCall.Function.CUME_DIST;
      case NTILE -> WindowCall.Function.NTILE;
      case LAG -> WindowCall.Function.LAG;
      case LEAD -> WindowCall.Function.LEAD;
      case FIRST_VALUE -> WindowCall.Function.FIRST_VALUE;
      case LAST_VALUE -> WindowCall.Function.LAST_VALUE;
      case NTH_VALUE -> WindowCall.Function.NTH_VALUE;
      case SUM -> WindowCall.Function.SUM;
      case SUM0 -> WindowCall.Function.SUM0;
      case AVG -> WindowCall.Function.AVG;
      case COUNT -> operands.isEmpty() ? WindowCall.Function.COUNT_STAR : WindowCall.Function.COUNT;
      case MIN -> WindowCall.Function.MIN;
      case MAX -> WindowCall.Function.MAX;
      default -> throw unsupported("window function " + sqlName);
    };
    WindowCall.Builder c = WindowCall.newBuilder().setFunction(function).setName(name)
        .setType(TypeTranslator.toProto(call.getType()));
    switch (function) {
      case ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST -> { }
      case NTILE -> {
        if (isConstant(operands.get(0))) {
          c.setOffset(positiveCount(operands.get(0), sqlName));
        } else {
          c.addArgs(column(operands.get(0), sqlName)); // read on each row, as Trino does
        }
      }
      case LAG, LEAD -> {
        c.addArgs(column(operands.get(0), sqlName));
        c.setOffset(operands.size() > 1 ? count(operands.get(1), sqlName, 0) : 1);
        if (operands.size() > 2) {
          c.setDefaultValue(defaultValue(operands.get(2), operands.get(0).getType(), call.getType(), sqlName));
        }
      }
      case NTH_VALUE -> {
        c.addArgs(column(operands.get(0), sqlName));
        c.setOffset(positiveCount(operands.get(1), sqlName));
        c.setFrame(frame);
      }
      case COUNT_STAR -> c.setFrame(frame);
      default -> {
        if (operands.size() != 1) {
          throw unsupported("window function " + sqlName + " with " + operands.size() + " arguments");
        }
        c.addArgs(column(operands.get(0), sqlName));
        c.setFrame(frame);
      }
    }
    return c.build();
  }

  private WindowFrame frame(Window.Group group) {
    return WindowFrame.newBuilder()
        .setUnit(group.isRows ? WindowFrame.Unit.ROWS : WindowFrame.Unit.RANGE)
        .setStart(bound(group.lowerBound, group))
        .setEnd(bound(group.upperBound, group))
        .build();
  }

  private FrameBound bound(RexWindowBound bound, Window.Group group) {
    FrameBound.Builder b = FrameBound.newBuilder();
    if (bound.isCurrentRow()) {
      return b.setKind(FrameBound.Kind.CURRENT_ROW).build();
    }
    if (bound.isUnbounded()) {
      return b.setKind(bound.isPreceding() ? FrameBound.Kind.UNBOUNDED_PRECEDING : FrameBound.Kind.UNBOUNDED_FOLLOWING)
          .build();
    }
    b.setKind(bound.isPreceding() ? FrameBound.Kind.PRECEDING : FrameBound.Kind.FOLLOWING);
    RexLiteral offset = constant(bound.getOffset(), "window frame offset");
    if (offset.isNull() || offset.getValueAs(BigDecimal.class) == null || offset.getValueAs(BigDecimal.class).signum() < 0) {
      throw PlanningException.unpositioned(PlanningException.Code.VALIDATION_ERROR,
          "Window frame offset must not be negative or NULL");
    }
    if (!group.isRows && group.orderKeys.getFieldCollations().size() != 1) {
      throw PlanningException.unpositioned(PlanningException.Code.VALIDATION_ERROR,
          "Window frame of type RANGE PRECEDING or FOLLOWING requires a single sort item in ORDER BY");
    }
    return b.setOffset(Expr.newBuilder().setType(TypeTranslator.toProto(offset.getType()))
        .setLiteral(LiteralTranslator.toProto(offset))).build();
  }

  /**
   * LAG's or LEAD's default, of the call's type {@code type}. Calcite types the call as the common
   * type of value and default, which may be of another kind than the value (BIGINT and 'x' make a
   * CHAR call over BIGINT values), so the default must be of the value's kind ({@code valueType}).
   */
  private Expr defaultValue(RexNode node, RelDataType valueType, RelDataType type, String function) {
    RexLiteral literal = constant(node, function + " default");
    RelDataType given = literal.getType();
    if (!literal.isNull() && !(sameKind(valueType, given) && storage(valueType).equals(storage(type)))) {
      throw PlanningException.unpositioned(PlanningException.Code.VALIDATION_ERROR, "The default of " + function
          + " must be of its value's type " + valueType.getSqlTypeName() + ", not " + given.getSqlTypeName());
    }
    Object value = LiteralTranslator.internalValue(literal);
    if (value instanceof BigDecimal d && SqlTypeUtil.isExactNumeric(valueType)
        && d.stripTrailingZeros().scale() > Math.max(valueType.getScale(), 0)) {
      // More decimals than the value's type holds would be rounded away.
      throw PlanningException.unpositioned(PlanningException.Code.VALIDATION_ERROR, "The default of " + function
          + " must be of its value's type " + valueType.getSqlTypeName() + ", not " + d.toPlainString());
    }
    if (value instanceof BigDecimal d && type.getSqlTypeName() == SqlTypeName.DECIMAL) {
      value = d.setScale(type.getScale(), RoundingMode.HALF_UP);
    }
    return Expr.newBuilder().setType(TypeTranslator.toProto(type))
        .setLiteral(literal.isNull() ? LiteralTranslator.toProto(literal) : LiteralTranslator.fromValue(value, type))
        .build();
  }

  private static boolean sameKind(RelDataType a, RelDataType b) {
    return SqlTypeUtil.isNumeric(a) ? SqlTypeUtil.isNumeric(b) : a.getFamily() == b.getFamily();
  }

  /** How the engine holds values of a type: the call's output must be held as its value is. */
  private static String storage(RelDataType t) {
    if (SqlTypeUtil.isIntType(t)) {
      return "integer";
    } else if (SqlTypeUtil.isApproximateNumeric(t)) {
      return "double";
    } else if (SqlTypeUtil.isCharacter(t)) {
      return "character";
    }
    return t.getSqlTypeName().name();
  }

  private int column(RexNode node, String function) {
    if (node instanceof RexInputRef ref && ref.getIndex() < inputWidth) {
      return ref.getIndex();
    }
    throw unsupported("a constant as the value of window function " + function);
  }

  private long positiveCount(RexNode node, String function) {
    return count(node, function, 1);
  }

  private long count(RexNode node, String function, long min) {
    RexLiteral literal = constant(node, function + " count");
    // Read as a number, not as the literal's unscaled digits (DECIMAL 2.0 is 2, not 20).
    BigDecimal exact = literal.isNull() ? null : literal.getValueAs(BigDecimal.class);
    if (exact != null && exact.stripTrailingZeros().scale() > 0) {
      throw PlanningException.unpositioned(PlanningException.Code.VALIDATION_ERROR,
          "The count of " + function + " must be an integer, not " + exact.toPlainString());
    }
    Long value = exact == null ? null : exact.longValue();
    if (value == null || value < min) { // NULL constants were answered as NULL before (NullWindowCounts)
      throw PlanningException.unpositioned(PlanningException.Code.VALIDATION_ERROR,
          WindowArguments.countTooSmall(function, min));
    }
    return value;
  }

  private boolean isConstant(RexNode node) {
    return node instanceof RexLiteral || (node instanceof RexInputRef ref && ref.getIndex() >= inputWidth);
  }

  private RexLiteral constant(RexNode node, String what) {
    if (node instanceof RexLiteral literal) {
      return literal;
    }
    if (node instanceof RexInputRef ref && ref.getIndex() >= inputWidth
        && ref.getIndex() - inputWidth < window.constants.size()) {
      return window.constants.get(ref.getIndex() - inputWidth);
    }
    throw unsupported(what + " that is not a constant");
  }

  private static PlanningException unsupported(String what) {
    return PlanningException.unpositioned(PlanningException.Code.UNSUPPORTED,
        "Unsupported SQL: " + what + " is not supported by Squall");
  }
}

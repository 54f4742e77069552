package dev.squall.planner.translate;

import com.google.common.collect.BoundType;
import com.google.common.collect.Range;
import dev.squall.proto.v1.DataType;
import dev.squall.proto.v1.Expr;
import dev.squall.proto.v1.Function;
import dev.squall.proto.v1.Literal;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexUnknownAs;
import org.apache.calcite.util.Sarg;

/**
 * Expands Calcite's {@code SEARCH(x, Sarg)} into engine functions: a set of points becomes
 * {@code IN(x, p1, p2, ...)} (or {@code =}), the complement of a set of points becomes
 * {@code NOT IN}, a closed range becomes {@code BETWEEN}, other ranges become comparisons, all
 * joined by OR. The Sarg's NULL treatment is kept: "null as TRUE" adds {@code OR x IS NULL},
 * "null as FALSE" adds {@code AND x IS NOT NULL}.
 */
public final class SargExpander {
  private SargExpander() {}

  /** Expands one SEARCH call. */
  public static Expr expand(RexCall search) {
    Expr ref = RexTranslator.toProto(search.getOperands().get(0));
    RexLiteral sargLiteral = (RexLiteral) search.getOperands().get(1);
    Sarg<?> sarg = sargLiteral.getValueAs(Sarg.class);
    RelDataType valueType = sargLiteral.getType();
    DataType bool = DataType.newBuilder().setKind(DataType.Kind.BOOLEAN)
        .setNullable(search.getType().isNullable()).build();

    Expr body;
    if (sarg.isAll()) {
      body = bool(true);
    } else if (sarg.isNone()) {
      body = bool(false);
    } else if (sarg.isPoints()) {
      body = points(ref, pointsOf(sarg, valueType, false), bool, valueType);
    } else if (sarg.isComplementedPoints()) {
      List<Literal> excluded = pointsOf(sarg, valueType, true);
      body = RexTranslator.call(Function.NOT, bool, List.of(points(ref, excluded, bool, valueType)));
    } else {
      List<Expr> ranges = new ArrayList<>();
      for (Range<?> range : sarg.rangeSet.asRanges()) {
        ranges.add(range(ref, range, bool, valueType));
      }
      body = ranges.size() == 1 ? ranges.get(0) : RexTranslator.call(Function.OR, bool, ranges);
    }
    if (sarg.nullAs == RexUnknownAs.TRUE) {
      Expr isNull = RexTranslator.call(Function.IS_NULL, bool.toBuilder().setNullable(false).build(), List.of(ref));
      return RexTranslator.call(Function.OR, bool, List.of(isNull, body));
    }
    if (sarg.nullAs == RexUnknownAs.FALSE && ref.getType().getNullable()) {
      Expr notNull = RexTranslator.call(Function.IS_NOT_NULL, bool.toBuilder().setNullable(false).build(), List.of(ref));
      return RexTranslator.call(Function.AND, bool, List.of(notNull, body));
    }
    return body;
  }

  private static List<Literal> pointsOf(Sarg<?> sarg, RelDataType type, boolean complement) {
    List<Literal> points = new ArrayList<>();
    for (Range<?> range : (complement ? sarg.rangeSet.complement() : sarg.rangeSet).asRanges()) {
      points.add(LiteralTranslator.fromValue(range.lowerEndpoint(), type));
    }
    return points;
  }

  private static Expr points(Expr ref, List<Literal> points, DataType bool, RelDataType type) {
    DataType valueType = TypeTranslator.toProto(type).toBuilder().setNullable(false).build();
    List<Expr> args = new ArrayList<>();
    args.add(ref);
    for (Literal point : points) {
      args.add(Expr.newBuilder().setType(valueType).setLiteral(point).build());
    }
    return args.size() == 2
        ? RexTranslator.call(Function.EQUAL, bool, args)
        : RexTranslator.call(Function.IN, bool, args);
  }

  private static Expr range(Expr ref, Range<?> range, DataType bool, RelDataType type) {
    DataType valueType = TypeTranslator.toProto(type).toBuilder().setNullable(false).build();
    Expr low = range.hasLowerBound() ? value(range.lowerEndpoint(), type, valueType) : null;
    Expr high = range.hasUpperBound() ? value(range.upperEndpoint(), type, valueType) : null;
    if (low != null && high != null && range.lowerBoundType() == BoundType.CLOSED
        && range.upperBoundType() == BoundType.CLOSED) {
      if (range.lowerEndpoint().equals(range.upperEndpoint())) {
        return RexTranslator.call(Function.EQUAL, bool, List.of(ref, low));
      }
      return RexTranslator.call(Function.BETWEEN, bool, List.of(ref, low, high));
    }
    List<Expr> parts = new ArrayList<>();
    if (low != null) {
      parts.add(RexTranslator.call(range.lowerBoundType() == BoundType.CLOSED
          ? Function.GREATER_THAN_OR_EQUAL : Function.GREATER_THAN, bool, List.of(ref, low)));
    }
    if (high != null) {
      parts.add(RexTranslator.call(range.upperBoundType() == BoundType.CLOSED
          ? Function.LESS_THAN_OR_EQUAL : Function.LESS_THAN, bool, List.of(ref, high)));
    }
    if (parts.isEmpty()) {
      return bool(true);
    }
    return parts.size() == 1 ? parts.get(0) : RexTranslator.call(Function.AND, bool, parts);
  }

  private static Expr value(Object endpoint, RelDataType type, DataType protoType) {
    return Expr.newBuilder().setType(protoType).setLiteral(LiteralTranslator.fromValue(endpoint, type)).build();
  }

  private static Expr bool(boolean value) {
    return Expr.newBuilder()
        .setType(DataType.newBuilder().setKind(DataType.Kind.BOOLEAN))
        .setLiteral(Literal.newBuilder().setBoolValue(value))
        .build();
  }
}

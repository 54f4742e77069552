package dev.squall.planner.translate;

import com.google.common.collect.BoundType;
import com.google.common.collect.Range;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUnknownAs;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.util.DateString;
import org.apache.calcite.util.NlsString;
import org.apache.calcite.util.Sarg;
import org.apache.calcite.util.TimestampString;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Derives from a scan's filter condition an Iceberg expression for file, partition and row-group
 * pruning. The result may be weaker than the condition (conjuncts that do not translate are
 * dropped), never stronger; the exact condition stays in a Filter operator above the scan.
 *
 * <p>Translated: comparisons of a column with a literal, IS [NOT] NULL, SEARCH (IN lists and
 * ranges), LIKE 'prefix%' (as startsWith), AND, and OR whose every branch translates.
 */
public final class IcebergFilterTranslator {
  private final Schema schema;

  /** @param schema the table schema; input column i of conditions is {@code schema.columns().get(i)} */
  public IcebergFilterTranslator(Schema schema) {
    this.schema = schema;
  }

  /**
   * The pruning filter as Iceberg JSON ({@link ExpressionParser}, bound to the schema so that
   * literals carry the column types), or empty when nothing translates.
   */
  public Optional<String> toJson(RexNode condition) {
    Expression expression = translate(condition);
    if (expression == null || expression.op() == Expression.Operation.TRUE) {
      return Optional.empty();
    }
    return Optional.of(ExpressionParser.toJson(Binder.bind(schema.asStruct(), expression, false), false));
  }

  /** The unbound pruning expression, {@code null} when nothing translates. */
  public Expression translate(RexNode condition) {
    List<Expression> parts = new ArrayList<>();
    for (RexNode conjunct : RexUtil.flattenAnd(List.of(condition))) {
      Expression e = exact(conjunct);
      if (e != null && binds(e)) {
        parts.add(e);
      }
    }
    if (parts.isEmpty()) {
      return null;
    }
    Expression result = parts.get(0);
    for (int i = 1; i < parts.size(); i++) {
      result = Expressions.and(result, parts.get(i));
    }
    return result;
  }

  /**
   * The whole condition as an equivalent Iceberg expression (unbound), or null when some part of
   * it does not translate. Inequality ({@code <>}) is left out, since Iceberg's {@code notEqual}
   * holds for NULL and SQL's does not. Used where a weaker expression would be wrong: deciding by
   * metadata that every row of a data file matches.
   */
  public Expression translateExact(RexNode condition) {
    if (condition.isAlwaysTrue()) {
      return Expressions.alwaysTrue();
    }
    boolean[] inequality = {false};
    condition.accept(new org.apache.calcite.rex.RexVisitorImpl<Void>(true) {
      @Override
      public Void visitCall(RexCall call) {
        if (call.getKind() == SqlKind.NOT_EQUALS || call.getKind() == SqlKind.IS_DISTINCT_FROM) {
          inequality[0] = true;
        }
        return super.visitCall(call);
      }
    });
    if (inequality[0]) {
      return null;
    }
    Expression e = exact(condition);
    return e != null && binds(e) ? e : null;
  }

  private boolean binds(Expression e) {
    try {
      Binder.bind(schema.asStruct(), e, false);
      return true;
    } catch (RuntimeException notBindable) {
      return false;
    }
  }

  /** An Iceberg expression equivalent to the node, or null. */
  private Expression exact(RexNode node) {
    if (!(node instanceof RexCall call)) {
      return null;
    }
    List<RexNode> ops = call.getOperands();
    switch (call.getKind()) {
      case AND: {
        Expression result = null;
        for (RexNode op : ops) {
          Expression e = exact(op);
          if (e == null) {
            return null;
          }
          result = result == null ? e : Expressions.and(result, e);
        }
        return result;
      }
      case OR: {
        Expression result = null;
        for (RexNode op : ops) {
          Expression e = exact(op);
          if (e == null) {
            return null;
          }
          result = result == null ? e : Expressions.or(result, e);
        }
        return result;
      }
      case IS_NULL:
        return column(ops.get(0)) == null ? null : Expressions.isNull(column(ops.get(0)));
      case IS_NOT_NULL:
        return column(ops.get(0)) == null ? null : Expressions.notNull(column(ops.get(0)));
      case EQUALS, NOT_EQUALS, LESS_THAN, LESS_THAN_OR_EQUAL, GREATER_THAN, GREATER_THAN_OR_EQUAL:
        return comparison(call);
      case SEARCH:
        return search(call);
      case LIKE:
        return like(call);
      default:
        return null;
    }
  }

  private Expression comparison(RexCall call) {
    SqlKind kind = call.getKind();
    RexNode left = call.getOperands().get(0);
    RexNode right = call.getOperands().get(1);
    if (column(left) == null) {
      RexNode swap = left;
      left = right;
      right = swap;
      kind = kind.reverse();
    }
    String name = column(left);
    if (name == null || !(right instanceof RexLiteral literal) || literal.isNull()) {
      return null;
    }
    Object value = value(name, LiteralTranslator.internalValue(literal));
    if (value == null) {
      return null;
    }
    return compare(kind, name, value);
  }

  private static Expression compare(SqlKind kind, String name, Object value) {
    return switch (kind) {
      case EQUALS -> Expressions.equal(name, value);
      case NOT_EQUALS -> Expressions.notEqual(name, value);
      case LESS_THAN -> Expressions.lessThan(name, value);
      case LESS_THAN_OR_EQUAL -> Expressions.lessThanOrEqual(name, value);
      case GREATER_THAN -> Expressions.greaterThan(name, value);
      case GREATER_THAN_OR_EQUAL -> Expressions.greaterThanOrEqual(name, value);
      default -> null;
    };
  }

  private Expression search(RexCall call) {
    String name = column(call.getOperands().get(0));
    if (name == null) {
      return null;
    }
    Sarg<?> sarg = ((RexLiteral) call.getOperands().get(1)).getValueAs(Sarg.class);
    Expression result;
    if (sarg.isPoints()) {
      List<Object> values = new ArrayList<>();
      for (Range<?> range : sarg.rangeSet.asRanges()) {
        Object v = value(name, range.lowerEndpoint());
        if (v == null) {
          return null;
        }
        values.add(v);
      }
      result = values.isEmpty() ? Expressions.alwaysFalse() : Expressions.in(name, values.toArray());
    } else {
      result = null;
      for (Range<?> range : sarg.rangeSet.asRanges()) {
        Expression r = range(name, range);
        if (r == null) {
          return null;
        }
        result = result == null ? r : Expressions.or(result, r);
      }
      if (result == null) {
        result = Expressions.alwaysFalse();
      }
    }
    if (sarg.nullAs == RexUnknownAs.TRUE) {
      result = Expressions.or(Expressions.isNull(name), result);
    }
    return result;
  }

  private Expression range(String name, Range<?> range) {
    Expression low = null;
    Expression high = null;
    if (range.hasLowerBound()) {
      Object v = value(name, range.lowerEndpoint());
      if (v == null) {
        return null;
      }
      low = range.lowerBoundType() == BoundType.CLOSED
          ? Expressions.greaterThanOrEqual(name, v) : Expressions.greaterThan(name, v);
    }
    if (range.hasUpperBound()) {
      Object v = value(name, range.upperEndpoint());
      if (v == null) {
        return null;
      }
      high = range.upperBoundType() == BoundType.CLOSED
          ? Expressions.lessThanOrEqual(name, v) : Expressions.lessThan(name, v);
    }
    if (low == null && high == null) {
      return Expressions.alwaysTrue();
    }
    return low == null ? high : high == null ? low : Expressions.and(low, high);
  }

  private Expression like(RexCall call) {
    if (call.getOperands().size() != 2 || call.getOperator().getName().toUpperCase().contains("NOT")) {
      return null;
    }
    String name = column(call.getOperands().get(0));
    if (name == null || !(call.getOperands().get(1) instanceof RexLiteral pattern)) {
      return null;
    }
    String text = pattern.getValueAs(String.class);
    if (text == null || !text.endsWith("%")) {
      return null;
    }
    String prefix = text.substring(0, text.length() - 1);
    if (prefix.isEmpty() || prefix.contains("%") || prefix.contains("_") || prefix.contains("\\")) {
      return null;
    }
    return Expressions.startsWith(name, prefix);
  }

  private String column(RexNode node) {
    if (node instanceof RexInputRef ref && ref.getIndex() < schema.columns().size()) {
      Types.NestedField field = schema.columns().get(ref.getIndex());
      return field.type().isPrimitiveType() ? field.name() : null;
    }
    return null;
  }

  /** The literal value in the Java type Iceberg expects for the column, or null. */
  private Object value(String column, Object calciteValue) {
    Type type = schema.findField(column).type();
    try {
      return switch (type.typeId()) {
        case BOOLEAN -> calciteValue instanceof Boolean b ? b : null;
        case INTEGER -> ((BigDecimal) calciteValue).intValueExact();
        case LONG -> ((BigDecimal) calciteValue).longValueExact();
        case FLOAT -> ((BigDecimal) calciteValue).floatValue();
        case DOUBLE -> ((BigDecimal) calciteValue).doubleValue();
        case DECIMAL -> ((BigDecimal) calciteValue)
            .setScale(((Types.DecimalType) type).scale(), java.math.RoundingMode.UNNECESSARY);
        case STRING -> calciteValue instanceof NlsString s ? s.getValue() : null;
        case DATE -> calciteValue instanceof DateString d ? d.toString() : null;
        case TIMESTAMP -> calciteValue instanceof TimestampString t
            && !((Types.TimestampType) type).shouldAdjustToUTC()
            ? t.toString().replace(' ', 'T') : null;
        default -> null;
      };
    } catch (ClassCastException | ArithmeticException notExact) {
      return null;
    }
  }
}

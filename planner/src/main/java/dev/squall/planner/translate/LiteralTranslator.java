package dev.squall.planner.translate;

import dev.squall.planner.PlanningException;
import dev.squall.proto.v1.Literal;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import org.apache.calcite.avatica.util.ByteString;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.util.DateString;
import org.apache.calcite.util.NlsString;
import org.apache.calcite.util.TimestampString;

/**
 * Calcite literal values to plan-proto {@link Literal}s in the encodings of expressions.proto:
 * DECIMAL as unscaled digits at the type's scale, DATE as days since the epoch, TIMESTAMP as
 * microseconds, INTERVAL DAY-TIME as milliseconds and YEAR-MONTH as months (Calcite's own units).
 */
public final class LiteralTranslator {
  private LiteralTranslator() {}

  /** A literal of a Rex tree. */
  public static Literal toProto(RexLiteral literal) {
    if (literal.isNull()) {
      return Literal.newBuilder().setIsNull(true).build();
    }
    return fromValue(internalValue(literal), literal.getType());
  }

  /**
   * The value of a literal in the representation Sargs use (DateString for DATE, TimestampString
   * for TIMESTAMP, NlsString for strings, BigDecimal for numbers and intervals), not the legacy
   * Calendar that {@link RexLiteral#getValue()} returns for dates.
   */
  public static Object internalValue(RexLiteral literal) {
    return switch (literal.getType().getSqlTypeName()) {
      case DATE -> literal.getValueAs(DateString.class);
      case TIMESTAMP -> literal.getValueAs(TimestampString.class);
      default -> literal.getValue();
    };
  }

  /**
   * A value in Calcite's internal representation (as held by RexLiteral or by a Sarg: BigDecimal,
   * NlsString, DateString, TimestampString, Boolean, ByteString) of the given SQL type.
   */
  public static Literal fromValue(Object value, RelDataType type) {
    Literal.Builder b = Literal.newBuilder();
    if (value == null) {
      return b.setIsNull(true).build();
    }
    switch (type.getSqlTypeName()) {
      case BOOLEAN -> b.setBoolValue((Boolean) value);
      case TINYINT, SMALLINT, INTEGER, BIGINT -> b.setLongValue(number(value).longValueExact());
      // A folded DOUBLE can be Infinity or NaN, which no BigDecimal holds.
      case REAL, FLOAT, DOUBLE -> b.setDoubleValue(value instanceof Number n && !(value instanceof BigDecimal)
          ? n.doubleValue() : number(value).doubleValue());
      case DECIMAL -> b.setDecimalUnscaled(
          number(value).setScale(type.getScale(), RoundingMode.UNNECESSARY).unscaledValue().toString());
      case DATE -> b.setDateDays(value instanceof DateString d
          ? d.getDaysSinceEpoch() : number(value).intValueExact());
      case TIMESTAMP -> b.setTimestampMicros(micros(value));
      case CHAR, VARCHAR -> b.setStringValue(value instanceof NlsString s ? s.getValue() : value.toString());
      case BINARY, VARBINARY -> b.setBinaryValue(
          com.google.protobuf.ByteString.copyFrom(((ByteString) value).getBytes()));
      default -> {
        if (type.getSqlTypeName().getFamily() == org.apache.calcite.sql.type.SqlTypeFamily.INTERVAL_DAY_TIME
            || type.getSqlTypeName().getFamily() == org.apache.calcite.sql.type.SqlTypeFamily.INTERVAL_YEAR_MONTH) {
          b.setLongValue(number(value).longValueExact());
        } else {
          throw PlanningException.unpositioned(PlanningException.Code.UNSUPPORTED,
              "Unsupported SQL: literal of type " + type.getFullTypeString());
        }
      }
    }
    return b.build();
  }

  private static BigDecimal number(Object value) {
    if (value instanceof BigDecimal d) {
      return d;
    }
    if (value instanceof Number n) {
      return new BigDecimal(n.toString());
    }
    throw new IllegalArgumentException("Not a number: " + value);
  }

  private static long micros(Object value) {
    if (value instanceof TimestampString ts) {
      LocalDateTime time = LocalDateTime.parse(ts.toString().replace(' ', 'T'));
      return ChronoUnit.MICROS.between(LocalDateTime.of(1970, 1, 1, 0, 0), time);
    }
    if (value instanceof java.util.Calendar c) {
      return c.getTimeInMillis() * 1000;
    }
    return number(value).longValueExact() * 1000;
  }
}

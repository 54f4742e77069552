package dev.squall.engine.operator.window;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.column.DoubleColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.DataType;
import dev.squall.proto.v1.Expr;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * The value {@code key ± offset} of a RANGE frame bound, and the order of other rows' keys against
 * it. Numbers add in their own domain (integers as longs, saturating; DECIMAL exactly; DOUBLE in
 * double arithmetic); DATE and TIMESTAMP keys take a day-time interval in microseconds (a DATE as
 * its midnight) and a year-month interval as calendar months (the day clamped to the month's end,
 * as {@link LocalDate#plusMonths} does).
 */
final class RangeOffset {
  private static final long MICROS_PER_DAY = 86_400_000_000L;

  private enum Domain { LONG, DATE_MICROS, MONTHS, DOUBLE, DECIMAL }

  private final Column key;
  private final SqlType keyType;
  private final Domain domain;
  private final long longOffset;
  private final double doubleOffset;
  private final BigDecimal decimalOffset;
  private long longTarget;
  private double doubleTarget;
  private BigDecimal decimalTarget;

  /**
   * @param key the single order key column (sorted rows)
   * @param offset a non-negative literal: a number, or an interval for DATE/TIMESTAMP keys
   * @throws EngineException a bad plan when the offset does not fit the key's type
   */
  RangeOffset(Column key, Expr offset) {
    this.key = key;
    this.keyType = key.type();
    DataType.Kind offsetKind = offset.getType().getKind();
    var lit = offset.getLiteral();
    BigDecimal value = switch (lit.getValueCase()) {
      case LONG_VALUE -> BigDecimal.valueOf(lit.getLongValue());
      case DOUBLE_VALUE -> BigDecimal.valueOf(lit.getDoubleValue());
      case DECIMAL_UNSCALED -> new BigDecimal(new java.math.BigInteger(lit.getDecimalUnscaled()), offset.getType().getScale());
      default -> throw EngineException.badPlan("RANGE frame offset " + lit);
    };
    boolean temporal = keyType.kind() == DataType.Kind.DATE || keyType.kind() == DataType.Kind.TIMESTAMP;
    if (offsetKind == DataType.Kind.INTERVAL_YEAR_MONTH && temporal) {
      domain = Domain.MONTHS;
    } else if (offsetKind == DataType.Kind.INTERVAL_DAY_TIME && temporal) {
      domain = Domain.DATE_MICROS;
    } else if (keyType.isIntegral() && !temporal) {
      domain = Domain.LONG;
    } else if (keyType.isFloating()) {
      domain = Domain.DOUBLE;
    } else if (keyType.isDecimal()) {
      domain = Domain.DECIMAL;
    } else {
      throw EngineException.badPlan("RANGE frame offset of type " + offsetKind + " over a key of type " + keyType);
    }
    longOffset = domain == Domain.DATE_MICROS ? value.longValue() * 1000 : value.longValue();
    doubleOffset = value.doubleValue();
    decimalOffset = value;
  }

  /** Fixes the value to compare with: row i's key plus ({@code sign} 1) or minus (-1) the offset. */
  void target(int i, int sign) {
    switch (domain) {
      case LONG -> longTarget = saturatingAdd(((LongColumn) key).value(i), sign * longOffset);
      case DATE_MICROS -> longTarget = saturatingAdd(micros(i), sign * longOffset);
      case MONTHS -> longTarget = plusMonths(i, sign * longOffset);
      case DOUBLE -> doubleTarget = ((DoubleColumn) key).value(i) + sign * doubleOffset;
      case DECIMAL -> decimalTarget = sign > 0 ? ((DecimalColumn) key).decimal(i).add(decimalOffset)
          : ((DecimalColumn) key).decimal(i).subtract(decimalOffset);
      default -> throw new IllegalStateException();
    }
  }

  /** The order of row j's (non-NULL) key against the target, ascending. */
  int compareToTarget(int j) {
    return switch (domain) {
      case LONG -> Long.compare(((LongColumn) key).value(j), longTarget);
      case DATE_MICROS -> Long.compare(micros(j), longTarget);
      case MONTHS -> Long.compare(((LongColumn) key).value(j), longTarget);
      case DOUBLE -> Double.compare(((DoubleColumn) key).value(j), doubleTarget);
      case DECIMAL -> ((DecimalColumn) key).decimal(j).compareTo(decimalTarget);
    };
  }

  private long micros(int i) {
    long v = ((LongColumn) key).value(i);
    return keyType.kind() == DataType.Kind.DATE ? v * MICROS_PER_DAY : v;
  }

  /** Row i's DATE (days) or TIMESTAMP (micros) key moved by calendar months, in the key's own unit. */
  private long plusMonths(int i, long months) {
    long v = ((LongColumn) key).value(i);
    if (keyType.kind() == DataType.Kind.DATE) {
      return LocalDate.ofEpochDay(v).plusMonths(months).toEpochDay();
    }
    LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(v, 1_000_000L),
        (int) Math.floorMod(v, 1_000_000L) * 1000, ZoneOffset.UTC).plusMonths(months);
    return t.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + t.getNano() / 1000;
  }

  private static long saturatingAdd(long a, long b) {
    long r = a + b;
    if (((a ^ r) & (b ^ r)) < 0) {
      return b > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
    }
    return r;
  }
}

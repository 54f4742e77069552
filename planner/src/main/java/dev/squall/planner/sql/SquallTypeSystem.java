package dev.squall.planner.sql;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeSystemImpl;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;

/**
 * Squall's SQL type rules, where they differ from Calcite's defaults:
 * <ul>
 *   <li>DECIMAL up to precision and scale 38 (Arrow Decimal128), TIMESTAMP with microseconds;</li>
 *   <li>SUM of DECIMAL(p, s) is DECIMAL(38, s), SUM of integers is BIGINT, SUM of REAL/DOUBLE is
 *       DOUBLE (as in Trino and DuckDB), so that sums do not overflow the argument's type;</li>
 *   <li>AVG of a number is DOUBLE (as in DuckDB): AggregateReduceFunctionsRule then computes it
 *       as CAST(SUM(x) AS DOUBLE) / COUNT(x);</li>
 *   <li>DECIMAL(p1, s1) / DECIMAL(p2, s2) is Trino's DECIMAL(min(38, p1 + s2 + max(0, s2 - s1)),
 *       max(s1, s2)) (Trino's {@code DecimalOperators}): {@code 10.00 / 3.00} is 3.33, as in Trino,
 *       and the quotient of two money columns stays a 64-bit value where Calcite's default (SQL
 *       Server's rule, scale at least 6) widened it to 128 bits;</li>
 *   <li>string literals of different lengths in CASE/UNION become VARCHAR, not padded CHAR.</li>
 * </ul>
 * Every other derivation (decimal +, -, *) is Calcite's, and the planner writes the derived
 * type into each expression so that the engine computes exactly that type.
 */
public final class SquallTypeSystem extends RelDataTypeSystemImpl {
  public static final SquallTypeSystem INSTANCE = new SquallTypeSystem();
  private static final int MAX_DECIMAL = 38;

  private SquallTypeSystem() {}

  @Override
  public int getMaxPrecision(SqlTypeName typeName) {
    return switch (typeName) {
      case DECIMAL -> MAX_DECIMAL;
      case TIMESTAMP, TIMESTAMP_WITH_LOCAL_TIME_ZONE, TIME -> 6;
      default -> super.getMaxPrecision(typeName);
    };
  }

  @Override
  public int getMaxScale(SqlTypeName typeName) {
    return typeName == SqlTypeName.DECIMAL ? MAX_DECIMAL : super.getMaxScale(typeName);
  }

  @Override
  public int getMaxNumericPrecision() {
    return MAX_DECIMAL;
  }

  @Override
  public int getMaxNumericScale() {
    return MAX_DECIMAL;
  }

  @Override
  public RelDataType deriveSumType(RelDataTypeFactory factory, RelDataType argumentType) {
    RelDataType sum = switch (argumentType.getSqlTypeName()) {
      case DECIMAL -> factory.createSqlType(SqlTypeName.DECIMAL, MAX_DECIMAL, argumentType.getScale());
      case TINYINT, SMALLINT, INTEGER, BIGINT -> factory.createSqlType(SqlTypeName.BIGINT);
      case REAL, FLOAT, DOUBLE -> factory.createSqlType(SqlTypeName.DOUBLE);
      default -> argumentType;
    };
    return factory.createTypeWithNullability(sum, argumentType.isNullable());
  }

  @Override
  public RelDataType deriveAvgAggType(RelDataTypeFactory factory, RelDataType argumentType) {
    if (SqlTypeUtil.isNumeric(argumentType)) {
      return factory.createTypeWithNullability(
          factory.createSqlType(SqlTypeName.DOUBLE), argumentType.isNullable());
    }
    return super.deriveAvgAggType(factory, argumentType);
  }

  @Override
  public RelDataType deriveDecimalDivideType(RelDataTypeFactory factory, RelDataType dividend,
      RelDataType divisor) {
    if (!SqlTypeUtil.isExactNumeric(dividend) || !SqlTypeUtil.isExactNumeric(divisor)
        || !(SqlTypeUtil.isDecimal(dividend) || SqlTypeUtil.isDecimal(divisor))) {
      return null; // integer division, or not a decimal division at all: Calcite's rules
    }
    RelDataType x = decimalOf(factory, dividend);
    RelDataType y = decimalOf(factory, divisor);
    int s1 = x.getScale();
    int s2 = y.getScale();
    int precision = Math.min(MAX_DECIMAL, x.getPrecision() + s2 + Math.max(0, s2 - s1));
    int scale = Math.max(s1, s2);
    return factory.createTypeWithNullability(factory.createSqlType(SqlTypeName.DECIMAL, precision, scale),
        dividend.isNullable() || divisor.isNullable());
  }

  /** An exact numeric type as the DECIMAL that holds it (INTEGER is DECIMAL(10, 0), as in Trino). */
  private static RelDataType decimalOf(RelDataTypeFactory factory, RelDataType type) {
    if (SqlTypeUtil.isDecimal(type)) {
      return type;
    }
    int precision = switch (type.getSqlTypeName()) {
      case TINYINT -> 3;
      case SMALLINT -> 5;
      case INTEGER -> 10;
      default -> 19;
    };
    return factory.createSqlType(SqlTypeName.DECIMAL, precision, 0);
  }

  @Override
  public boolean shouldConvertRaggedUnionTypesToVarying() {
    return true;
  }
}

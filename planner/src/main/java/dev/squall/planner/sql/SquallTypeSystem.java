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
 *   <li>string literals of different lengths in CASE/UNION become VARCHAR, not padded CHAR.</li>
 * </ul>
 * Every other derivation (decimal +, -, *, /) is Calcite's, and the planner writes the derived
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
  public boolean shouldConvertRaggedUnionTypesToVarying() {
    return true;
  }
}

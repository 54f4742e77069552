package dev.squall.planner.catalog;

import java.util.Optional;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Maps Iceberg column types to Calcite SQL types: long→BIGINT, int→INTEGER, decimal(p,s)→DECIMAL(p,s),
 * date→DATE, timestamp→TIMESTAMP(6), string→VARCHAR, binary/fixed→VARBINARY, boolean→BOOLEAN,
 * float→REAL, double→DOUBLE; and back for the columns of a new table ({@link #toIceberg}):
 * BIGINT→long, INTEGER/SMALLINT/TINYINT→int, DOUBLE/FLOAT→double, REAL→float, DECIMAL(p,s)→decimal(p,s),
 * CHAR/VARCHAR→string, BINARY/VARBINARY→binary, BOOLEAN→boolean, DATE→date, TIMESTAMP→timestamp
 * without zone. Both directions live here so that a table Squall creates reads back with the
 * types it was written with (up to TINYINT/SMALLINT, which read back as INTEGER).
 *
 * <p>Types Squall cannot execute (time, uuid, timestamptz, nested struct/list/map) become
 * {@link SqlTypeName#ANY}: the table still resolves and queries that do not touch such a column
 * plan normally; a query that reads one is refused when it is translated.
 */
public final class IcebergTypeMapping {
  private IcebergTypeMapping() {}

  /** The SQL type of an Iceberg type, nullable as given. */
  public static RelDataType toSql(RelDataTypeFactory factory, Type type, boolean nullable) {
    RelDataType sql = switch (type.typeId()) {
      case BOOLEAN -> factory.createSqlType(SqlTypeName.BOOLEAN);
      case INTEGER -> factory.createSqlType(SqlTypeName.INTEGER);
      case LONG -> factory.createSqlType(SqlTypeName.BIGINT);
      case FLOAT -> factory.createSqlType(SqlTypeName.REAL);
      case DOUBLE -> factory.createSqlType(SqlTypeName.DOUBLE);
      case DECIMAL -> {
        Types.DecimalType decimal = (Types.DecimalType) type;
        yield factory.createSqlType(SqlTypeName.DECIMAL, decimal.precision(), decimal.scale());
      }
      case DATE -> factory.createSqlType(SqlTypeName.DATE);
      case TIMESTAMP -> ((Types.TimestampType) type).shouldAdjustToUTC()
          ? factory.createSqlType(SqlTypeName.ANY)
          : factory.createSqlType(SqlTypeName.TIMESTAMP, 6);
      case STRING -> factory.createSqlType(SqlTypeName.VARCHAR);
      case BINARY, FIXED -> factory.createSqlType(SqlTypeName.VARBINARY);
      default -> factory.createSqlType(SqlTypeName.ANY);
    };
    return factory.createTypeWithNullability(sql, nullable);
  }

  /**
   * The Iceberg type of a new table's column whose values have SQL type {@code type}.
   *
   * @return empty for SQL types that have no Iceberg column type Squall writes (NULL, intervals,
   *     TIME, timestamp with local time zone, nested types, ...)
   */
  public static Optional<Type> toIceberg(RelDataType type) {
    Type iceberg = switch (type.getSqlTypeName()) {
      case BOOLEAN -> Types.BooleanType.get();
      case TINYINT, SMALLINT, INTEGER -> Types.IntegerType.get();
      case BIGINT -> Types.LongType.get();
      case REAL -> Types.FloatType.get();
      case FLOAT, DOUBLE -> Types.DoubleType.get();
      case DECIMAL -> Types.DecimalType.of(type.getPrecision(), type.getScale());
      case DATE -> Types.DateType.get();
      case TIMESTAMP -> Types.TimestampType.withoutZone();
      case CHAR, VARCHAR -> Types.StringType.get();
      case BINARY, VARBINARY -> Types.BinaryType.get();
      default -> null;
    };
    return Optional.ofNullable(iceberg);
  }
}

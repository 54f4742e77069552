package dev.squall.planner.translate;

import dev.squall.planner.PlanningException;
import dev.squall.proto.v1.DataType;
import dev.squall.proto.v1.Field;
import dev.squall.proto.v1.Schema;
import java.util.List;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;

/**
 * Calcite SQL types to plan-proto {@link DataType}s: CHAR and VARCHAR become VARCHAR (with the
 * declared length as precision, 0 when unbounded), BINARY/VARBINARY become VARBINARY, SQL FLOAT
 * (a double in Calcite) becomes DOUBLE, DECIMAL keeps Calcite's precision and scale, interval
 * types become INTERVAL_DAY_TIME (milliseconds) or INTERVAL_YEAR_MONTH (months).
 */
public final class TypeTranslator {
  private TypeTranslator() {}

  /**
   * @throws PlanningException UNSUPPORTED for types the engine has no vector for (TIME, timestamp
   *     with time zone, nested types, ...)
   */
  public static DataType toProto(RelDataType type) {
    DataType.Builder b = DataType.newBuilder().setNullable(type.isNullable());
    switch (type.getSqlTypeName()) {
      case BOOLEAN -> b.setKind(DataType.Kind.BOOLEAN);
      case TINYINT -> b.setKind(DataType.Kind.TINYINT);
      case SMALLINT -> b.setKind(DataType.Kind.SMALLINT);
      case INTEGER -> b.setKind(DataType.Kind.INTEGER);
      case BIGINT -> b.setKind(DataType.Kind.BIGINT);
      case REAL -> b.setKind(DataType.Kind.REAL);
      case FLOAT, DOUBLE -> b.setKind(DataType.Kind.DOUBLE);
      case DECIMAL -> b.setKind(DataType.Kind.DECIMAL)
          .setPrecision(type.getPrecision()).setScale(type.getScale());
      case DATE -> b.setKind(DataType.Kind.DATE);
      case TIMESTAMP -> b.setKind(DataType.Kind.TIMESTAMP);
      case CHAR, VARCHAR -> b.setKind(DataType.Kind.VARCHAR).setPrecision(length(type));
      case BINARY, VARBINARY -> b.setKind(DataType.Kind.VARBINARY).setPrecision(length(type));
      case INTERVAL_YEAR, INTERVAL_YEAR_MONTH, INTERVAL_MONTH -> b.setKind(DataType.Kind.INTERVAL_YEAR_MONTH);
      case INTERVAL_DAY, INTERVAL_DAY_HOUR, INTERVAL_DAY_MINUTE, INTERVAL_DAY_SECOND, INTERVAL_HOUR,
          INTERVAL_HOUR_MINUTE, INTERVAL_HOUR_SECOND, INTERVAL_MINUTE, INTERVAL_MINUTE_SECOND,
          INTERVAL_SECOND -> b.setKind(DataType.Kind.INTERVAL_DAY_TIME);
      case NULL -> b.setKind(DataType.Kind.NULL_TYPE).setNullable(true);
      default -> throw PlanningException.unpositioned(PlanningException.Code.UNSUPPORTED,
          "Unsupported SQL: values of type " + type.getFullTypeString() + " are not supported by Squall");
    }
    return b.build();
  }

  /** A schema with the given names (same count as the row type's fields) and the row's types. */
  public static Schema schema(RelDataType rowType, List<String> names) {
    Schema.Builder schema = Schema.newBuilder();
    List<RelDataTypeField> fields = rowType.getFieldList();
    for (int i = 0; i < fields.size(); i++) {
      schema.addFields(Field.newBuilder().setName(names.get(i)).setType(toProto(fields.get(i).getType())));
    }
    return schema.build();
  }

  /** A schema with the row type's own field names. */
  public static Schema schema(RelDataType rowType) {
    return schema(rowType, rowType.getFieldNames());
  }

  private static int length(RelDataType type) {
    int precision = type.getPrecision();
    return precision == RelDataType.PRECISION_NOT_SPECIFIED || precision >= 65536 ? 0 : precision;
  }
}

package dev.squall.engine.types;

import dev.squall.engine.EngineException;
import dev.squall.proto.ArrowTypes;
import dev.squall.proto.v1.DataType;
import dev.squall.proto.v1.DataType.Kind;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A SQL type as the engine uses it: the plan-proto {@link Kind} with DECIMAL precision and scale.
 * Nullability is not tracked: every column may hold NULL.
 *
 * <p>Arrow mapping (types.proto): BOOLEAN→Bool, TINYINT..BIGINT→Int(8..64), REAL→Float4,
 * DOUBLE→Float8, DECIMAL→Decimal128(p, s), DATE→Date(DAY), TIMESTAMP→Timestamp(MICROSECOND),
 * VARCHAR→Utf8, VARBINARY→Binary, INTERVAL_DAY_TIME→Int(64) millis, INTERVAL_YEAR_MONTH→Int(32)
 * months, NULL_TYPE→Null.
 */
public record SqlType(Kind kind, int precision, int scale) {
  public static final SqlType BOOLEAN = new SqlType(Kind.BOOLEAN, 0, 0);
  public static final SqlType INTEGER = new SqlType(Kind.INTEGER, 0, 0);
  public static final SqlType BIGINT = new SqlType(Kind.BIGINT, 0, 0);
  public static final SqlType DOUBLE = new SqlType(Kind.DOUBLE, 0, 0);
  public static final SqlType DATE = new SqlType(Kind.DATE, 0, 0);
  public static final SqlType TIMESTAMP = new SqlType(Kind.TIMESTAMP, 0, 0);
  public static final SqlType VARCHAR = new SqlType(Kind.VARCHAR, 0, 0);

  public SqlType {
    if (kind == Kind.DECIMAL && (precision < 1 || precision > 38 || scale < 0 || scale > precision)) {
      throw EngineException.badPlan("DECIMAL(" + precision + ", " + scale + ") is outside DECIMAL(1..38, 0..p)");
    }
    if (kind != Kind.DECIMAL) {
      scale = 0;
      if (kind != Kind.VARCHAR && kind != Kind.VARBINARY) {
        precision = 0;
      }
    }
  }

  public static SqlType decimal(int precision, int scale) {
    return new SqlType(Kind.DECIMAL, precision, scale);
  }

  /** The engine type of a plan-proto type. */
  public static SqlType of(DataType type) {
    if (type.getKind() == Kind.KIND_UNSPECIFIED || type.getKind() == Kind.UNRECOGNIZED) {
      throw EngineException.badPlan("data type without a kind: " + type);
    }
    return new SqlType(type.getKind(), type.getPrecision(), type.getScale());
  }

  /** The plan-proto form, nullable. */
  public DataType toProto() {
    return DataType.newBuilder().setKind(kind).setPrecision(precision).setScale(scale).setNullable(true).build();
  }

  public boolean isIntegral() {
    return kind == Kind.TINYINT || kind == Kind.SMALLINT || kind == Kind.INTEGER || kind == Kind.BIGINT;
  }

  public boolean isFloating() {
    return kind == Kind.REAL || kind == Kind.DOUBLE;
  }

  public boolean isDecimal() {
    return kind == Kind.DECIMAL;
  }

  public boolean isNumeric() {
    return isIntegral() || isFloating() || isDecimal();
  }

  public boolean isString() {
    return kind == Kind.VARCHAR || kind == Kind.VARBINARY;
  }

  public boolean isInterval() {
    return kind == Kind.INTERVAL_DAY_TIME || kind == Kind.INTERVAL_YEAR_MONTH;
  }

  /** Which internal column class holds values of this type. */
  public Physical physical() {
    return switch (kind) {
      case BOOLEAN -> Physical.BOOL;
      case REAL, DOUBLE -> Physical.DOUBLE;
      case DECIMAL -> Physical.DECIMAL;
      case VARCHAR, VARBINARY -> Physical.BYTES;
      default -> Physical.LONG;
    };
  }

  /** Inclusive range of an integral type, for overflow checks. */
  public long minValue() {
    return switch (kind) {
      case TINYINT -> Byte.MIN_VALUE;
      case SMALLINT -> Short.MIN_VALUE;
      case INTEGER, INTERVAL_YEAR_MONTH, DATE -> Integer.MIN_VALUE;
      default -> Long.MIN_VALUE;
    };
  }

  public long maxValue() {
    return switch (kind) {
      case TINYINT -> Byte.MAX_VALUE;
      case SMALLINT -> Short.MAX_VALUE;
      case INTEGER, INTERVAL_YEAR_MONTH, DATE -> Integer.MAX_VALUE;
      default -> Long.MAX_VALUE;
    };
  }

  /** The Arrow type of this type ({@link ArrowTypes}, plan-proto's mapping). */
  public ArrowType arrowType() {
    try {
      return ArrowTypes.arrowType(toProto());
    } catch (IllegalArgumentException e) {
      throw EngineException.badPlan(e.getMessage());
    }
  }

  public Field arrowField(String name) {
    return new Field(name, FieldType.nullable(arrowType()), null);
  }

  /** The engine type of an Arrow field (the inverse of {@link #arrowType()}). */
  public static SqlType fromArrow(ArrowType type) {
    try {
      return of(ArrowTypes.dataType(type));
    } catch (IllegalArgumentException e) {
      throw EngineException.badPlan(e.getMessage());
    }
  }

  /** The Arrow schema of a plan-proto schema. */
  public static Schema arrowSchema(dev.squall.proto.v1.Schema schema) {
    try {
      return ArrowTypes.arrowSchema(schema);
    } catch (IllegalArgumentException e) {
      throw EngineException.badPlan(e.getMessage());
    }
  }

  /** The engine types of a plan-proto schema's columns. */
  public static List<SqlType> types(dev.squall.proto.v1.Schema schema) {
    List<SqlType> types = new ArrayList<>();
    for (dev.squall.proto.v1.Field f : schema.getFieldsList()) {
      types.add(of(f.getType()));
    }
    return types;
  }

  @Override
  public String toString() {
    return kind == Kind.DECIMAL ? "DECIMAL(" + precision + ", " + scale + ")" : kind.name();
  }

  /** The internal column representation of a type. */
  public enum Physical { BOOL, LONG, DOUBLE, DECIMAL, BYTES }
}

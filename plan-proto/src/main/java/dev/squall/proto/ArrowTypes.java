package dev.squall.proto;

import dev.squall.proto.v1.DataType;
import dev.squall.proto.v1.DataType.Kind;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The Arrow form of {@code squall.v1} types, as types.proto documents it: BOOLEAN→Bool,
 * TINYINT..BIGINT→Int(8..64), REAL→Float4, DOUBLE→Float8, DECIMAL(p, s)→Decimal128(p, s),
 * DATE→Date(DAY), TIMESTAMP→Timestamp(MICROSECOND), VARCHAR→Utf8, VARBINARY→Binary,
 * INTERVAL_DAY_TIME→Int(64) millis, INTERVAL_YEAR_MONTH→Int(32) months, NULL_TYPE→Null. Shuffle
 * objects and result streams are written in this form by tasks and read in it by the coordinator.
 */
public final class ArrowTypes {
  private ArrowTypes() {}

  /**
   * The Arrow type of a plan type.
   *
   * @throws IllegalArgumentException for a kind without an Arrow form (unset or unrecognized)
   */
  public static ArrowType arrowType(DataType type) {
    return switch (type.getKind()) {
      case BOOLEAN -> ArrowType.Bool.INSTANCE;
      case TINYINT -> new ArrowType.Int(8, true);
      case SMALLINT -> new ArrowType.Int(16, true);
      case INTEGER, INTERVAL_YEAR_MONTH -> new ArrowType.Int(32, true);
      case BIGINT, INTERVAL_DAY_TIME -> new ArrowType.Int(64, true);
      case REAL -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
      case DOUBLE -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case DECIMAL -> new ArrowType.Decimal(type.getPrecision(), type.getScale(), 128);
      case DATE -> new ArrowType.Date(DateUnit.DAY);
      case TIMESTAMP -> new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
      case VARCHAR -> ArrowType.Utf8.INSTANCE;
      case VARBINARY -> ArrowType.Binary.INSTANCE;
      case NULL_TYPE -> ArrowType.Null.INSTANCE;
      default -> throw new IllegalArgumentException("no Arrow type for " + type.getKind());
    };
  }

  /**
   * The plan type (nullable) of an Arrow type: the inverse of {@link #arrowType}, with 64-bit
   * integers read as BIGINT and 32-bit ones as INTEGER.
   *
   * @throws IllegalArgumentException for an Arrow type outside the mapping, naming it
   */
  public static DataType dataType(ArrowType type) {
    DataType.Builder t = DataType.newBuilder().setNullable(true);
    if (type instanceof ArrowType.Bool) {
      return t.setKind(Kind.BOOLEAN).build();
    } else if (type instanceof ArrowType.Int i) {
      return t.setKind(switch (i.getBitWidth()) {
        case 8 -> Kind.TINYINT;
        case 16 -> Kind.SMALLINT;
        case 32 -> Kind.INTEGER;
        default -> Kind.BIGINT;
      }).build();
    } else if (type instanceof ArrowType.FloatingPoint f) {
      return t.setKind(f.getPrecision() == FloatingPointPrecision.SINGLE ? Kind.REAL : Kind.DOUBLE).build();
    } else if (type instanceof ArrowType.Decimal d) {
      return t.setKind(Kind.DECIMAL).setPrecision(d.getPrecision()).setScale(d.getScale()).build();
    } else if (type instanceof ArrowType.Date) {
      return t.setKind(Kind.DATE).build();
    } else if (type instanceof ArrowType.Timestamp) {
      return t.setKind(Kind.TIMESTAMP).build();
    } else if (type instanceof ArrowType.Utf8) {
      return t.setKind(Kind.VARCHAR).build();
    } else if (type instanceof ArrowType.Binary) {
      return t.setKind(Kind.VARBINARY).build();
    } else if (type instanceof ArrowType.Null) {
      return t.setKind(Kind.NULL_TYPE).build();
    }
    throw new IllegalArgumentException("unsupported Arrow type " + type);
  }

  /** The Arrow schema (nullable fields, same names) of a plan schema. */
  public static Schema arrowSchema(dev.squall.proto.v1.Schema schema) {
    List<Field> fields = new ArrayList<>();
    for (dev.squall.proto.v1.Field f : schema.getFieldsList()) {
      fields.add(new Field(f.getName(), FieldType.nullable(arrowType(f.getType())), null));
    }
    return new Schema(fields);
  }
}

package dev.squall.planner.meta;

import java.util.Locale;
import java.util.stream.Collectors;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Column type names as Trino's Iceberg connector shows them (DESCRIBE, information_schema.columns,
 * SHOW CREATE TABLE): long → bigint, int → integer, float → real, string → varchar, binary and
 * fixed → varbinary, timestamp → timestamp(6), timestamptz → timestamp(6) with time zone, nested
 * types as row(...), array(...) and map(...).
 */
public final class TrinoTypeNames {
  private TrinoTypeNames() {}

  /** The Trino name of an Iceberg type. */
  public static String of(Type type) {
    return switch (type.typeId()) {
      case BOOLEAN -> "boolean";
      case INTEGER -> "integer";
      case LONG -> "bigint";
      case FLOAT -> "real";
      case DOUBLE -> "double";
      case DECIMAL -> {
        Types.DecimalType d = (Types.DecimalType) type;
        yield "decimal(" + d.precision() + ", " + d.scale() + ")";
      }
      case DATE -> "date";
      case TIME -> "time(6)";
      case TIMESTAMP -> ((Types.TimestampType) type).shouldAdjustToUTC()
          ? "timestamp(6) with time zone" : "timestamp(6)";
      case STRING -> "varchar";
      case UUID -> "uuid";
      case BINARY, FIXED -> "varbinary";
      case STRUCT -> type.asStructType().fields().stream()
          .map(f -> "\"" + f.name() + "\" " + of(f.type()))
          .collect(Collectors.joining(", ", "row(", ")"));
      case LIST -> "array(" + of(type.asListType().elementType()) + ")";
      case MAP -> "map(" + of(type.asMapType().keyType()) + ", " + of(type.asMapType().valueType()) + ")";
      default -> type.toString().toLowerCase(Locale.ROOT);
    };
  }
}

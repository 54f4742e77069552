package dev.squall.planner.sql;

import dev.squall.planner.meta.TrinoTypeNames;
import java.util.Locale;
import java.util.regex.Pattern;
import org.apache.calcite.rel.type.RelDataType;

/**
 * Type names as errors show them: SQL's upper-case names as Trino spells them ({@code BIGINT},
 * {@code VARCHAR}, {@code DECIMAL(15, 2)}), never an Iceberg or Java name ({@code long},
 * {@code string}) nor Calcite's {@code CHAR(n)}, which Calcite gives string literals: Squall has one
 * string type, VARCHAR, and a literal's length says nothing to the user.
 */
public final class SqlTypeNames {
  /** Calcite's fixed-length or length-bound string types, and its string family, in a message. */
  private static final Pattern CALCITE_STRING = Pattern.compile("\\b(?:CHAR|VARCHAR)\\(\\d+\\)|\\bCHARACTER\\b");

  private SqlTypeNames() {}

  /** The name of a Calcite type, without nullability: {@code VARCHAR}, {@code DECIMAL(15, 2)}. */
  public static String of(RelDataType type) {
    if (type.isStruct() && type.getFieldCount() == 1) {
      type = type.getFieldList().get(0).getType(); // a one-column sub-query
    }
    return switch (type.getSqlTypeName()) {
      case CHAR, VARCHAR -> "VARCHAR";
      case DECIMAL -> "DECIMAL(" + type.getPrecision() + ", " + type.getScale() + ")";
      case TIMESTAMP -> "TIMESTAMP";
      case BINARY, VARBINARY -> "VARBINARY";
      default -> type.getSqlTypeName().getName();
    };
  }

  /** The name of an Iceberg column type: {@code long} is {@code BIGINT}, {@code string} is {@code VARCHAR}. */
  public static String of(org.apache.iceberg.types.Type type) {
    return TrinoTypeNames.of(type).toUpperCase(Locale.ROOT);
  }

  /**
   * A Calcite validation message with its type names made SQL's: {@code <CHAR(1)>} and the string
   * family {@code <CHARACTER>} read {@code <VARCHAR>}.
   */
  public static String inMessage(String message) {
    return CALCITE_STRING.matcher(message).replaceAll("VARCHAR");
  }
}

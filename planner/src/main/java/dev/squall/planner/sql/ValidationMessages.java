package dev.squall.planner.sql;

import dev.squall.planner.PlanningException.Code;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.calcite.sql.SqlOperator;

/**
 * Calcite's validation messages in Trino's words, so that a user sees one wording whichever part
 * of Squall refused the statement: {@code Table 'tpch.nation2' does not exist},
 * {@code Column 'x' cannot be resolved}, {@code Function 'foo' not registered}, and SQL type names
 * ({@link SqlTypeNames}). Other messages keep Calcite's text.
 */
final class ValidationMessages {
  /** {@code Object 'nation2' not found within 'tpch'} or {@code Object 'nation2' not found}. */
  private static final Pattern OBJECT = Pattern.compile("Object '([^']*)' not found(?: within '([^']*)')?");
  /** {@code Table 'x' not found}. */
  private static final Pattern TABLE = Pattern.compile("Table '([^']*)' not found");
  /** {@code Column 'x' not found in any table} or {@code ... in table 't'}. */
  private static final Pattern COLUMN = Pattern.compile("Column '([^']*)' not found in (?:any table|table '([^']*)')");
  /** {@code No match found for function signature foo(<CHARACTER>, <NUMERIC>)}. */
  private static final Pattern SIGNATURE = Pattern.compile("No match found for function signature ([^(]+)\\((.*)\\)");

  private ValidationMessages() {}

  /**
   * The message to show for a Calcite validation failure.
   *
   * @param reason Calcite's message, without position
   * @param code how the failure was classified
   */
  static String trino(String reason, Code code) {
    Matcher m = OBJECT.matcher(reason);
    if (code == Code.UNKNOWN_TABLE && m.matches()) {
      return "Table '" + (m.group(2) == null ? "" : m.group(2) + ".") + m.group(1) + "' does not exist";
    }
    m = TABLE.matcher(reason);
    if (code == Code.UNKNOWN_TABLE && m.matches()) {
      return "Table '" + m.group(1) + "' does not exist";
    }
    m = COLUMN.matcher(reason);
    if (code == Code.UNKNOWN_COLUMN && m.matches()) {
      return "Column '" + (m.group(2) == null ? "" : m.group(2) + ".") + m.group(1) + "' cannot be resolved";
    }
    m = SIGNATURE.matcher(reason);
    if (m.matches()) {
      String name = m.group(1).toLowerCase(Locale.ROOT);
      return functionExists(name)
          ? "Unexpected parameters (" + SqlTypeNames.inMessage(m.group(2)).replace("<", "").replace(">", "")
              + ") for function " + name
          : "Function '" + name + "' not registered";
    }
    return SqlTypeNames.inMessage(reason);
  }

  /** Whether Squall has a function of this name (with any arguments). */
  static boolean functionExists(String name) {
    for (SqlOperator op : TrinoFunctions.INSTANCE.getOperatorList()) {
      if (op.getName().equalsIgnoreCase(name)) {
        return true;
      }
    }
    return false;
  }
}

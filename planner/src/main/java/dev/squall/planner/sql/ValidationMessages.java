package dev.squall.planner.sql;

import dev.squall.planner.PlanningException.Code;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.calcite.sql.SqlOperator;

/**
 * Calcite's validation messages in Trino's words, so that a user sees one wording whichever part
 * of Squall refused the statement: {@code Table 'tpch.nation2' does not exist},
 * {@code Column 'x' cannot be resolved}, {@code Function 'foo' not registered}, and SQL type names
 * ({@link SqlTypeNames}), {@code Cannot apply operator: DATE - INTEGER}, {@code Unexpected
 * parameters (VARCHAR) for function sum. Expected: sum(NUMERIC)}, {@code '2020-13-01' is not a
 * valid DATE literal}. Other messages keep Calcite's text.
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
  /**
   * {@code Cannot apply 'SUM' to arguments of type 'SUM(<VARCHAR>)'. Supported form(s): 'SUM(<NUMERIC>)'},
   * the forms one a line; for an operator the arguments read {@code '<DATE> - <INTEGER>'}.
   */
  private static final Pattern APPLY = Pattern.compile(
      "Cannot apply '([^']+)' to arguments of type '([^']*)'\\. Supported form\\(s\\): (.*)", Pattern.DOTALL);
  /** A type in one of Calcite's signatures: {@code <DECIMAL(15, 2)>}. */
  private static final Pattern TYPE = Pattern.compile("<([^>]+)>");
  /** {@code Illegal DATE literal '2020-13-01': not in format 'yyyy-MM-dd'}. */
  private static final Pattern LITERAL = Pattern.compile("Illegal ([A-Z ]+) literal '([^']*)'.*", Pattern.DOTALL);

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
    m = APPLY.matcher(reason);
    if (m.matches()) {
      return cannotApply(m.group(1), SqlTypeNames.inMessage(m.group(2)), SqlTypeNames.inMessage(m.group(3)));
    }
    m = LITERAL.matcher(reason);
    if (m.matches()) {
      return "'" + m.group(2) + "' is not a valid " + m.group(1) + " literal";
    }
    return SqlTypeNames.inMessage(reason);
  }

  /**
   * Trino's words for arguments an operator or function does not take: {@code Cannot apply
   * operator: DATE - INTEGER}, or {@code Unexpected parameters (VARCHAR) for function sum.
   * Expected: sum(NUMERIC)}.
   */
  private static String cannotApply(String operator, String arguments, String forms) {
    List<String> types = types(arguments);
    if (!arguments.startsWith(operator + "(")) {
      return "Cannot apply operator: " + (types.size() == 1 ? operator + types.get(0)
          : String.join(" " + operator + " ", types));
    }
    String name = operator.toLowerCase(Locale.ROOT);
    List<String> expected = new ArrayList<>();
    for (String form : forms.split("\n")) {
      expected.add(name + "(" + String.join(", ", types(form)) + ")");
    }
    return "Unexpected parameters (" + String.join(", ", types) + ") for function " + name + ". Expected: "
        + String.join(", ", expected);
  }

  /** The types of a Calcite signature, in order, without their angle brackets. */
  private static List<String> types(String signature) {
    List<String> types = new ArrayList<>();
    Matcher m = TYPE.matcher(signature);
    while (m.find()) {
      types.add(m.group(1));
    }
    return types;
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

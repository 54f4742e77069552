package dev.squall.planner.sql;

import dev.squall.planner.PlanningException;
import java.math.BigDecimal;
import java.util.Locale;
import java.util.Set;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.util.SqlBasicVisitor;
import org.apache.calcite.sql.validate.SqlValidator;

/**
 * Refuses, at validation and with its position, a CAST of a string literal to a number or a
 * boolean that can never succeed ({@code cast('abc' as integer)}): {@code line 1:8: Cannot cast
 * 'abc' to INTEGER}, as Trino words it (with Squall's type names). Without this the cast would
 * fail while the plan is folded or in a task, where the statement's text is no longer known.
 *
 * <p>The rules are the engine's for strings: leading and trailing spaces are ignored; integers
 * are decimal digits with an optional sign, DECIMAL any decimal number, REAL and DOUBLE also
 * {@code NaN} and {@code Infinity}, BOOLEAN {@code true/false/t/f/1/0/yes/no/y/n} in any case. A
 * value out of the type's range is left to the engine ("numeric overflow"). Casts inside
 * branches that may not run ({@code CASE}, {@code IF}, {@code COALESCE}, {@code NULLIF}, {@code
 * TRY}, AND, OR) are not checked: those fail only when evaluated.
 */
final class ConstantCasts extends SqlBasicVisitor<Void> {
  /** Calls whose operands are evaluated only under a condition. */
  private static final Set<SqlKind> CONDITIONAL = Set.of(SqlKind.CASE, SqlKind.COALESCE, SqlKind.NULLIF,
      SqlKind.AND, SqlKind.OR);
  private static final Set<String> CONDITIONAL_FUNCTIONS = Set.of("IF", "TRY");

  private final SqlValidator validator;

  private ConstantCasts(SqlValidator validator) {
    this.validator = validator;
  }

  /**
   * Checks a validated statement.
   *
   * @throws PlanningException VALIDATION_ERROR at the CAST
   */
  static void check(SqlNode validated, SqlValidator validator) {
    validated.accept(new ConstantCasts(validator));
  }

  @Override
  public Void visit(SqlCall call) {
    if (CONDITIONAL.contains(call.getKind())
        || CONDITIONAL_FUNCTIONS.contains(call.getOperator().getName().toUpperCase(Locale.ROOT))) {
      return null;
    }
    if (call.getKind() == SqlKind.CAST && call.operandCount() == 2
        && call.operand(0) instanceof SqlCharStringLiteral literal) {
      RelDataType type = validator.getValidatedNodeTypeIfKnown(call);
      String text = literal.getValueAs(String.class);
      if (type != null && !converts(text.strip(), type)) {
        SqlParserPos pos = call.getParserPosition();
        throw new PlanningException(PlanningException.Code.VALIDATION_ERROR, "Cannot cast '" + text + "' to "
            + SqlTypeNames.of(type), pos.getLineNum(), pos.getColumnNum());
      }
    }
    return super.visit(call);
  }

  /** Whether the engine's cast of {@code text} to {@code type} can succeed (true for other types). */
  private static boolean converts(String text, RelDataType type) {
    try {
      switch (type.getSqlTypeName()) {
        case TINYINT, SMALLINT, INTEGER, BIGINT -> {
          return text.matches("[+-]?[0-9]+");
        }
        case DECIMAL -> new BigDecimal(text);
        case REAL, FLOAT, DOUBLE -> Double.parseDouble(text);
        case BOOLEAN -> {
          return Set.of("true", "t", "1", "yes", "y", "false", "f", "0", "no", "n")
              .contains(text.toLowerCase(Locale.ROOT));
        }
        default -> { }
      }
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }
}

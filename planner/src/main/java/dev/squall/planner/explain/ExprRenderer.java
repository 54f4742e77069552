package dev.squall.planner.explain;

import dev.squall.proto.v1.Call;
import dev.squall.proto.v1.DataType;
import dev.squall.proto.v1.Expr;
import dev.squall.proto.v1.Literal;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.util.List;
import java.util.stream.Collectors;

/** Renders plan-proto expressions and types as short SQL-like text, naming input columns. */
public final class ExprRenderer {
  private final List<String> inputNames;

  /** @param inputNames names of the input columns, by index */
  public ExprRenderer(List<String> inputNames) {
    this.inputNames = inputNames;
  }

  public String render(Expr e) {
    return switch (e.getKindCase()) {
      case COLUMN -> e.getColumn() < inputNames.size() ? inputNames.get(e.getColumn()) : "$" + e.getColumn();
      case LITERAL -> literal(e.getLiteral(), e.getType());
      case CALL -> call(e.getCall(), e.getType());
      default -> "?";
    };
  }

  private String call(Call call, DataType type) {
    List<String> args = call.getArgsList().stream().map(this::render).toList();
    String name = call.getFunction().name();
    return switch (call.getFunction()) {
      case ADD -> infix("+", args);
      case SUBTRACT -> infix("-", args);
      case MULTIPLY -> infix("*", args);
      case DIVIDE -> infix("/", args);
      case EQUAL -> infix("=", args);
      case NOT_EQUAL -> infix("<>", args);
      case LESS_THAN -> infix("<", args);
      case LESS_THAN_OR_EQUAL -> infix("<=", args);
      case GREATER_THAN -> infix(">", args);
      case GREATER_THAN_OR_EQUAL -> infix(">=", args);
      case AND -> infix("AND", args);
      case OR -> infix("OR", args);
      case CAST -> "CAST(" + args.get(0) + " AS " + type(type) + ")";
      default -> name + "(" + String.join(", ", args) + ")";
    };
  }

  private static String infix(String op, List<String> args) {
    return args.stream().collect(Collectors.joining(" " + op + " ", "(", ")"));
  }

  /** A literal as SQL text. */
  public static String literal(Literal l, DataType type) {
    if (l.getIsNull()) {
      return "NULL";
    }
    return switch (l.getValueCase()) {
      case BOOL_VALUE -> Boolean.toString(l.getBoolValue()).toUpperCase();
      case LONG_VALUE -> switch (type.getKind()) {
        case INTERVAL_DAY_TIME -> "INTERVAL '" + l.getLongValue() + "' MILLISECOND";
        case INTERVAL_YEAR_MONTH -> "INTERVAL '" + l.getLongValue() + "' MONTH";
        default -> Long.toString(l.getLongValue());
      };
      case DOUBLE_VALUE -> Double.toString(l.getDoubleValue());
      case DECIMAL_UNSCALED -> new BigDecimal(new BigInteger(l.getDecimalUnscaled()), type.getScale()).toPlainString();
      case DATE_DAYS -> "DATE '" + LocalDate.ofEpochDay(l.getDateDays()) + "'";
      case TIMESTAMP_MICROS -> "TIMESTAMP(" + l.getTimestampMicros() + "us)";
      case STRING_VALUE -> "'" + l.getStringValue().replace("'", "''") + "'";
      case BINARY_VALUE -> "X'" + java.util.HexFormat.of().formatHex(l.getBinaryValue().toByteArray()) + "'";
      default -> "?";
    };
  }

  /** A type as SQL text, e.g. {@code DECIMAL(15, 2)}, with {@code NOT NULL} when not nullable. */
  public static String type(DataType t) {
    String base = switch (t.getKind()) {
      case DECIMAL -> "DECIMAL(" + t.getPrecision() + ", " + t.getScale() + ")";
      case VARCHAR, VARBINARY -> t.getPrecision() > 0 ? t.getKind() + "(" + t.getPrecision() + ")" : t.getKind().name();
      default -> t.getKind().name();
    };
    return t.getNullable() ? base : base + " NOT NULL";
  }
}

package dev.squall.engine.testing;

import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.Call;
import dev.squall.proto.v1.DataType.Kind;
import dev.squall.proto.v1.Expr;
import dev.squall.proto.v1.Function;
import dev.squall.proto.v1.Literal;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/**
 * A test expression built twice at once: as a plan-proto {@link Expr} (typed by Calcite's rules)
 * and as the equivalent DuckDB SQL text.
 */
public record X(Expr expr, String sql, SqlType type) {
  static Expr.Builder typed(SqlType t) {
    return Expr.newBuilder().setType(t.toProto());
  }

  public static X column(int index, String name, SqlType type) {
    return new X(typed(type).setColumn(index).build(), name, type);
  }

  // ---- literals ----
  public static X lit(long v) {
    SqlType t = v == (int) v ? SqlType.INTEGER : SqlType.BIGINT;
    return new X(typed(t).setLiteral(Literal.newBuilder().setLongValue(v)).build(), Long.toString(v), t);
  }

  public static X dec(String v) {
    BigDecimal d = new BigDecimal(v);
    int p = Math.max(d.precision(), d.scale() + 1);
    SqlType t = SqlType.decimal(p, d.scale());
    return new X(typed(t).setLiteral(Literal.newBuilder().setDecimalUnscaled(d.unscaledValue().toString())).build(),
        "CAST('" + v + "' AS DECIMAL(" + p + "," + d.scale() + "))", t);
  }

  public static X dbl(double v) {
    return new X(typed(SqlType.DOUBLE).setLiteral(Literal.newBuilder().setDoubleValue(v)).build(),
        "CAST(" + v + " AS DOUBLE)", SqlType.DOUBLE);
  }

  public static X str(String v) {
    return new X(typed(SqlType.VARCHAR).setLiteral(Literal.newBuilder().setStringValue(v)).build(),
        "'" + v.replace("'", "''") + "'", SqlType.VARCHAR);
  }

  public static X date(String iso) {
    return new X(typed(SqlType.DATE).setLiteral(Literal.newBuilder().setDateDays((int) LocalDate.parse(iso).toEpochDay())).build(),
        "DATE '" + iso + "'", SqlType.DATE);
  }

  public static X bool(boolean v) {
    return new X(typed(SqlType.BOOLEAN).setLiteral(Literal.newBuilder().setBoolValue(v)).build(), v ? "TRUE" : "FALSE", SqlType.BOOLEAN);
  }

  public static X nullOf(SqlType t) {
    return new X(typed(t).setLiteral(Literal.newBuilder().setIsNull(true)).build(), "CAST(NULL AS " + sqlType(t) + ")", t);
  }

  public static X daysInterval(long days) {
    SqlType t = new SqlType(Kind.INTERVAL_DAY_TIME, 0, 0);
    return new X(typed(t).setLiteral(Literal.newBuilder().setLongValue(days * 86_400_000L)).build(), "INTERVAL " + days + " DAY", t);
  }

  public static X monthsInterval(long months) {
    SqlType t = new SqlType(Kind.INTERVAL_YEAR_MONTH, 0, 0);
    return new X(typed(t).setLiteral(Literal.newBuilder().setLongValue(months)).build(), "INTERVAL " + months + " MONTH", t);
  }

  public static String sqlType(SqlType t) {
    return switch (t.kind()) {
      case DECIMAL -> "DECIMAL(" + t.precision() + "," + t.scale() + ")";
      case VARCHAR -> "VARCHAR";
      case DOUBLE -> "DOUBLE";
      case REAL -> "REAL";
      case INTEGER -> "INTEGER";
      case BIGINT -> "BIGINT";
      case SMALLINT -> "SMALLINT";
      case TINYINT -> "TINYINT";
      case BOOLEAN -> "BOOLEAN";
      case DATE -> "DATE";
      case TIMESTAMP -> "TIMESTAMP";
      default -> t.kind().name();
    };
  }

  static X call(Function f, SqlType type, String sql, X... args) {
    Call.Builder c = Call.newBuilder().setFunction(f);
    for (X a : args) {
      c.addArgs(a.expr);
    }
    return new X(typed(type).setCall(c).build(), sql, type);
  }

  // ---- arithmetic (Calcite's result types) ----
  private static SqlType asDecimal(SqlType t) {
    return switch (t.kind()) {
      case TINYINT -> SqlType.decimal(3, 0);
      case SMALLINT -> SqlType.decimal(5, 0);
      case INTEGER -> SqlType.decimal(10, 0);
      case BIGINT -> SqlType.decimal(19, 0);
      default -> t;
    };
  }

  static SqlType arithmeticType(Function f, SqlType a, SqlType b) {
    if (a.isFloating() || b.isFloating()) {
      return SqlType.DOUBLE;
    }
    if (a.isIntegral() && b.isIntegral()) {
      return a.kind() == Kind.BIGINT || b.kind() == Kind.BIGINT ? SqlType.BIGINT : SqlType.INTEGER;
    }
    SqlType x = asDecimal(a);
    SqlType y = asDecimal(b);
    int p1 = x.precision(), s1 = x.scale(), p2 = y.precision(), s2 = y.scale();
    int p;
    int s;
    switch (f) {
      case ADD, SUBTRACT -> {
        s = Math.max(s1, s2);
        p = Math.max(p1 - s1, p2 - s2) + s + 1;
      }
      case MULTIPLY -> {
        s = s1 + s2;
        p = p1 + p2;
      }
      case DIVIDE -> { // Trino's rule, as the planner's type system
        s = Math.max(s1, s2);
        p = p1 + s2 + Math.max(0, s2 - s1);
      }
      default -> {
        s = Math.max(s1, s2);
        p = Math.max(p1 - s1, p2 - s2) + s;
      }
    }
    return SqlType.decimal(Math.min(p, 38), Math.min(s, Math.min(p, 38)));
  }

  public X plus(X b) {
    return call(Function.ADD, arithmeticType(Function.ADD, type, b.type), "(" + sql + " + " + b.sql + ")", this, b);
  }

  public X minus(X b) {
    return call(Function.SUBTRACT, arithmeticType(Function.SUBTRACT, type, b.type), "(" + sql + " - " + b.sql + ")", this, b);
  }

  public X times(X b) {
    return call(Function.MULTIPLY, arithmeticType(Function.MULTIPLY, type, b.type), "(" + sql + " * " + b.sql + ")", this, b);
  }

  /** Division; integer division is written {@code //} for DuckDB (both truncate for non-negative operands). */
  public X div(X b) {
    SqlType t = arithmeticType(Function.DIVIDE, type, b.type);
    String op = t.isIntegral() ? " // " : " / ";
    return call(Function.DIVIDE, t, "(" + sql + op + b.sql + ")", this, b);
  }

  public X mod(X b) {
    return call(Function.MOD, arithmeticType(Function.MOD, type, b.type), "(" + sql + " % " + b.sql + ")", this, b);
  }

  public X neg() {
    return call(Function.NEGATE, type, "(-" + sql + ")", this);
  }

  public X abs() {
    return call(Function.ABS, type, "abs(" + sql + ")", this);
  }

  public X cast(SqlType t) {
    return call(Function.CAST, t, "CAST(" + sql + " AS " + sqlType(t) + ")", this);
  }

  // ---- comparisons and logic ----
  private X cmp(Function f, String op, X b) {
    return call(f, SqlType.BOOLEAN, "(" + sql + " " + op + " " + b.sql + ")", this, b);
  }

  public X eq(X b) { return cmp(Function.EQUAL, "=", b); }
  public X ne(X b) { return cmp(Function.NOT_EQUAL, "<>", b); }
  public X lt(X b) { return cmp(Function.LESS_THAN, "<", b); }
  public X le(X b) { return cmp(Function.LESS_THAN_OR_EQUAL, "<=", b); }
  public X gt(X b) { return cmp(Function.GREATER_THAN, ">", b); }
  public X ge(X b) { return cmp(Function.GREATER_THAN_OR_EQUAL, ">=", b); }
  public X distinctFrom(X b) { return cmp(Function.IS_DISTINCT_FROM, "IS DISTINCT FROM", b); }
  public X notDistinctFrom(X b) { return cmp(Function.IS_NOT_DISTINCT_FROM, "IS NOT DISTINCT FROM", b); }

  public static X and(X... xs) {
    return junction(Function.AND, " AND ", xs);
  }

  public static X or(X... xs) {
    return junction(Function.OR, " OR ", xs);
  }

  private static X junction(Function f, String op, X... xs) {
    List<String> parts = new ArrayList<>();
    for (X x : xs) {
      parts.add(x.sql);
    }
    return call(f, SqlType.BOOLEAN, "(" + String.join(op, parts) + ")", xs);
  }

  /** One n-ary ADD of all terms, every step in {@code type} (DuckDB reads it as a + b + c ...). */
  public static X sum(SqlType type, X... xs) {
    return chain(Function.ADD, type, " + ", xs);
  }

  /** One n-ary MULTIPLY of all terms, every step in {@code type}. */
  public static X product(SqlType type, X... xs) {
    return chain(Function.MULTIPLY, type, " * ", xs);
  }

  private static X chain(Function f, SqlType type, String op, X... xs) {
    List<String> parts = new ArrayList<>();
    for (X x : xs) {
      parts.add(x.sql);
    }
    return call(f, type, "(" + String.join(op, parts) + ")", xs);
  }

  public X orElse(X b) { return or(this, b); }

  public X not() { return call(Function.NOT, SqlType.BOOLEAN, "(NOT " + sql + ")", this); }
  public X isNull() { return call(Function.IS_NULL, SqlType.BOOLEAN, "(" + sql + " IS NULL)", this); }
  public X isNotNull() { return call(Function.IS_NOT_NULL, SqlType.BOOLEAN, "(" + sql + " IS NOT NULL)", this); }
  public X isTrue() { return call(Function.IS_TRUE, SqlType.BOOLEAN, "(" + sql + " IS TRUE)", this); }
  public X isNotFalse() { return call(Function.IS_NOT_FALSE, SqlType.BOOLEAN, "(" + sql + " IS NOT FALSE)", this); }

  public X between(X lo, X hi) {
    return call(Function.BETWEEN, SqlType.BOOLEAN, "(" + sql + " BETWEEN " + lo.sql + " AND " + hi.sql + ")", this, lo, hi);
  }

  public X in(X... items) {
    List<String> parts = new ArrayList<>();
    X[] args = new X[items.length + 1];
    args[0] = this;
    for (int i = 0; i < items.length; i++) {
      parts.add(items[i].sql);
      args[i + 1] = items[i];
    }
    return call(Function.IN, SqlType.BOOLEAN, "(" + sql + " IN (" + String.join(", ", parts) + "))", args);
  }

  /** CASE WHEN w1 THEN t1 ... ELSE e END (e may be null). */
  public static X caseWhen(SqlType type, X otherwise, X... whenThen) {
    StringBuilder s = new StringBuilder("(CASE");
    List<X> args = new ArrayList<>();
    for (int i = 0; i < whenThen.length; i += 2) {
      s.append(" WHEN ").append(whenThen[i].sql).append(" THEN ").append(whenThen[i + 1].sql);
      args.add(whenThen[i]);
      args.add(whenThen[i + 1]);
    }
    if (otherwise != null) {
      s.append(" ELSE ").append(otherwise.sql);
      args.add(otherwise);
    }
    s.append(" END)");
    return call(Function.CASE, type, s.toString(), args.toArray(new X[0]));
  }

  public static X coalesce(SqlType type, X... xs) {
    List<String> parts = new ArrayList<>();
    for (X x : xs) {
      parts.add(x.sql);
    }
    return call(Function.COALESCE, type, "coalesce(" + String.join(", ", parts) + ")", xs);
  }

  public X nullIf(X b) {
    return call(Function.NULLIF, type, "nullif(" + sql + ", " + b.sql + ")", this, b);
  }

  // ---- strings ----
  public X like(String pattern) {
    return call(Function.LIKE, SqlType.BOOLEAN, "(" + sql + " LIKE " + str(pattern).sql + ")", this, str(pattern));
  }

  public X like(String pattern, String escape) {
    return call(Function.LIKE, SqlType.BOOLEAN, "(" + sql + " LIKE " + str(pattern).sql + " ESCAPE " + str(escape).sql + ")",
        this, str(pattern), str(escape));
  }

  public X substring(int start, int length) {
    return call(Function.SUBSTRING, SqlType.VARCHAR, "substring(" + sql + ", " + start + ", " + length + ")", this, lit(start), lit(length));
  }

  public X upper() { return call(Function.UPPER, SqlType.VARCHAR, "upper(" + sql + ")", this); }
  public X lower() { return call(Function.LOWER, SqlType.VARCHAR, "lower(" + sql + ")", this); }
  public X charLength() { return call(Function.CHAR_LENGTH, SqlType.INTEGER, "length(" + sql + ")", this); }
  public X concat(X b) { return call(Function.CONCAT, SqlType.VARCHAR, "(" + sql + " || " + b.sql + ")", this, b); }

  public X trim(String mode, String chars) {
    return call(Function.TRIM, SqlType.VARCHAR, "trim(" + mode + " " + str(chars).sql + " FROM " + sql + ")", str(mode), str(chars), this);
  }

  // ---- dates ----
  public X year() { return call(Function.EXTRACT_YEAR, SqlType.BIGINT, "extract(year FROM " + sql + ")", this); }
  public X month() { return call(Function.EXTRACT_MONTH, SqlType.BIGINT, "extract(month FROM " + sql + ")", this); }
  public X day() { return call(Function.EXTRACT_DAY, SqlType.BIGINT, "extract(day FROM " + sql + ")", this); }
  public X quarter() { return call(Function.EXTRACT_QUARTER, SqlType.BIGINT, "extract(quarter FROM " + sql + ")", this); }
  /** Day of week 1 = Sunday .. 7 = Saturday; DuckDB's dayofweek is 0 = Sunday. */
  public X dow() { return call(Function.EXTRACT_DOW, SqlType.BIGINT, "(extract(dow FROM " + sql + ") + 1)", this); }

  public X plusInterval(X interval) {
    return call(Function.DATE_PLUS_INTERVAL, SqlType.DATE, "CAST(" + sql + " + " + interval.sql + " AS DATE)", this, interval);
  }

  public X minusInterval(X interval) {
    return call(Function.DATE_MINUS_INTERVAL, SqlType.DATE, "CAST(" + sql + " - " + interval.sql + " AS DATE)", this, interval);
  }
}

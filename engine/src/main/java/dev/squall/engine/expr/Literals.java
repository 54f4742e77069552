package dev.squall.engine.expr;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.BoolColumn;
import dev.squall.engine.column.BytesColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.column.DoubleColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.Literal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;

/** Plan-proto literals as constant columns. */
public final class Literals {
  private Literals() {}

  /** A column of {@code n} copies of a literal of the given type. */
  public static Column column(Literal lit, SqlType type, int n) {
    if (lit.getIsNull() || lit.getValueCase() == Literal.ValueCase.VALUE_NOT_SET) {
      return Column.nulls(type, n);
    }
    return repeated(single(lit, type), type, n);
  }

  /** A column of {@code n} copies of row 0 of the one-row column {@code one}. */
  static Column repeated(Column one, SqlType type, int n) {
    return one.isNull(0) ? Column.nulls(type, n) : one.gather(new int[n], n);
  }

  private static Column single(Literal lit, SqlType type) {
    switch (lit.getValueCase()) {
      case BOOL_VALUE:
        return new BoolColumn(type, new boolean[] {lit.getBoolValue()}, null, 1);
      case LONG_VALUE:
        return fromLong(lit.getLongValue(), type);
      case DATE_DAYS:
        return fromLong(lit.getDateDays(), type);
      case TIMESTAMP_MICROS:
        return fromLong(lit.getTimestampMicros(), type);
      case DOUBLE_VALUE:
        if (type.isDecimal()) {
          return Casts.cast(new DoubleColumn(SqlType.DOUBLE, new double[] {lit.getDoubleValue()}, null, 1), type);
        }
        return new DoubleColumn(type, new double[] {lit.getDoubleValue()}, null, 1);
      case DECIMAL_UNSCALED: {
        BigInteger u = new BigInteger(lit.getDecimalUnscaled());
        if (!type.isDecimal()) {
          SqlType asDecimal = SqlType.decimal(38, 0);
          DecimalColumn d = new DecimalColumn(asDecimal, new long[1], null, null, 1);
          d.setBig(0, u);
          return Casts.cast(d, type);
        }
        DecimalColumn d = new DecimalColumn(type, new long[1], null, null, 1);
        d.setBig(0, u);
        return d;
      }
      case STRING_VALUE: {
        byte[] utf8 = lit.getStringValue().getBytes(StandardCharsets.UTF_8);
        return type.isString() ? BytesColumn.of(type, utf8) : Casts.cast(BytesColumn.of(SqlType.VARCHAR, utf8), type);
      }
      case BINARY_VALUE:
        return BytesColumn.of(type, lit.getBinaryValue().toByteArray());
      default:
        throw EngineException.badPlan("literal without a value: " + lit);
    }
  }

  private static Column fromLong(long v, SqlType type) {
    return switch (type.physical()) {
      case LONG -> new LongColumn(type, new long[] {v}, null, 1);
      case DOUBLE -> new DoubleColumn(type, new double[] {v}, null, 1);
      case DECIMAL -> Casts.cast(new LongColumn(SqlType.BIGINT, new long[] {v}, null, 1), type);
      default -> throw EngineException.badPlan("integer literal " + v + " of type " + type);
    };
  }

  /**
   * The first {@code n} rows of a constant column ({@code n <= c.size()}) sharing its arrays, or
   * null for a kind that cannot be viewed so (a decimal beyond the long range). Every row of a
   * constant is the same value, so any prefix is the constant at {@code n} rows.
   */
  static Column prefix(Column c, int n) {
    if (n == c.size()) {
      return c;
    }
    boolean[] nulls = c.nullMask();
    if (c instanceof LongColumn l) {
      return new LongColumn(l.type(), l.values(), nulls, n);
    } else if (c instanceof DecimalColumn d) {
      return d.hasBig() ? null : new DecimalColumn(d.type(), d.unscaledValues(), null, nulls, n);
    } else if (c instanceof DoubleColumn d) {
      return new DoubleColumn(d.type(), d.values(), nulls, n);
    } else if (c instanceof BoolColumn b) {
      return new BoolColumn(b.type(), b.values(), nulls, n);
    } else if (c instanceof BytesColumn b && !b.isDictionary()) {
      return new BytesColumn(b.type(), b.data(), b.offsets(), nulls, n);
    }
    return null;
  }

  /**
   * A literal evaluator. The constant column is built once for the largest batch seen, and a
   * smaller batch (a filter's selection, of a different size each batch) gets a view of its first
   * rows rather than a new column.
   */
  static final class Constant implements Evaluator {
    private final SqlType type;
    private Column cached;

    private final Column one;

    Constant(Literal literal, SqlType type) {
      this(column(literal, type, 1), type); // validates now, not at the first batch
    }

    /** The constant whose value is row 0 of the one-row column {@code one}. */
    Constant(Column one, SqlType type) {
      this.type = type;
      this.one = one;
    }

    /** The literal as a one-row column, for evaluators that compare or combine with a scalar. */
    Column one() {
      return one;
    }

    @Override
    public SqlType type() {
      return type;
    }

    @Override
    public Column evaluate(Batch batch) {
      int n = batch.rows();
      Column c = cached;
      if (c != null && n <= c.size()) {
        Column view = prefix(c, n);
        if (view != null) {
          return view;
        }
      }
      c = repeated(one, type, n);
      cached = c;
      return c;
    }
  }
}

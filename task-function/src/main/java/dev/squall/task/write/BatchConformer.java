package dev.squall.task.write;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.DataType;
import dev.squall.proto.v1.ErrorCode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Checks an engine batch against the table schema before it is written, column at a time: column
 * {@code i} of the batch is the table's top-level field {@code i}, its engine type must map to the
 * field's Iceberg type, required fields hold no NULL, integers fit an {@code int} column, and
 * decimals fit the column's precision. A decimal column of another scale is brought to the table
 * column's scale (exactly, or refused when fraction digits would be lost).
 *
 * <p>Engine type → Iceberg type: TINYINT..BIGINT → int, long; REAL → float, double; DOUBLE →
 * double; DECIMAL → decimal; DATE → date; TIMESTAMP (micros, no zone) → timestamp and timestamptz
 * (taken as UTC); VARCHAR → string; VARBINARY → binary; BOOLEAN → boolean; a NULL-typed column →
 * any optional column.
 */
final class BatchConformer {
  private final Schema schema;
  private final List<Types.NestedField> fields;

  /**
   * @throws EngineException INTERNAL_ERROR when the table has a nested column (not written)
   */
  BatchConformer(Schema schema) {
    this.schema = schema;
    this.fields = schema.columns();
    for (Types.NestedField f : fields) {
      if (!f.type().isPrimitiveType()) {
        throw new EngineException(ErrorCode.INTERNAL_ERROR,
            "column " + f.name() + " has nested type " + f.type() + "; writer tasks write primitive columns only");
      }
    }
  }

  /**
   * The batch's columns as they are written: the same columns, except decimals of another scale,
   * which are rescaled.
   *
   * @throws EngineException INTERNAL_ERROR when the column count or a column's type does not match
   *     the table (a plan error); USER_ERROR for a NULL in a required column or a value that does not
   *     fit its column, naming the column
   */
  Column[] conform(Column[] columns, int rows) {
    if (columns.length != fields.size()) {
      throw new EngineException(ErrorCode.INTERNAL_ERROR, "the fragment's batches have "
          + columns.length + " columns for the table's " + fields.size() + " columns " + schema.asStruct());
    }
    Column[] out = columns;
    for (int c = 0; c < columns.length; c++) {
      Types.NestedField field = fields.get(c);
      Column column = columns[c];
      DataType.Kind kind = column.type().kind();
      if (kind == DataType.Kind.NULL_TYPE) {
        if (field.isRequired() && rows > 0) {
          throw requiredNull(field);
        }
        continue;
      }
      if (!writable(kind, field.type())) {
        throw new EngineException(ErrorCode.INTERNAL_ERROR, "column " + field.name() + ": values of type "
            + column.type() + " cannot be written to Iceberg type " + field.type());
      }
      if (field.isRequired() && column.mayHaveNulls()) {
        boolean[] nulls = column.nullMask();
        for (int i = 0; i < rows; i++) {
          if (nulls[i]) {
            throw requiredNull(field);
          }
        }
      }
      if (field.type().typeId() == Type.TypeID.INTEGER && kind == DataType.Kind.BIGINT) {
        checkIntRange((LongColumn) column, rows, field);
      } else if (field.type() instanceof Types.DecimalType decimal) {
        Column conformed = decimal((DecimalColumn) column, rows, decimal, field);
        if (conformed != column) {
          if (out == columns) {
            out = columns.clone();
          }
          out[c] = conformed;
        }
      }
    }
    return out;
  }

  private static boolean writable(DataType.Kind kind, Type type) {
    return switch (type.typeId()) {
      case LONG, INTEGER -> kind == DataType.Kind.TINYINT || kind == DataType.Kind.SMALLINT
          || kind == DataType.Kind.INTEGER || kind == DataType.Kind.BIGINT;
      case FLOAT -> kind == DataType.Kind.REAL;
      case DOUBLE -> kind == DataType.Kind.DOUBLE || kind == DataType.Kind.REAL;
      case DECIMAL -> kind == DataType.Kind.DECIMAL;
      case STRING -> kind == DataType.Kind.VARCHAR;
      case BINARY -> kind == DataType.Kind.VARBINARY;
      case BOOLEAN -> kind == DataType.Kind.BOOLEAN;
      case DATE -> kind == DataType.Kind.DATE;
      case TIMESTAMP -> kind == DataType.Kind.TIMESTAMP;
      default -> false;
    };
  }

  private static void checkIntRange(LongColumn column, int rows, Types.NestedField field) {
    long[] values = column.values();
    for (int i = 0; i < rows; i++) {
      long x = values[i];
      if ((x < Integer.MIN_VALUE || x > Integer.MAX_VALUE) && !column.isNull(i)) {
        throw EngineException.user("value " + x + " is out of range for int column " + field.name());
      }
    }
  }

  /** The column at the table's scale, every value checked against the table's precision. */
  private static Column decimal(DecimalColumn column, int rows, Types.DecimalType type, Types.NestedField field) {
    if (column.scale() != type.scale()) {
      return rescaled(column, rows, type, field);
    }
    long[] unscaled = column.unscaledValues();
    // Every long has at most 19 digits: only precisions up to 18 need a check of the long rows.
    long bound = type.precision() <= 18 ? BigInteger.TEN.pow(type.precision()).longValueExact() : 0;
    for (int i = 0; i < rows; i++) {
      if (column.isNull(i)) {
        continue;
      }
      if (column.isBig(i)) {
        checkPrecision(column.unscaledBig(i), column, i, type, field);
      } else if (bound != 0 && (unscaled[i] >= bound || unscaled[i] <= -bound)) {
        throw doesNotFit(column.decimal(i), type, field);
      }
    }
    return column;
  }

  private static Column rescaled(DecimalColumn column, int rows, Types.DecimalType type, Types.NestedField field) {
    DecimalColumn out = (DecimalColumn) Column.empty(SqlType.decimal(type.precision(), type.scale()), rows);
    for (int i = 0; i < rows; i++) {
      if (column.isNull(i)) {
        out.appendNull();
        continue;
      }
      BigDecimal value = column.decimal(i);
      BigDecimal scaled;
      try {
        scaled = value.setScale(type.scale(), RoundingMode.UNNECESSARY);
      } catch (ArithmeticException e) {
        throw EngineException.user("value " + value + " has more than " + type.scale()
            + " fraction digits for column " + field.name() + " " + type);
      }
      if (scaled.precision() > type.precision()) {
        throw doesNotFit(value, type, field);
      }
      out.appendUnscaled(scaled.unscaledValue());
    }
    return out;
  }

  private static void checkPrecision(BigInteger unscaled, DecimalColumn column, int row, Types.DecimalType type,
      Types.NestedField field) {
    if (unscaled.abs().compareTo(BigInteger.TEN.pow(type.precision())) >= 0) {
      throw doesNotFit(column.decimal(row), type, field);
    }
  }

  private static EngineException doesNotFit(BigDecimal value, Types.DecimalType type, Types.NestedField field) {
    return EngineException.user("value " + value + " does not fit column " + field.name() + " " + type);
  }

  private static EngineException requiredNull(Types.NestedField field) {
    return EngineException.user("NULL value in column " + field.name() + ", which is required (NOT NULL)");
  }
}

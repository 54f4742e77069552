package dev.squall.shuffle.partition;

import dev.squall.proto.v1.Literal;
import dev.squall.proto.v1.SortKey;
import dev.squall.proto.v1.Values;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.IntervalYearVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;

/**
 * Compares one sort-key column of a row with the same key of each range bound, in the key's
 * order (direction and null placement applied). Bound literals are decoded once, by type.
 */
abstract class BoundComparator {
  private final boolean descending;
  private final boolean nullsFirst;
  private final boolean[] boundNull;
  protected FieldVector vector;

  private BoundComparator(SortKey key, boolean[] boundNull) {
    this.descending = key.getDescending();
    this.nullsFirst = key.getNullsFirst();
    this.boundNull = boundNull;
  }

  void rebind(FieldVector vector) {
    this.vector = vector;
  }

  /** Negative, zero or positive as the row's key sorts before, with or after bound {@code b}. */
  final int compare(int row, int b) {
    boolean rowNull = vector.isNull(row);
    if (rowNull || boundNull[b]) {
      if (rowNull && boundNull[b]) {
        return 0;
      }
      return rowNull == nullsFirst ? -1 : 1;
    }
    int c = compareValue(row, b);
    return descending ? -c : c;
  }

  /** Ascending comparison of two non-null values. */
  abstract int compareValue(int row, int b);

  static BoundComparator create(FieldVector vector, SortKey key, int keyIndex, List<Values.Row> bounds) {
    int n = bounds.size();
    boolean[] nulls = new boolean[n];
    Literal[] literals = new Literal[n];
    for (int b = 0; b < n; b++) {
      literals[b] = bounds.get(b).getValues(keyIndex);
      nulls[b] = literals[b].getIsNull();
    }
    String where = "range key " + keyIndex + " (column " + key.getColumn() + " '" + vector.getName() + "')";
    switch (vector.getMinorType()) {
      case BIT:
      case TINYINT:
      case SMALLINT:
      case INT:
      case BIGINT:
      case DATEDAY:
      case TIMESTAMPMICRO:
      case INTERVALYEAR:
      case DURATION: {
        long[] values = new long[n];
        for (int b = 0; b < n; b++) {
          if (!nulls[b]) {
            values[b] = longOf(literals[b], vector.getMinorType(), where, b);
          }
        }
        return new LongKeys(key, nulls, values, vector.getMinorType());
      }
      case FLOAT4:
      case FLOAT8: {
        double[] values = new double[n];
        for (int b = 0; b < n; b++) {
          if (!nulls[b]) {
            expect(literals[b], Literal.ValueCase.DOUBLE_VALUE, where, b);
            values[b] = literals[b].getDoubleValue();
          }
        }
        return new DoubleKeys(key, nulls, values);
      }
      case DECIMAL: {
        long[] high = new long[n];
        long[] low = new long[n];
        for (int b = 0; b < n; b++) {
          if (!nulls[b]) {
            expect(literals[b], Literal.ValueCase.DECIMAL_UNSCALED, where, b);
            BigInteger unscaled;
            try {
              unscaled = new BigInteger(literals[b].getDecimalUnscaled());
            } catch (NumberFormatException e) {
              throw new IllegalArgumentException("Bound " + b + " of " + where + " is not a decimal unscaled value: '"
                  + literals[b].getDecimalUnscaled() + "'", e);
            }
            if (unscaled.bitLength() > 127) {
              throw new IllegalArgumentException("Bound " + b + " of " + where + " does not fit DECIMAL(38): " + unscaled);
            }
            low[b] = unscaled.longValue();
            high[b] = unscaled.shiftRight(64).longValue();
          }
        }
        return new DecimalKeys(key, nulls, high, low);
      }
      case VARCHAR:
      case VARBINARY: {
        byte[][] values = new byte[n][];
        boolean text = vector.getMinorType() == org.apache.arrow.vector.types.Types.MinorType.VARCHAR;
        for (int b = 0; b < n; b++) {
          if (!nulls[b]) {
            if (text) {
              expect(literals[b], Literal.ValueCase.STRING_VALUE, where, b);
              values[b] = literals[b].getStringValue().getBytes(StandardCharsets.UTF_8);
            } else {
              expect(literals[b], Literal.ValueCase.BINARY_VALUE, where, b);
              values[b] = literals[b].getBinaryValue().toByteArray();
            }
          }
        }
        return new BytesKeys(key, nulls, values);
      }
      default:
        throw new IllegalArgumentException("Cannot range-partition on " + where + " of Arrow type "
            + vector.getField().getType());
    }
  }

  private static long longOf(Literal literal, org.apache.arrow.vector.types.Types.MinorType type, String where, int b) {
    switch (type) {
      case BIT:
        expect(literal, Literal.ValueCase.BOOL_VALUE, where, b);
        return literal.getBoolValue() ? 1 : 0;
      case DATEDAY:
        expect(literal, Literal.ValueCase.DATE_DAYS, where, b);
        return literal.getDateDays();
      case TIMESTAMPMICRO:
        expect(literal, Literal.ValueCase.TIMESTAMP_MICROS, where, b);
        return literal.getTimestampMicros();
      default:
        expect(literal, Literal.ValueCase.LONG_VALUE, where, b);
        return literal.getLongValue();
    }
  }

  private static void expect(Literal literal, Literal.ValueCase expected, String where, int b) {
    if (literal.getValueCase() != expected) {
      throw new IllegalArgumentException("Bound " + b + " of " + where + " must be a " + expected
          + " literal, got " + literal.getValueCase());
    }
  }

  /** Integers, booleans, dates, timestamps and intervals as 64-bit integers. */
  private static final class LongKeys extends BoundComparator {
    private final long[] bounds;
    private final org.apache.arrow.vector.types.Types.MinorType type;

    LongKeys(SortKey key, boolean[] nulls, long[] bounds, org.apache.arrow.vector.types.Types.MinorType type) {
      super(key, nulls);
      this.bounds = bounds;
      this.type = type;
    }

    @Override
    int compareValue(int row, int b) {
      return Long.compare(valueAt(row), bounds[b]);
    }

    private long valueAt(int row) {
      switch (type) {
        case BIT:
          return ((BitVector) vector).get(row);
        case TINYINT:
          return ((TinyIntVector) vector).get(row);
        case SMALLINT:
          return ((SmallIntVector) vector).get(row);
        case INT:
          return ((IntVector) vector).get(row);
        case DATEDAY:
          return ((DateDayVector) vector).get(row);
        case INTERVALYEAR:
          return ((IntervalYearVector) vector).get(row);
        default: // BIGINT, TIMESTAMPMICRO, DURATION: 64-bit fixed width
          return vector.getDataBuffer().getLong((long) row * 8);
      }
    }
  }

  /** REAL and DOUBLE: -0.0 equals 0.0, NaN equals NaN and sorts after every number. */
  private static final class DoubleKeys extends BoundComparator {
    private final double[] bounds;

    DoubleKeys(SortKey key, boolean[] nulls, double[] bounds) {
      super(key, nulls);
      this.bounds = bounds;
    }

    @Override
    int compareValue(int row, int b) {
      double value = vector instanceof Float4Vector
          ? ((Float4Vector) vector).get(row)
          : ((Float8Vector) vector).get(row);
      double bound = bounds[b];
      return value == bound ? 0 : Double.compare(value, bound);
    }
  }

  /** DECIMAL(p, s) up to 38 digits: signed 128-bit comparison of unscaled values. */
  private static final class DecimalKeys extends BoundComparator {
    private final long[] high;
    private final long[] low;

    DecimalKeys(SortKey key, boolean[] nulls, long[] high, long[] low) {
      super(key, nulls);
      this.high = high;
      this.low = low;
    }

    @Override
    int compareValue(int row, int b) {
      ArrowBuf data = vector.getDataBuffer();
      long at = (long) row * DecimalVector.TYPE_WIDTH;
      int c = Long.compare(data.getLong(at + 8), high[b]);
      return c != 0 ? c : Long.compareUnsigned(data.getLong(at), low[b]);
    }
  }

  /** VARCHAR and VARBINARY: unsigned lexicographic byte order. */
  private static final class BytesKeys extends BoundComparator {
    private final byte[][] bounds;

    BytesKeys(SortKey key, boolean[] nulls, byte[][] bounds) {
      super(key, nulls);
      this.bounds = bounds;
    }

    @Override
    int compareValue(int row, int b) {
      BaseVariableWidthVector v = (BaseVariableWidthVector) vector;
      ArrowBuf offsets = v.getOffsetBuffer();
      ArrowBuf data = v.getDataBuffer();
      int start = offsets.getInt((long) row * 4);
      int length = offsets.getInt((long) (row + 1) * 4) - start;
      byte[] bound = bounds[b];
      int common = Math.min(length, bound.length);
      for (int i = 0; i < common; i++) {
        int c = Integer.compare(data.getByte(start + i) & 0xff, bound[i] & 0xff);
        if (c != 0) {
          return c;
        }
      }
      return Integer.compare(length, bound.length);
    }
  }

}

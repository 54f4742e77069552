package dev.squall.shuffle.partition;

import dev.squall.engine.hash.Murmur3;

import java.util.Arrays;
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
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The shuffle's row hash: equal SQL values give equal hashes, on both sides of a join.
 *
 * <p>Function: Murmur3 x86 32-bit ({@link Murmur3}); the hash of a row starts at {@link #SEED}
 * and each key column, left to right, is hashed with the running hash as seed. Per type:
 * <ul>
 *   <li>BOOLEAN (0/1), TINYINT, SMALLINT, INTEGER, BIGINT, DATE (days), TIMESTAMP (micros),
 *       INTERVAL (millis or months): the value widened to a 64-bit integer, {@code hashLong}.
 *       So equal integers hash equally whatever their width.</li>
 *   <li>REAL, DOUBLE: the value widened to double, -0.0 taken as 0.0 and every NaN as the
 *       canonical NaN (SQL equality and grouping treat them as equal), then {@code hashLong}
 *       of its IEEE bits.</li>
 *   <li>DECIMAL(p, s): the 128-bit two's-complement unscaled value, low then high 64 bits,
 *       {@code hashLong} each. Equal values hash equally only at equal scale.</li>
 *   <li>VARCHAR (UTF-8 bytes, no collation), VARBINARY: {@code hashBytes} of the bytes.</li>
 *   <li>NULL: the column leaves the running hash unchanged (as in Spark), so NULL keys of one
 *       column all meet in one partition.</li>
 * </ul>
 * Both sides of a hash join must therefore carry the same key types (the planner casts; in
 * particular DECIMAL scales must agree).
 */
public final class RowHasher {
  /** Seed of a row's hash before the first key column (Spark's Murmur3Hash uses 42 too). */
  public static final int SEED = 42;

  private RowHasher() {}

  /**
   * Hashes rows {@code 0..rows-1} of {@code batch} over the key columns into {@code out}.
   *
   * @throws IllegalArgumentException if a key index is out of range or its type is not hashable,
   *     naming the column
   */
  public static void hashRows(VectorSchemaRoot batch, int[] keys, int rows, int[] out) {
    Arrays.fill(out, 0, rows, SEED);
    for (int key : keys) {
      if (key < 0 || key >= batch.getFieldVectors().size()) {
        throw new IllegalArgumentException(
            "Hash key column " + key + " is out of range for a batch of " + batch.getFieldVectors().size() + " columns");
      }
      hashColumn(batch.getVector(key), key, rows, out);
    }
  }

  /** Combines column {@code vector} into the running hashes {@code out} of rows {@code 0..rows-1}. */
  public static void hashColumn(FieldVector vector, int column, int rows, int[] out) {
    switch (vector.getMinorType()) {
      case NULL:
        return;
      case BIT: {
        BitVector v = (BitVector) vector;
        for (int i = 0; i < rows; i++) {
          if (!v.isNull(i)) {
            out[i] = Murmur3.hashLong(v.get(i), out[i]);
          }
        }
        return;
      }
      case TINYINT: {
        TinyIntVector v = (TinyIntVector) vector;
        for (int i = 0; i < rows; i++) {
          if (!v.isNull(i)) {
            out[i] = Murmur3.hashLong(v.get(i), out[i]);
          }
        }
        return;
      }
      case SMALLINT: {
        SmallIntVector v = (SmallIntVector) vector;
        for (int i = 0; i < rows; i++) {
          if (!v.isNull(i)) {
            out[i] = Murmur3.hashLong(v.get(i), out[i]);
          }
        }
        return;
      }
      case INT: {
        IntVector v = (IntVector) vector;
        for (int i = 0; i < rows; i++) {
          if (!v.isNull(i)) {
            out[i] = Murmur3.hashLong(v.get(i), out[i]);
          }
        }
        return;
      }
      case DATEDAY: {
        DateDayVector v = (DateDayVector) vector;
        for (int i = 0; i < rows; i++) {
          if (!v.isNull(i)) {
            out[i] = Murmur3.hashLong(v.get(i), out[i]);
          }
        }
        return;
      }
      case INTERVALYEAR: {
        IntervalYearVector v = (IntervalYearVector) vector;
        for (int i = 0; i < rows; i++) {
          if (!v.isNull(i)) {
            out[i] = Murmur3.hashLong(v.get(i), out[i]);
          }
        }
        return;
      }
      case BIGINT:
      case TIMESTAMPMICRO:
      case TIMESTAMPMILLI:
      case TIMESTAMPNANO:
      case TIMESTAMPSEC:
      case DURATION: {
        // All 64-bit fixed width: read the data buffer directly.
        ArrowBuf data = vector.getDataBuffer();
        for (int i = 0; i < rows; i++) {
          if (!vector.isNull(i)) {
            out[i] = Murmur3.hashLong(data.getLong((long) i * 8), out[i]);
          }
        }
        return;
      }
      case FLOAT4: {
        Float4Vector v = (Float4Vector) vector;
        for (int i = 0; i < rows; i++) {
          if (!v.isNull(i)) {
            out[i] = Murmur3.hashLong(doubleBits(v.get(i)), out[i]);
          }
        }
        return;
      }
      case FLOAT8: {
        Float8Vector v = (Float8Vector) vector;
        for (int i = 0; i < rows; i++) {
          if (!v.isNull(i)) {
            out[i] = Murmur3.hashLong(doubleBits(v.get(i)), out[i]);
          }
        }
        return;
      }
      case DECIMAL: {
        DecimalVector v = (DecimalVector) vector;
        ArrowBuf data = v.getDataBuffer();
        for (int i = 0; i < rows; i++) {
          if (!v.isNull(i)) {
            long at = (long) i * DecimalVector.TYPE_WIDTH;
            int h = Murmur3.hashLong(data.getLong(at), out[i]);
            out[i] = Murmur3.hashLong(data.getLong(at + 8), h);
          }
        }
        return;
      }
      case VARCHAR:
      case VARBINARY: {
        BaseVariableWidthVector v = (BaseVariableWidthVector) vector;
        ArrowBuf offsets = v.getOffsetBuffer();
        ArrowBuf data = v.getDataBuffer();
        for (int i = 0; i < rows; i++) {
          if (!v.isNull(i)) {
            int start = offsets.getInt((long) i * 4);
            int end = offsets.getInt((long) (i + 1) * 4);
            out[i] = Murmur3.hashBytes(data, start, end - start, out[i]);
          }
        }
        return;
      }
      default:
        throw new IllegalArgumentException("Cannot hash key column " + column + " ('" + vector.getName()
            + "') of Arrow type " + vector.getField().getType() + "; shuffle keys must be SQL scalar types");
    }
  }

  /** IEEE bits of {@code value} with -0.0 as 0.0 and one canonical NaN (SQL equality). */
  static long doubleBits(double value) {
    if (value == 0.0d) {
      return 0L; // -0.0 == 0.0
    }
    return Double.doubleToLongBits(value); // canonicalises every NaN
  }
}

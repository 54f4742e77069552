package dev.squall.proto;

import dev.squall.proto.v1.DataType.Kind;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The bytes one non-NULL value feeds into a theta sketch: the Iceberg single-value serialization
 * (Iceberg spec, appendix D) of the value's column type, which Puffin's
 * {@code apache-datasketches-theta-v1} blobs prescribe so that sketches of one column merge
 * whoever built them. The one definition shared by the engine's THETA_SKETCH aggregate (values
 * of engine columns) and the planner's statistics file (Iceberg's Java values).
 *
 * <p>BOOLEAN: one byte, 1 or 0; TINYINT, SMALLINT, INTEGER and DATE (days since the epoch): a
 * 4-byte little-endian int (Iceberg's int and date); BIGINT and TIMESTAMP (microseconds): an
 * 8-byte little-endian long; REAL: the 4-byte little-endian IEEE 754 float; DOUBLE: the 8-byte
 * little-endian double; DECIMAL: the unscaled value's minimal big-endian two's-complement bytes;
 * VARCHAR: UTF-8; VARBINARY (Iceberg binary and fixed): the bytes themselves.
 */
public final class ThetaValueBytes {
  private ThetaValueBytes() {}

  /**
   * A value held as a long: BOOLEAN (0 or 1), the integral types, DATE (days), TIMESTAMP (micros).
   *
   * @throws IllegalArgumentException for any other kind
   */
  public static byte[] ofLong(Kind kind, long value) {
    return switch (kind) {
      case BOOLEAN -> new byte[] {(byte) (value != 0 ? 1 : 0)};
      case TINYINT, SMALLINT, INTEGER, DATE -> littleEndian(value, 4);
      case BIGINT, TIMESTAMP -> littleEndian(value, 8);
      default -> throw new IllegalArgumentException("no theta sketch bytes for a long of " + kind);
    };
  }

  /**
   * A REAL or DOUBLE value.
   *
   * @throws IllegalArgumentException for any other kind
   */
  public static byte[] ofDouble(Kind kind, double value) {
    return switch (kind) {
      case REAL -> littleEndian(Float.floatToRawIntBits((float) value), 4);
      case DOUBLE -> littleEndian(Double.doubleToRawLongBits(value), 8);
      default -> throw new IllegalArgumentException("no theta sketch bytes for a double of " + kind);
    };
  }

  /** A DECIMAL value by its unscaled value. */
  public static byte[] ofUnscaled(BigInteger unscaled) {
    return unscaled.toByteArray();
  }

  /** A DECIMAL value by its unscaled value that fits a long. */
  public static byte[] ofUnscaled(long unscaled) {
    return BigInteger.valueOf(unscaled).toByteArray();
  }

  /**
   * A value as Iceberg's generic data holds it: Boolean, Integer (int, date), Long (long,
   * timestamp), Float, Double, BigDecimal, CharSequence, ByteBuffer or byte[].
   *
   * @param kind the plan type of the column ({@code IcebergTypeMapping}'s SQL type)
   * @throws IllegalArgumentException for a value that is not of the kind's Java class
   */
  public static byte[] of(Kind kind, Object value) {
    return switch (kind) {
      case BOOLEAN -> ofLong(kind, ((Boolean) value) ? 1 : 0);
      case TINYINT, SMALLINT, INTEGER, DATE, BIGINT, TIMESTAMP -> ofLong(kind, ((Number) value).longValue());
      case REAL, DOUBLE -> ofDouble(kind, ((Number) value).doubleValue());
      case DECIMAL -> ofUnscaled(((BigDecimal) value).unscaledValue());
      case VARCHAR -> value.toString().getBytes(StandardCharsets.UTF_8);
      case VARBINARY -> {
        if (value instanceof byte[] bytes) {
          yield bytes.clone();
        }
        ByteBuffer buffer = ((ByteBuffer) value).duplicate();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        yield bytes;
      }
      default -> throw new IllegalArgumentException("no theta sketch bytes for " + kind);
    };
  }

  private static byte[] littleEndian(long value, int width) {
    byte[] bytes = new byte[width];
    for (int i = 0; i < width; i++) {
      bytes[i] = (byte) (value >>> (8 * i));
    }
    return bytes;
  }
}

package dev.squall.engine.runtimefilter;

import dev.squall.proto.v1.Literal;
import java.math.BigDecimal;
import java.util.Comparator;
import org.apache.iceberg.types.Comparators;

/**
 * Join keys of runtime filters in one canonical form on both sides of a join: integers and dates
 * (days) as {@link Long}, strings as {@link String}, decimals as {@link BigDecimal} without
 * trailing zeros (so that equal values of one DECIMAL type are equal objects). The build side
 * summarises its keys in this form, the coordinator merges the summaries, the probe scan tests its
 * rows against them; the Bloom filter hashes this form with {@link KeyHash}.
 */
public final class RuntimeKeys {
  private RuntimeKeys() {}

  /** The canonical key of a column value ({@code Column.get}), or null for NULL or a kind not filtered. */
  public static Object canonical(Object value) {
    if (value == null) {
      return null;
    }
    if (value instanceof Long || value instanceof String) {
      return value;
    }
    if (value instanceof Integer i) {
      return (long) i;
    }
    if (value instanceof Short s) {
      return (long) s;
    }
    if (value instanceof Byte b) {
      return (long) b;
    }
    if (value instanceof BigDecimal d) {
      return d.signum() == 0 ? BigDecimal.ZERO : d.stripTrailingZeros();
    }
    if (value instanceof CharSequence cs) {
      return cs.toString();
    }
    return null;
  }

  /** Whether keys of this canonical form are summarised (Long, String, BigDecimal). */
  public static boolean supported(Object canonical) {
    return canonical instanceof Long || canonical instanceof String || canonical instanceof BigDecimal;
  }

  /**
   * Order of canonical keys of one kind: numbers by value, strings by code point (UTF-8 byte order,
   * the order of Parquet and Iceberg statistics).
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static final Comparator<Object> ORDER = (a, b) -> {
    if (a instanceof String x && b instanceof String y) {
      return Comparators.charSequences().compare(x, y);
    }
    return ((Comparable) a).compareTo(b);
  };

  /** The wire form of a canonical key. */
  public static Literal toLiteral(Object key) {
    if (key instanceof Long l) {
      return Literal.newBuilder().setLongValue(l).build();
    }
    if (key instanceof String s) {
      return Literal.newBuilder().setStringValue(s).build();
    }
    if (key instanceof BigDecimal d) {
      // A decimal travels as a string; a marker keeps it apart from string keys.
      return Literal.newBuilder().setDecimalUnscaled(d.toPlainString()).build();
    }
    throw new IllegalArgumentException("runtime filter key of unsupported kind " + key.getClass().getName());
  }

  /** The canonical key of its wire form. */
  public static Object fromLiteral(Literal literal) {
    return switch (literal.getValueCase()) {
      case LONG_VALUE -> literal.getLongValue();
      case STRING_VALUE -> literal.getStringValue();
      case DECIMAL_UNSCALED -> canonical(new BigDecimal(literal.getDecimalUnscaled()));
      default -> throw new IllegalArgumentException("runtime filter key literal of kind " + literal.getValueCase());
    };
  }
}

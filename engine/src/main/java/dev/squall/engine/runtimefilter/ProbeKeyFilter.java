package dev.squall.engine.runtimefilter;

import com.google.common.hash.BloomFilter;
import dev.squall.proto.v1.KeyFilter;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A runtime filter on one probe-scan column: whether a row's key may meet a build-side row (never
 * false for a key the build side wrote), and the Iceberg predicate that lets the scan skip row
 * groups by their statistics, dictionaries and bloom filters.
 */
public final class ProbeKeyFilter {
  private final KeyFilter proto;
  private final boolean empty;
  private final Object min;
  private final Object max;
  private final Set<Object> values;
  private final BloomFilter<Object> bloom;

  public ProbeKeyFilter(KeyFilter proto) {
    this.proto = proto;
    this.empty = proto.getEmpty();
    this.min = empty ? null : RuntimeKeys.fromLiteral(proto.getMin());
    this.max = empty ? null : RuntimeKeys.fromLiteral(proto.getMax());
    if (proto.getHasValues() && !empty) {
      values = new HashSet<>();
      proto.getValuesList().forEach(v -> values.add(RuntimeKeys.fromLiteral(v)));
    } else {
      values = null;
    }
    this.bloom = proto.getBloom().isEmpty() ? null : KeyFilters.bloom(proto.getBloom());
  }

  /** The scan output column it tests. */
  public int column() {
    return proto.getColumn();
  }

  /**
   * Whether a row with this column value may have a join partner: false for NULL, for a key outside
   * the build side's range, not among its listed keys or not in its Bloom filter.
   */
  public boolean mightMatch(Object value) {
    if (empty || value == null) {
      return false;
    }
    Object key = RuntimeKeys.canonical(value);
    if (key == null || key.getClass() != min.getClass()) {
      return true; // not comparable: keep the row (the join decides)
    }
    if (RuntimeKeys.ORDER.compare(key, min) < 0 || RuntimeKeys.ORDER.compare(key, max) > 0) {
      return false;
    }
    if (values != null) {
      return values.contains(key);
    }
    return bloom == null || bloom.mightContain(key);
  }

  /**
   * The filter as an Iceberg predicate on the column {@code name} of Iceberg type {@code type}:
   * the range, and {@code IN} the listed keys when they are listed; always-true for a type it cannot state (the row test
   * still applies).
   */
  public Expression iceberg(String name, Type type) {
    if (empty) {
      return Expressions.alwaysFalse();
    }
    Object lo = icebergValue(min, type);
    Object hi = icebergValue(max, type);
    if (lo == null || hi == null) {
      return Expressions.alwaysTrue();
    }
    Expression range = Expressions.and(Expressions.greaterThanOrEqual(name, lo), Expressions.lessThanOrEqual(name, hi));
    if (values != null) {
      List<Object> in = new ArrayList<>();
      for (Object v : values) {
        Object iv = icebergValue(v, type);
        if (iv == null) {
          return range;
        }
        in.add(iv);
      }
      // The range too: Iceberg's metrics evaluators give up on an IN of more than 200 values.
      return Expressions.and(range, Expressions.in(name, in));
    }
    return range;
  }

  /** A canonical key as a literal value of the Iceberg type, or null when it cannot be one exactly. */
  private static Object icebergValue(Object key, Type type) {
    switch (type.typeId()) {
      case INTEGER:
        return key instanceof Long l && l >= Integer.MIN_VALUE && l <= Integer.MAX_VALUE ? (Object) l.intValue() : null;
      case LONG:
        return key instanceof Long ? key : null;
      case DATE:
        return key instanceof Long l && l >= Integer.MIN_VALUE && l <= Integer.MAX_VALUE ? (Object) l.intValue() : null;
      case STRING:
        return key instanceof String ? key : null;
      case DECIMAL:
        if (key instanceof BigDecimal d) {
          try {
            return d.setScale(((Types.DecimalType) type).scale(), RoundingMode.UNNECESSARY);
          } catch (ArithmeticException e) {
            return null;
          }
        }
        return null;
      default:
        return null;
    }
  }
}

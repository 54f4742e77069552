package dev.squall.engine.runtimefilter;

import dev.squall.engine.column.BytesColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.LongColumn;
import dev.squall.proto.v1.DataType;
import dev.squall.proto.v1.KeyFilter;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
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
 *
 * <p>{@link #select} tests a whole column: integer keys straight from the values array (range,
 * then the listed keys in a primitive set, then the Bloom filter), VARCHAR keys as UTF-8 byte
 * ranges (a dictionary-encoded column once per dictionary entry), other kinds row by row through
 * {@link #mightMatch}. Not thread-safe (the Bloom filter and the dictionary verdicts are scratch
 * state): one per scan.
 */
public final class ProbeKeyFilter {
  private final KeyFilter proto;
  private final boolean empty;
  private final Object min;
  private final Object max;
  private final Set<Object> values;
  private final KeyBloom bloom;
  /** Long keys: the range and the listed keys unboxed. */
  private long minLong;
  private long maxLong;
  private LongKeySet longValues;
  /** String keys: the range and the listed keys as UTF-8 bytes. */
  private byte[] minBytes;
  private byte[] maxBytes;
  private BytesKeySet bytesValues;
  /** The last dictionary tested and, per entry, whether it may match. */
  private BytesColumn dictionary;
  private boolean[] dictionaryPasses;

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
    this.bloom = proto.getBloom().isEmpty() ? null : KeyBloom.of(proto.getBloom());
    if (min instanceof Long lo && max instanceof Long hi) {
      minLong = lo;
      maxLong = hi;
      if (values != null) {
        longValues = new LongKeySet();
        values.forEach(v -> longValues.add((Long) v));
      }
    } else if (min instanceof String lo && max instanceof String hi) {
      minBytes = lo.getBytes(StandardCharsets.UTF_8);
      maxBytes = hi.getBytes(StandardCharsets.UTF_8);
      if (values != null) {
        bytesValues = new BytesKeySet();
        for (Object v : values) {
          byte[] b = ((String) v).getBytes(StandardCharsets.UTF_8);
          bytesValues.add(b, 0, b.length, KeyHash.ofBytes(b, 0, b.length));
        }
      }
    }
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
    return bloom == null || bloom.mightContain(KeyHash.of(key));
  }

  /**
   * Keeps, of the rows {@code rows[0..n)} of {@code col}, those that {@link #mightMatch} (in their
   * order, moved to the front of {@code rows}).
   *
   * @param rows ascending or not, each a row of {@code col}; overwritten
   * @return how many rows are kept
   */
  public int select(Column col, int[] rows, int n) {
    if (empty) {
      return 0;
    }
    if (col instanceof LongColumn c && minBytes == null && min instanceof Long) {
      return selectLongs(c.values(), col.nullMask(), rows, n);
    }
    if (col instanceof BytesColumn c && minBytes != null && col.type().kind() == DataType.Kind.VARCHAR) {
      return c.isDictionary() ? selectDictionary(c, rows, n) : selectBytes(c.data(), c.offsets(), col.nullMask(), rows, n);
    }
    int kept = 0;
    for (int k = 0; k < n; k++) {
      int r = rows[k];
      if (mightMatch(col.get(r))) {
        rows[kept++] = r;
      }
    }
    return kept;
  }

  private int selectLongs(long[] v, boolean[] nulls, int[] rows, int n) {
    long lo = minLong;
    long hi = maxLong;
    int kept = 0;
    for (int k = 0; k < n; k++) {
      int r = rows[k];
      long key = v[r];
      // The range test first: it alone removes most rows of a selective join, for a compare each.
      if (key < lo || key > hi || (nulls != null && nulls[r])) {
        continue;
      }
      if (longValues != null ? longValues.contains(key) : bloom == null || bloom.mightContain(KeyHash.ofLong(key))) {
        rows[kept++] = r;
      }
    }
    return kept;
  }

  private int selectBytes(byte[] data, int[] offsets, boolean[] nulls, int[] rows, int n) {
    int kept = 0;
    for (int k = 0; k < n; k++) {
      int r = rows[k];
      if ((nulls == null || !nulls[r]) && bytesMightMatch(data, offsets[r], offsets[r + 1] - offsets[r])) {
        rows[kept++] = r;
      }
    }
    return kept;
  }

  private int selectDictionary(BytesColumn col, int[] rows, int n) {
    BytesColumn dict = col.dictionaryValues();
    if (dict != dictionary) {
      // A row group's batches share one dictionary: each entry is tested once.
      byte[] data = dict.data();
      int[] offsets = dict.offsets();
      boolean[] passes = new boolean[dict.size()];
      for (int d = 0; d < passes.length; d++) {
        passes[d] = !dict.isNull(d) && bytesMightMatch(data, offsets[d], offsets[d + 1] - offsets[d]);
      }
      dictionary = dict;
      dictionaryPasses = passes;
    }
    int[] ids = col.dictionaryIds();
    boolean[] nulls = col.nullMask();
    boolean[] passes = dictionaryPasses;
    int kept = 0;
    for (int k = 0; k < n; k++) {
      int r = rows[k];
      if ((nulls == null || !nulls[r]) && passes[ids[r]]) {
        rows[kept++] = r;
      }
    }
    return kept;
  }

  private boolean bytesMightMatch(byte[] data, int from, int len) {
    int to = from + len;
    if (Arrays.compareUnsigned(data, from, to, minBytes, 0, minBytes.length) < 0
        || Arrays.compareUnsigned(data, from, to, maxBytes, 0, maxBytes.length) > 0) {
      return false;
    }
    if (bytesValues != null) {
      return bytesValues.contains(data, from, len, KeyHash.ofBytes(data, from, len));
    }
    return bloom == null || bloom.mightContain(KeyHash.ofBytes(data, from, len));
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

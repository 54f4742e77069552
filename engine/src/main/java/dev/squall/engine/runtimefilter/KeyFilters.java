package dev.squall.engine.runtimefilter;

import com.google.common.hash.BloomFilter;
import com.google.protobuf.ByteString;
import dev.squall.proto.v1.KeyFilter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Merging the build tasks' key summaries into one runtime filter (coordinator side), bounded in
 * size: at most {@link #MAX_LISTED_VALUES} keys are listed; past that a Bloom filter of
 * {@code maxKeys} expected keys at {@link #FALSE_POSITIVE_RATE}; past {@code maxKeys} distinct
 * keys (Guava's estimate) only the range is kept.
 */
public final class KeyFilters {
  /** Most keys a filter lists one by one (then they also prune row groups by value). */
  public static final int MAX_LISTED_VALUES = 1000;
  /** The Bloom filters' false-positive rate at their expected key count. */
  public static final double FALSE_POSITIVE_RATE = 0.01;

  private KeyFilters() {}

  static BloomFilter<Object> newBloom(long maxKeys) {
    return BloomFilter.create(RuntimeKeys.FUNNEL, Math.max(1, maxKeys), FALSE_POSITIVE_RATE);
  }

  static ByteString bytes(BloomFilter<Object> bloom) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      bloom.writeTo(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ByteString.copyFrom(out.toByteArray());
  }

  static BloomFilter<Object> bloom(ByteString bytes) {
    try {
      return BloomFilter.readFrom(new ByteArrayInputStream(bytes.toByteArray()), RuntimeKeys.FUNNEL);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * One column's filter from every build task's summary of it (one per task, all tasks present),
   * or empty when a task has none (its keys were not summarised: no filter is sound then).
   *
   * @param maxKeys the bound above which only the range is kept
   */
  public static Optional<KeyFilter> merge(List<KeyFilter> parts, long maxKeys) {
    if (parts.isEmpty()) {
      return Optional.empty();
    }
    Object min = null;
    Object max = null;
    Set<Object> values = new TreeSet<>(RuntimeKeys.ORDER);
    boolean listed = true;
    BloomFilter<Object> bloom = null;
    for (KeyFilter p : parts) {
      if (p.getEmpty()) {
        continue;
      }
      Object lo = RuntimeKeys.fromLiteral(p.getMin());
      Object hi = RuntimeKeys.fromLiteral(p.getMax());
      min = min == null || RuntimeKeys.ORDER.compare(lo, min) < 0 ? lo : min;
      max = max == null || RuntimeKeys.ORDER.compare(hi, max) > 0 ? hi : max;
      if (p.getHasValues()) {
        p.getValuesList().forEach(v -> values.add(RuntimeKeys.fromLiteral(v)));
      } else {
        listed = false;
        BloomFilter<Object> b = bloom(p.getBloom());
        if (bloom == null) {
          bloom = b;
        } else if (bloom.isCompatible(b)) {
          bloom.putAll(b);
        } else {
          bloom = null;
          maxKeys = -1; // sized differently: keep the range only
        }
      }
    }
    KeyFilter.Builder out = KeyFilter.newBuilder().setColumn(parts.get(0).getColumn())
        .setFilterId(parts.get(0).getFilterId());
    if (min == null) {
      return Optional.of(out.setEmpty(true).setHasValues(true).build());
    }
    out.setMin(RuntimeKeys.toLiteral(min)).setMax(RuntimeKeys.toLiteral(max));
    if (listed && values.size() <= MAX_LISTED_VALUES) {
      out.setHasValues(true);
      values.forEach(v -> out.addValues(RuntimeKeys.toLiteral(v)));
      return Optional.of(out.build());
    }
    if (bloom == null && maxKeys >= 0) {
      bloom = newBloom(maxKeys);
    }
    if (bloom != null && maxKeys >= 0) {
      values.forEach(bloom::put);
      if (holdsAtMost(bloom, maxKeys)) {
        out.setBloom(bytes(bloom));
      }
    }
    return Optional.of(out.build());
  }

  /**
   * Whether a Bloom filter holds about {@code maxKeys} distinct keys or fewer. A filter with every
   * bit set (far more keys than it was sized for) holds more than any bound; its element count
   * cannot be estimated (Guava's estimate is infinite there and throws).
   */
  private static boolean holdsAtMost(BloomFilter<Object> bloom, long maxKeys) {
    return bloom.expectedFpp() < 1.0 && bloom.approximateElementCount() <= maxKeys;
  }
}

package dev.squall.engine.runtimefilter;

import dev.squall.proto.v1.KeyFilter;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Merging the build tasks' key summaries into one runtime filter (coordinator side), bounded in
 * size: at most {@link #MAX_LISTED_VALUES} keys are listed; past that a Bloom filter of
 * {@code maxKeys} expected keys at {@link #FALSE_POSITIVE_RATE} (Parquet's split-block filter,
 * {@link KeyBloom}; the build tasks' filters are OR-ed); past {@code maxKeys} distinct keys (estimated
 * from the share of set bits) only the range is kept.
 */
public final class KeyFilters {
  /** Most keys a filter lists one by one (then they also prune row groups by value). */
  public static final int MAX_LISTED_VALUES = 1000;
  /** The Bloom filters' false-positive rate at their expected key count. */
  public static final double FALSE_POSITIVE_RATE = 0.01;

  private KeyFilters() {}

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
    KeyBloom bloom = null;
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
        KeyBloom b = KeyBloom.of(p.getBloom());
        if (bloom == null) {
          bloom = b;
        } else if (bloom.canMerge(b)) {
          bloom.merge(b);
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
      bloom = KeyBloom.sized(maxKeys);
    }
    if (bloom != null && maxKeys >= 0) {
      for (Object v : values) {
        bloom.insert(KeyHash.of(v));
      }
      if (bloom.approximateKeys() <= maxKeys) {
        out.setBloom(bloom.bytes());
      }
    }
    return Optional.of(out.build());
  }
}

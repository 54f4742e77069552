package dev.squall.engine.runtimefilter;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import shaded.parquet.net.openhft.hashing.LongHashFunction;

/**
 * The 64-bit hash of a runtime filter key, as Parquet hashes values for its split-block Bloom
 * filters: XXH64 with seed 0 over the key's bytes. A long key hashes as its 8 bytes in the
 * machine's byte order (little-endian on x86-64 and arm64, where it equals Parquet's
 * {@code BlockSplitBloomFilter.hash(long)}), a string key as its UTF-8 bytes (Parquet's
 * {@code hash(Binary)}), a decimal key (canonical {@link BigDecimal}) as its unscaled two's
 * complement bytes mixed with its scale. Both sides of a join hash with these methods only, so a
 * key the build side inserted is always found by the probe side. Stateless and thread-safe;
 * the long and byte-range forms allocate nothing.
 */
public final class KeyHash {
  // Parquet's own XXH64 (shaded into parquet-column), the function its Bloom filters use.
  private static final LongHashFunction XX = LongHashFunction.xx(0);

  private KeyHash() {}

  /** Hash of a long key (integers, DATE days). */
  public static long ofLong(long key) {
    return XX.hashLong(key);
  }

  /** Hash of a string key given as its UTF-8 bytes {@code data[from .. from + len)}. */
  public static long ofBytes(byte[] data, int from, int len) {
    return XX.hashBytes(data, from, len);
  }

  /** Hash of a canonical key ({@link RuntimeKeys#canonical}): Long, String or BigDecimal. */
  public static long of(Object key) {
    if (key instanceof Long l) {
      return ofLong(l);
    }
    if (key instanceof String s) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      return ofBytes(b, 0, b.length);
    }
    if (key instanceof BigDecimal d) {
      byte[] b = d.unscaledValue().toByteArray();
      return ofLong(ofBytes(b, 0, b.length) + d.scale() * 0x9E3779B97F4A7C15L);
    }
    throw new IllegalArgumentException("runtime filter key of unsupported kind " + key.getClass().getName());
  }
}

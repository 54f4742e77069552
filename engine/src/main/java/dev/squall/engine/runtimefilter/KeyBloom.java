package dev.squall.engine.runtimefilter;

import com.google.protobuf.ByteString;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.parquet.column.values.bloomfilter.BlockSplitBloomFilter;

/**
 * A runtime filter's Bloom filter: Parquet's split-block Bloom filter ({@link BlockSplitBloomFilter},
 * the one Parquet files, Impala and Trino use) over {@link KeyHash} hashes. Its wire form
 * ({@code KeyFilter.bloom}) is the bare bitset: a power of two of bytes (32 to 128 MiB), blocks of
 * eight little-endian 32-bit words. Two filters of one size merge by OR-ing their bitsets.
 *
 * <p>Not thread-safe (Parquet's filter keeps a scratch mask): one per task or scan.
 */
final class KeyBloom {
  private final BlockSplitBloomFilter filter;

  private KeyBloom(BlockSplitBloomFilter filter) {
    this.filter = filter;
  }

  /** An empty filter for {@code maxKeys} distinct keys at {@link KeyFilters#FALSE_POSITIVE_RATE}. */
  static KeyBloom sized(long maxKeys) {
    int bytes = BlockSplitBloomFilter.optimalNumOfBits(Math.max(1, maxKeys), KeyFilters.FALSE_POSITIVE_RATE) / 8;
    return new KeyBloom(new BlockSplitBloomFilter(bytes, BlockSplitBloomFilter.UPPER_BOUND_BYTES));
  }

  /** The filter of its wire form. */
  static KeyBloom of(ByteString bytes) {
    return new KeyBloom(new BlockSplitBloomFilter(bytes.toByteArray()));
  }

  void insert(long hash) {
    filter.insertHash(hash);
  }

  boolean mightContain(long hash) {
    return filter.findHash(hash);
  }

  /** Whether {@link #merge} accepts {@code other} (same size). */
  boolean canMerge(KeyBloom other) {
    return filter.canMergeFrom(other.filter);
  }

  /** Adds every key of {@code other} (same size: OR of the bitsets). */
  void merge(KeyBloom other) {
    try {
      filter.merge(other.filter);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Estimated distinct keys inserted, from the share of set bits (each key sets 8 of a block's
   * 256 bits); {@link Long#MAX_VALUE} when every bit is set.
   */
  long approximateKeys() {
    byte[] bits = bitset();
    long set = 0;
    for (byte b : bits) {
      set += Integer.bitCount(b & 0xff);
    }
    long total = bits.length * 8L;
    if (set >= total) {
      return Long.MAX_VALUE;
    }
    return Math.round(-Math.log1p(-(double) set / total) * total / 8);
  }

  ByteString bytes() {
    return ByteString.copyFrom(bitset());
  }

  private byte[] bitset() {
    ByteArrayOutputStream out = new ByteArrayOutputStream(filter.getBitsetSize());
    try {
      filter.writeTo(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}

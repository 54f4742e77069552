package dev.squall.engine.hash;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.relocated.com.google.common.hash.HashFunction;
import org.apache.iceberg.relocated.com.google.common.hash.Hashing;
import org.junit.jupiter.api.Test;

/**
 * Checks Squall's Murmur3 against an independent implementation: Guava's
 * {@code Hashing.murmur3_32_fixed} (as bundled, relocated, with Iceberg).
 */
class Murmur3Test {
  @Test
  void bytesHashLikeGuavasMurmur3ForEveryTailLength() {
    Random random = new Random(3);
    try (BufferAllocator allocator = new RootAllocator(); ArrowBuf buf = allocator.buffer(64)) {
      for (int length = 0; length <= 40; length++) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        buf.setBytes(0, bytes);
        for (int seed : new int[] {0, 1, 42, 0x9747b28c, -1}) {
          int expected = Hashing.murmur3_32_fixed(seed).hashBytes(bytes).asInt();
          assertThat(Murmur3.hashBytes(bytes, 0, length, seed)).isEqualTo(expected);
          assertThat(Murmur3.hashBytes(buf, 0, length, seed)).isEqualTo(expected);
        }
      }
    }
  }

  @Test
  void intsAndLongsHashLikeTheirLittleEndianBytes() {
    Random random = new Random(4);
    for (int i = 0; i < 1000; i++) {
      int seed = random.nextInt();
      HashFunction guava = Hashing.murmur3_32_fixed(seed);
      long l = random.nextLong();
      int n = random.nextInt();
      assertThat(Murmur3.hashLong(l, seed)).isEqualTo(guava.hashLong(l).asInt());
      assertThat(Murmur3.hashInt(n, seed)).isEqualTo(guava.hashInt(n).asInt());
      byte[] le = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(l).array();
      assertThat(Murmur3.hashLong(l, seed)).isEqualTo(Murmur3.hashBytes(le, 0, 8, seed));
    }
  }
}

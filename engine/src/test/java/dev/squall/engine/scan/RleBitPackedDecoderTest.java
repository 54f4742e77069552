package dev.squall.engine.scan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The RLE / bit-packing hybrid decoder against Parquet-MR's encoder of the same values. */
class RleBitPackedDecoderTest {
  @ParameterizedTest
  @ValueSource(ints = {0, 1, 2, 3, 5, 7, 8, 9, 12, 15, 16, 17, 20, 24, 27, 31, 32})
  void decodesWhatParquetMrEncodesAtEveryWidth(int width) throws Exception {
    Random random = new Random(width);
    for (int count : new int[] {1, 7, 8, 9, 63, 1000, 5003}) {
      int[] values = new int[count];
      long limit = width == 32 ? -1L : (1L << width) - 1;
      for (int i = 0; i < count; i++) {
        // Stretches of repeats (RLE runs) between random values (bit-packed groups).
        values[i] = i > 0 && random.nextInt(4) == 0 ? values[i - 1] : (int) (random.nextLong() & limit);
      }
      RunLengthBitPackingHybridEncoder encoder =
          new RunLengthBitPackingHybridEncoder(width, 64, 1 << 20, HeapByteBufferAllocator.getInstance());
      for (int v : values) {
        encoder.writeInt(v);
      }
      byte[] bytes = encoder.toBytes().toByteArray();
      RleBitPackedDecoder decoder = new RleBitPackedDecoder();
      decoder.init(bytes, 0, bytes.length, width);
      int[] out = new int[count];
      for (int at = 0; at < count; ) {
        int n = Math.min(count - at, 1 + random.nextInt(700));
        decoder.readInts(out, at, n);
        at += n;
      }
      assertThat(out).as("width %d, %d values", width, count).containsExactly(values);
    }
  }

  @Test
  void bytesMissingAtTheEndOfABitPackedRunReadAsZero() {
    // One run of two groups (16 values) of width 3 needs 6 bytes; only 4 follow the header.
    byte[] data = {(byte) ((2 << 1) | 1), (byte) 0b1011_0101, (byte) 0b0110_1100, (byte) 0xFF, (byte) 0x81};
    int[] expected = new int[16];
    for (int i = 0; i < 16; i++) {
      int v = 0;
      for (int b = 0; b < 3; b++) {
        int bit = i * 3 + b;
        int at = 1 + bit / 8;
        int set = at < data.length ? (data[at] >>> (bit % 8)) & 1 : 0;
        v |= set << b;
      }
      expected[i] = v;
    }
    RleBitPackedDecoder decoder = new RleBitPackedDecoder();
    decoder.init(data, 0, data.length, 3);
    int[] out = new int[16];
    decoder.readInts(out, 0, 16);
    assertThat(out).containsExactly(expected);
  }
}

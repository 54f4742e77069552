package dev.squall.shuffle.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.apache.arrow.compression.Lz4CompressionCodec;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.junit.jupiter.api.Test;

/** Frames interoperate with an independent LZ4 frame implementation: Commons Compress via Arrow. */
class Lz4FrameCodecTest {
  private static byte[] roundTrip(BufferAllocator allocator, CompressionCodec writer, CompressionCodec reader, byte[] data) {
    ArrowBuf in = allocator.buffer(Math.max(1, data.length));
    in.setBytes(0, data);
    in.writerIndex(data.length);
    ArrowBuf compressed = writer.compress(allocator, in); // takes ownership of in
    ArrowBuf out = reader.decompress(allocator, compressed); // takes ownership of compressed
    try {
      byte[] result = new byte[(int) out.writerIndex()];
      out.getBytes(0, result);
      return result;
    } finally {
      out.close();
    }
  }

  @Test
  void framesAreReadableByCommonsCompressAndTheOtherWayRound() {
    Random random = new Random(5);
    try (BufferAllocator allocator = new RootAllocator()) {
      for (int size : new int[] {1, 100, 10_000, 200_000}) {
        byte[] data = new byte[size];
        for (int i = 0; i < size; i++) {
          data[i] = (byte) ("shuffle ".charAt(random.nextInt(8)) + (i / 1000) % 3); // compressible, not trivial
        }
        assertThat(roundTrip(allocator, Lz4FrameCodec.INSTANCE, new Lz4CompressionCodec(), data)).isEqualTo(data);
        if (size <= 10_000) { // Commons Compress's LZ4 compressor is very slow; small inputs suffice
          assertThat(roundTrip(allocator, new Lz4CompressionCodec(), Lz4FrameCodec.INSTANCE, data)).isEqualTo(data);
        }
        assertThat(roundTrip(allocator, Lz4FrameCodec.INSTANCE, Lz4FrameCodec.INSTANCE, data)).isEqualTo(data);
      }
    }
  }
}

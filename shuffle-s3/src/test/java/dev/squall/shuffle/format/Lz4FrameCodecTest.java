package dev.squall.shuffle.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Random;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;
import net.jpountz.xxhash.XXHashFactory;
import org.apache.arrow.compression.Lz4CompressionCodec;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.commons.compress.compressors.lz4.FramedLZ4CompressorOutputStream;
import org.junit.jupiter.api.Test;

/**
 * Frames interoperate with two independent LZ4 frame implementations: Commons Compress (through
 * Arrow's codec) and lz4-java's frame streams, with the optional parts of the format the codec
 * does not write (checksums, content size, larger and linked blocks).
 */
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

  private static byte[] compressible(int size, long seed) {
    Random random = new Random(seed);
    byte[] data = new byte[size];
    for (int i = 0; i < size; i++) {
      data[i] = (byte) ("shuffle ".charAt(random.nextInt(8)) + (i / 1000) % 3);
    }
    return data;
  }

  /** A frame written by lz4-java's frame stream with the given block size and flags. */
  private static byte[] lz4JavaFrame(byte[] data, LZ4FrameOutputStream.BLOCKSIZE blockSize, long knownSize,
      LZ4FrameOutputStream.FLG.Bits... bits) throws IOException {
    ByteArrayOutputStream frame = new ByteArrayOutputStream();
    try (LZ4FrameOutputStream out = new LZ4FrameOutputStream(frame, blockSize, knownSize,
        LZ4Factory.fastestJavaInstance().fastCompressor(), XXHashFactory.fastestJavaInstance().hash32(), bits)) {
      out.write(data);
    }
    return frame.toByteArray();
  }

  @Test
  void framesWithChecksumsContentSizeAndLargeBlocksReadAndLinkedBlocksAreRefused() throws IOException {
    byte[] data = compressible(300_000, 7);
    assertThat(Lz4FrameCodec.decompress(lz4JavaFrame(data, LZ4FrameOutputStream.BLOCKSIZE.SIZE_256KB, data.length,
        LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE, LZ4FrameOutputStream.FLG.Bits.BLOCK_CHECKSUM,
        LZ4FrameOutputStream.FLG.Bits.CONTENT_SIZE, LZ4FrameOutputStream.FLG.Bits.CONTENT_CHECKSUM), data.length))
        .isEqualTo(data);
    assertThat(Lz4FrameCodec.decompress(commonsFrame(data, false), data.length)).isEqualTo(data);
    assertThatThrownBy(() -> Lz4FrameCodec.decompress(commonsFrame(data, true), data.length))
        .hasMessageContaining("linked blocks");
  }

  /** A frame written by Commons Compress: 4 MiB blocks, block and content checksums. */
  private static byte[] commonsFrame(byte[] data, boolean linked) throws IOException {
    ByteArrayOutputStream frame = new ByteArrayOutputStream();
    try (var out = new FramedLZ4CompressorOutputStream(frame, new FramedLZ4CompressorOutputStream.Parameters(
        FramedLZ4CompressorOutputStream.BlockSize.M4, true, true, linked))) {
      out.write(data);
    }
    return frame.toByteArray();
  }

  @Test
  void framesAreReadableByLz4JavaAndIncompressibleBlocksAreStoredAsTheyAre() throws IOException {
    Random random = new Random(11);
    for (int size : new int[] {0, 1, 65_536, 65_537, 200_000}) {
      byte[] noise = new byte[size];
      random.nextBytes(noise);
      byte[] frame = Lz4FrameCodec.compress(noise);
      // Stored blocks: the frame is the input plus its header, block sizes and end mark.
      assertThat(frame.length).isEqualTo(7 + 4 * ((size + 65_535) / 65_536) + size + 4);
      assertThat(Lz4FrameCodec.decompress(frame, size)).isEqualTo(noise);
      byte[] text = compressible(size, size);
      for (byte[] data : new byte[][] {noise, text}) {
        try (LZ4FrameInputStream in = new LZ4FrameInputStream(new ByteArrayInputStream(Lz4FrameCodec.compress(data)))) {
          assertThat(in.readAllBytes()).isEqualTo(data);
        }
      }
    }
  }

  @Test
  void aCorruptOrShortFrameIsRefusedByName() {
    byte[] data = compressible(100_000, 3);
    byte[] frame = Lz4FrameCodec.compress(data);
    byte[] header = frame.clone();
    header[5] ^= 0x10;
    assertThatThrownBy(() -> Lz4FrameCodec.decompress(header, data.length)).hasMessageContaining("header checksum");
    byte[] cut = java.util.Arrays.copyOf(frame, frame.length / 2);
    assertThatThrownBy(() -> Lz4FrameCodec.decompress(cut, data.length)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("LZ4");
    assertThatThrownBy(() -> Lz4FrameCodec.decompress(frame, data.length + 1)).hasMessageContaining("ended after");
    assertThatThrownBy(() -> Lz4FrameCodec.decompress(new byte[] {1, 2, 3, 4, 5, 6, 7}, 1)).hasMessageContaining("magic");
  }
}

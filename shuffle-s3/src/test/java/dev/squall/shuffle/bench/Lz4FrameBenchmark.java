package dev.squall.shuffle.bench;

import dev.squall.shuffle.format.Lz4FrameCodec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Random;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;
import net.jpountz.xxhash.XXHashFactory;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.compression.AbstractCompressionCodec;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;

/**
 * Prints MB/s (of uncompressed bytes, one thread) of compressing and then decompressing one Arrow
 * buffer as one LZ4 frame, as the shuffle does for each buffer of each batch (validity buffers of
 * about 1 KiB, value buffers of 64 KiB for 8,192 longs): through {@link Lz4FrameCodec} and through
 * a codec that frames its blocks with lz4-java's frame streams (as {@code Lz4FrameCodec} did before
 * 2026-12-03). Not a test; usage: {@code Lz4FrameBenchmark [seconds per case=2]}.
 */
public final class Lz4FrameBenchmark {
  private static final LZ4Factory LZ4 = LZ4Factory.fastestJavaInstance();
  private static final XXHashFactory XXHASH = XXHashFactory.fastestJavaInstance();

  public static void main(String[] args) throws IOException {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 2;
    System.out.printf("%-12s %16s %16s %8s%n", "buffer", "streams MB/s", "codec MB/s", "ratio");
    try (BufferAllocator allocator = new RootAllocator()) {
      for (int size : new int[] {1_024, 8_192, 65_536, 1 << 20, 1_024, 8_192}) {
        byte[] data = columnLike(size);
        double streams = rate(seconds, size, () -> roundTrip(StreamFramedCodec.INSTANCE, allocator, data));
        double codec = rate(seconds, size, () -> roundTrip(Lz4FrameCodec.INSTANCE, allocator, data));
        System.out.printf("%-12s %16.1f %16.1f %8.2f%n", size + " B", streams, codec, codec / streams);
        System.out.printf("bench\tlz4 frame %d B\t%.1f\t%.1f\t%.2f%n", size, streams, codec, codec / streams);
      }
    }
  }

  /** Little-endian longs of a key column: ascending with small gaps, like sorted order keys. */
  private static byte[] columnLike(int size) {
    Random random = new Random(size);
    byte[] b = new byte[size];
    long v = 1_000_000;
    for (int i = 0; i + 8 <= size; i += 8) {
      v += random.nextInt(40);
      for (int k = 0; k < 8; k++) {
        b[i + k] = (byte) (v >>> (8 * k));
      }
    }
    return b;
  }

  private interface Case {
    int run() throws IOException;
  }

  private static double rate(double seconds, int size, Case c) throws IOException {
    long sink = 0;
    for (int i = 0; i < 2_000; i++) {
      sink += c.run(); // warm-up
    }
    long n = 0;
    long start = System.nanoTime();
    long until = start + (long) (seconds * 1e9);
    while (System.nanoTime() < until) {
      for (int i = 0; i < 100; i++) {
        sink += c.run();
      }
      n += 100;
    }
    double secs = (System.nanoTime() - start) / 1e9;
    if (sink == 42) {
      System.out.print("");
    }
    return n * (double) size / secs / 1e6;
  }

  private static int roundTrip(CompressionCodec codec, BufferAllocator allocator, byte[] data) {
    ArrowBuf in = allocator.buffer(data.length);
    in.setBytes(0, data);
    in.writerIndex(data.length);
    ArrowBuf compressed = codec.compress(allocator, in);
    try (ArrowBuf out = codec.decompress(allocator, compressed)) {
      return out.getByte(data.length - 1);
    }
  }

  /** The baseline: each buffer framed by lz4-java's frame streams (64 KiB blocks, independent). */
  private static final class StreamFramedCodec extends AbstractCompressionCodec {
    static final StreamFramedCodec INSTANCE = new StreamFramedCodec();

    @Override
    protected ArrowBuf doCompress(BufferAllocator allocator, ArrowBuf uncompressed) {
      byte[] in = new byte[(int) uncompressed.writerIndex()];
      uncompressed.getBytes(0, in);
      ByteArrayOutputStream frame = new ByteArrayOutputStream(in.length / 2 + 64);
      try (LZ4FrameOutputStream out = new LZ4FrameOutputStream(frame, LZ4FrameOutputStream.BLOCKSIZE.SIZE_64KB, -1L,
          LZ4.fastCompressor(), XXHASH.hash32(), LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE)) {
        out.write(in);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      byte[] bytes = frame.toByteArray();
      ArrowBuf compressed = allocator.buffer(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + (long) bytes.length);
      compressed.setBytes(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, bytes);
      compressed.writerIndex(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + (long) bytes.length);
      return compressed;
    }

    @Override
    protected ArrowBuf doDecompress(BufferAllocator allocator, ArrowBuf compressed) {
      long length = readUncompressedLength(compressed);
      byte[] in = new byte[(int) (compressed.writerIndex() - CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH)];
      compressed.getBytes(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, in);
      byte[] out = new byte[(int) length];
      try (LZ4FrameInputStream frame = new LZ4FrameInputStream(new ByteArrayInputStream(in), LZ4.safeDecompressor(),
          XXHASH.hash32())) {
        int read = 0;
        while (read < out.length) {
          read += frame.read(out, read, out.length - read);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      ArrowBuf decompressed = allocator.buffer(length);
      decompressed.setBytes(0, out);
      decompressed.writerIndex(length);
      return decompressed;
    }

    @Override
    public CompressionUtil.CodecType getCodecType() {
      return CompressionUtil.CodecType.LZ4_FRAME;
    }
  }
}

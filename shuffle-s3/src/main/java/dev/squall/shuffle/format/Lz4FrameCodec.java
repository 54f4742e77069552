package dev.squall.shuffle.format;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;
import net.jpountz.xxhash.XXHashFactory;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.AbstractCompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;

/**
 * Arrow IPC body compression {@code LZ4_FRAME} with lz4-java: each buffer becomes one LZ4 frame
 * (LZ4 Frame Format 1.6: 64 KiB independent blocks, no content checksum) after Arrow's 8-byte
 * uncompressed-length prefix, which {@link AbstractCompressionCodec} writes and reads. Frames
 * are standard, so any Arrow implementation reads them (and this codec reads theirs).
 *
 * <p>Why not arrow-compression's LZ4 codec: it goes through Commons Compress's pure-Java LZ77,
 * which measured about 0.4 MB/s per core here (docs/benchmarks.md). lz4-java's Java
 * implementation ({@code fastestJavaInstance}, no JNI, so native-image friendly) is hundreds of
 * times faster.
 */
public final class Lz4FrameCodec extends AbstractCompressionCodec {
  /** The codec; stateless and thread-safe. */
  public static final Lz4FrameCodec INSTANCE = new Lz4FrameCodec();

  private static final LZ4Factory LZ4 = LZ4Factory.fastestJavaInstance();
  private static final XXHashFactory XXHASH = XXHashFactory.fastestJavaInstance();

  private Lz4FrameCodec() {}

  @Override
  protected ArrowBuf doCompress(BufferAllocator allocator, ArrowBuf uncompressed) {
    byte[] in = new byte[(int) uncompressed.writerIndex()];
    uncompressed.getBytes(0, in);
    ByteArrayOutputStream frame = new ByteArrayOutputStream(in.length / 2 + 64);
    try (LZ4FrameOutputStream out = new LZ4FrameOutputStream(frame, LZ4FrameOutputStream.BLOCKSIZE.SIZE_64KB, -1L,
        LZ4.fastCompressor(), XXHASH.hash32(), LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE)) {
      out.write(in);
    } catch (IOException e) {
      throw new UncheckedIOException("LZ4 frame compression failed", e);
    }
    byte[] bytes = frame.toByteArray();
    ArrowBuf compressed = allocator.buffer(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + bytes.length);
    compressed.setBytes(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, bytes);
    compressed.writerIndex(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + bytes.length);
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
        int n = frame.read(out, read, out.length - read);
        if (n < 0) {
          throw new IllegalStateException("LZ4 frame ended after " + read + " of " + length + " bytes");
        }
        read += n;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("LZ4 frame decompression failed", e);
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

package dev.squall.shuffle.format;

import java.util.Arrays;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import net.jpountz.xxhash.XXHash32;
import net.jpountz.xxhash.XXHashFactory;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.AbstractCompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;

/**
 * Arrow IPC body compression {@code LZ4_FRAME}: each buffer becomes one LZ4 frame (LZ4 Frame
 * Format 1.6) after Arrow's 8-byte uncompressed-length prefix, which
 * {@link AbstractCompressionCodec} writes and reads. Frames are standard, so any Arrow
 * implementation reads them, and this codec reads theirs.
 *
 * <p>Written frames: magic, FLG {@code 0x60} (version 1, independent blocks, no checksums, no
 * content size), BD {@code 0x40} (64 KiB blocks), the header checksum byte, then blocks of up to
 * 64 KiB of input compressed with lz4-java's block compressor (a block that does not shrink is
 * stored uncompressed, its size's high bit set), then the zero end mark. Reading parses the same
 * layout with any block size, block and content checksums (verified) and a content size (skipped);
 * a frame of linked blocks or with a dictionary id is refused (lz4-java's frame streams refuse
 * them too).
 *
 * <p>Why frames are laid out here rather than by lz4-java's frame streams: those allocate and zero
 * a buffer of the block size (64 KiB and more) per frame, twice on reading, and Arrow makes one
 * frame per buffer of every batch, so for batches of a few thousand rows the allocation cost more
 * than the compression (docs/benchmarks.md). Why not arrow-compression's LZ4 codec: it goes
 * through Commons Compress's pure-Java LZ77, about 0.4 MB/s per core here. lz4-java does the block
 * compression and the xxHash checksums: its JNI binding of the C library where that loads (the jar
 * carries it for Linux on x86-64 and arm64, Lambda's two architectures), about 2.5 times as fast
 * at compressing as its Java implementation, which {@code fastestInstance} falls back to
 * elsewhere (as for the zstd-jni binding Parquet's ZSTD pages already go through).
 */
public final class Lz4FrameCodec extends AbstractCompressionCodec {
  /** The codec; stateless and thread-safe. */
  public static final Lz4FrameCodec INSTANCE = new Lz4FrameCodec();

  private static final LZ4Factory LZ4 = LZ4Factory.fastestInstance();
  private static final LZ4Compressor COMPRESSOR = LZ4.fastCompressor();
  private static final LZ4SafeDecompressor DECOMPRESSOR = LZ4.safeDecompressor();
  private static final XXHash32 XXHASH = XXHashFactory.fastestInstance().hash32();

  private static final int MAGIC = 0x184D2204;
  private static final int BLOCK_BYTES = 64 * 1024;
  private static final int FLG_VERSION_MASK = 0xC0;
  private static final int FLG_VERSION = 0x40;
  private static final int FLG_BLOCK_INDEPENDENCE = 0x20;
  private static final int FLG_BLOCK_CHECKSUM = 0x10;
  private static final int FLG_CONTENT_SIZE = 0x08;
  private static final int FLG_CONTENT_CHECKSUM = 0x04;
  private static final int FLG_DICTIONARY_ID = 0x01;
  /** BD for 64 KiB blocks. */
  private static final int BD_64KB = 0x40;
  private static final int UNCOMPRESSED_BLOCK = 0x80000000;

  private Lz4FrameCodec() {}

  @Override
  protected ArrowBuf doCompress(BufferAllocator allocator, ArrowBuf uncompressed) {
    byte[] in = new byte[(int) uncompressed.writerIndex()];
    uncompressed.getBytes(0, in);
    byte[] frame = new byte[maxFrameLength(in.length)];
    int n = compress(in, frame);
    long prefix = CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH;
    ArrowBuf compressed = allocator.buffer(prefix + n);
    compressed.setBytes(prefix, frame, 0, n);
    compressed.writerIndex(prefix + n);
    return compressed;
  }

  /** One LZ4 frame of {@code in} (layout in the class comment), as an exact-size array. */
  static byte[] compress(byte[] in) {
    byte[] out = new byte[maxFrameLength(in.length)];
    return Arrays.copyOf(out, compress(in, out));
  }

  /** The largest frame {@link #compress(byte[], byte[])} writes for {@code length} bytes. */
  private static int maxFrameLength(int length) {
    int blocks = (length + BLOCK_BYTES - 1) / BLOCK_BYTES;
    int full = length / BLOCK_BYTES;
    int bound = 7 + blocks * 4 + 4 + full * COMPRESSOR.maxCompressedLength(BLOCK_BYTES);
    return full == blocks ? bound : bound + COMPRESSOR.maxCompressedLength(length - full * BLOCK_BYTES);
  }

  /** Writes one frame of {@code in} at the start of {@code out}; returns its length. */
  private static int compress(byte[] in, byte[] out) {
    writeIntLe(out, 0, MAGIC);
    out[4] = (byte) (FLG_VERSION | FLG_BLOCK_INDEPENDENCE);
    out[5] = (byte) BD_64KB;
    out[6] = headerChecksum(out, 4, 2);
    int pos = 7;
    for (int from = 0; from < in.length; from += BLOCK_BYTES) {
      int len = Math.min(BLOCK_BYTES, in.length - from);
      int n = COMPRESSOR.compress(in, from, len, out, pos + 4, out.length - pos - 4);
      if (n >= len) {
        writeIntLe(out, pos, len | UNCOMPRESSED_BLOCK);
        System.arraycopy(in, from, out, pos + 4, len);
        pos += 4 + len;
      } else {
        writeIntLe(out, pos, n);
        pos += 4 + n;
      }
    }
    writeIntLe(out, pos, 0);
    return pos + 4;
  }

  @Override
  protected ArrowBuf doDecompress(BufferAllocator allocator, ArrowBuf compressed) {
    long length = readUncompressedLength(compressed);
    byte[] in = new byte[(int) (compressed.writerIndex() - CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH)];
    compressed.getBytes(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, in);
    byte[] out = decompress(in, (int) length);
    ArrowBuf decompressed = allocator.buffer(length);
    decompressed.setBytes(0, out);
    decompressed.writerIndex(length);
    return decompressed;
  }

  /**
   * The {@code length} bytes of one LZ4 frame.
   *
   * @throws IllegalStateException when the frame is malformed, fails a checksum or does not hold
   *     exactly {@code length} bytes
   */
  static byte[] decompress(byte[] in, int length) {
    if (in.length < 7 || readIntLe(in, 0) != MAGIC) {
      throw new IllegalStateException("not an LZ4 frame (bad magic number)");
    }
    int flg = in[4] & 0xff;
    if ((flg & FLG_VERSION_MASK) != FLG_VERSION) {
      throw new IllegalStateException("LZ4 frame version " + ((flg & FLG_VERSION_MASK) >> 6) + " is not 1");
    }
    if ((flg & FLG_BLOCK_INDEPENDENCE) == 0) {
      throw new IllegalStateException("LZ4 frames of linked blocks are not supported (only independent blocks)");
    }
    if ((flg & FLG_DICTIONARY_ID) != 0) {
      throw new IllegalStateException("LZ4 frames with a dictionary id are not supported");
    }
    int descriptor = 2 + ((flg & FLG_CONTENT_SIZE) != 0 ? 8 : 0);
    if (in.length < 4 + descriptor + 1) {
      throw new IllegalStateException("LZ4 frame header is cut short");
    }
    if (headerChecksum(in, 4, descriptor) != in[4 + descriptor]) {
      throw new IllegalStateException("LZ4 frame header checksum mismatch");
    }
    boolean blockChecksum = (flg & FLG_BLOCK_CHECKSUM) != 0;
    byte[] out = new byte[length];
    int pos = 4 + descriptor + 1;
    int done = 0;
    try {
      while (true) {
        int size = readIntLe(in, pos);
        pos += 4;
        if (size == 0) {
          break;
        }
        int len = size & ~UNCOMPRESSED_BLOCK;
        if (len > in.length - pos) {
          throw new IllegalStateException("LZ4 block of " + len + " bytes passes the frame's end");
        }
        int n;
        if ((size & UNCOMPRESSED_BLOCK) != 0) {
          if (len > length - done) {
            throw new IllegalStateException("LZ4 frame holds more than " + length + " bytes");
          }
          System.arraycopy(in, pos, out, done, len);
          n = len;
        } else {
          n = DECOMPRESSOR.decompress(in, pos, len, out, done, length - done);
        }
        if (blockChecksum) {
          if (XXHASH.hash(in, pos, len, 0) != readIntLe(in, pos + len)) {
            throw new IllegalStateException("LZ4 block checksum mismatch");
          }
          pos += 4;
        }
        pos += len;
        done += n;
      }
      if ((flg & FLG_CONTENT_CHECKSUM) != 0 && XXHASH.hash(out, 0, done, 0) != readIntLe(in, pos)) {
        throw new IllegalStateException("LZ4 frame content checksum mismatch");
      }
    } catch (ArrayIndexOutOfBoundsException | LZ4Exception e) {
      throw new IllegalStateException("LZ4 frame is corrupt after " + done + " of " + length + " bytes", e);
    }
    if (done != length) {
      throw new IllegalStateException("LZ4 frame ended after " + done + " of " + length + " bytes");
    }
    return out;
  }

  /** The frame descriptor's checksum byte: the second byte of its xxHash32 (seed 0). */
  private static byte headerChecksum(byte[] b, int off, int len) {
    return (byte) ((XXHASH.hash(b, off, len, 0) >> 8) & 0xff);
  }

  private static void writeIntLe(byte[] b, int off, int v) {
    b[off] = (byte) v;
    b[off + 1] = (byte) (v >>> 8);
    b[off + 2] = (byte) (v >>> 16);
    b[off + 3] = (byte) (v >>> 24);
  }

  private static int readIntLe(byte[] b, int off) {
    return (b[off] & 0xff) | (b[off + 1] & 0xff) << 8 | (b[off + 2] & 0xff) << 16 | (b[off + 3] & 0xff) << 24;
  }

  @Override
  public CompressionUtil.CodecType getCodecType() {
    return CompressionUtil.CodecType.LZ4_FRAME;
  }
}

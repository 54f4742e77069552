package dev.squall.shuffle.format;

import dev.squall.proto.v1.Compression;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.compression.NoCompressionCodec;

/**
 * Arrow IPC body compression of shuffle streams: ZSTD from arrow-compression's
 * {@link CommonsCompressionFactory} (zstd-jni), LZ4_FRAME from {@link Lz4FrameCodec} (lz4-java),
 * none as Arrow's {@link NoCompressionCodec}. The codec is recorded in each IPC record batch,
 * so readers need no setting.
 */
public final class Codecs {
  private Codecs() {}

  private static final CompressionCodec.Factory FACTORY = new CompressionCodec.Factory() {
    @Override
    public CompressionCodec createCodec(CompressionUtil.CodecType codecType) {
      switch (codecType) {
        case NO_COMPRESSION:
          return NoCompressionCodec.INSTANCE;
        case LZ4_FRAME:
          return Lz4FrameCodec.INSTANCE;
        default:
          return CommonsCompressionFactory.INSTANCE.createCodec(codecType);
      }
    }

    @Override
    public CompressionCodec createCodec(CompressionUtil.CodecType codecType, int compressionLevel) {
      return codecType == CompressionUtil.CodecType.ZSTD
          ? CommonsCompressionFactory.INSTANCE.createCodec(codecType, compressionLevel)
          : createCodec(codecType);
    }
  };

  /** The factory both writers and readers use. */
  public static CompressionCodec.Factory factory() {
    return FACTORY;
  }

  /** The Arrow codec for a plan's compression; unspecified means LZ4_FRAME. */
  public static CompressionUtil.CodecType codecOf(Compression compression) {
    switch (compression) {
      case NONE:
        return CompressionUtil.CodecType.NO_COMPRESSION;
      case ZSTD:
        return CompressionUtil.CodecType.ZSTD;
      case LZ4_FRAME:
      case COMPRESSION_UNSPECIFIED:
        return CompressionUtil.CodecType.LZ4_FRAME;
      default:
        throw new IllegalArgumentException("Unknown shuffle compression: " + compression);
    }
  }
}

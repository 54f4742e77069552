package dev.squall.shuffle.format;

import dev.squall.proto.v1.Compression;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.compression.NoCompressionCodec;

/**
 * Arrow IPC body compression of shuffle streams. Codecs come from arrow-compression's
 * {@link CommonsCompressionFactory} (LZ4 frame through Apache Commons Compress, ZSTD through
 * zstd-jni); the codec is recorded in each IPC record batch, so readers need no setting.
 */
public final class Codecs {
  private Codecs() {}

  private static final CompressionCodec.Factory FACTORY = new CompressionCodec.Factory() {
    @Override
    public CompressionCodec createCodec(CompressionUtil.CodecType codecType) {
      return codecType == CompressionUtil.CodecType.NO_COMPRESSION
          ? NoCompressionCodec.INSTANCE
          : CommonsCompressionFactory.INSTANCE.createCodec(codecType);
    }

    @Override
    public CompressionCodec createCodec(CompressionUtil.CodecType codecType, int compressionLevel) {
      return codecType == CompressionUtil.CodecType.NO_COMPRESSION
          ? NoCompressionCodec.INSTANCE
          : CommonsCompressionFactory.INSTANCE.createCodec(codecType, compressionLevel);
    }
  };

  /**
   * The factory both writers and readers use: Commons Compress codecs, and Arrow's
   * {@link NoCompressionCodec} for uncompressed streams (which the Commons factory refuses).
   */
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

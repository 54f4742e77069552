package dev.squall.task.write;

import java.io.IOException;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

/**
 * An Iceberg {@link org.apache.iceberg.io.OutputFile} (S3FileIO, local files) as the Parquet
 * {@link OutputFile} parquet-mr's file writer writes to. The stream it opened is kept, so that an
 * abandoned file can be closed without a footer.
 */
final class ParquetOutput implements OutputFile {
  private final org.apache.iceberg.io.OutputFile file;
  private PositionOutputStream opened;

  ParquetOutput(org.apache.iceberg.io.OutputFile file) {
    this.file = file;
  }

  @Override
  public PositionOutputStream create(long blockSizeHint) {
    return open(file.create());
  }

  @Override
  public PositionOutputStream createOrOverwrite(long blockSizeHint) {
    return open(file.createOrOverwrite());
  }

  @Override
  public boolean supportsBlockSize() {
    return false;
  }

  @Override
  public long defaultBlockSize() {
    return 0;
  }

  @Override
  public String getPath() {
    return file.location();
  }

  /** The stream opened by {@link #create} or {@link #createOrOverwrite}, or null. */
  PositionOutputStream opened() {
    return opened;
  }

  private PositionOutputStream open(org.apache.iceberg.io.PositionOutputStream out) {
    opened = new PositionOutputStream() {
      @Override
      public long getPos() throws IOException {
        return out.getPos();
      }

      @Override
      public void write(int b) throws IOException {
        out.write(b);
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
      }

      @Override
      public void flush() throws IOException {
        out.flush();
      }

      @Override
      public void close() throws IOException {
        out.close();
      }
    };
    return opened;
  }
}

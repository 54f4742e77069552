package dev.squall.engine.scan;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.iceberg.io.RangeReadable;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * An Iceberg {@link org.apache.iceberg.io.InputFile} (S3FileIO, a local FileIO) seen as a
 * parquet-mr {@link InputFile}. parquet-mr reads a footer and then each run of consecutive projected
 * column chunks with one {@code seek} and one {@code readFully}; when the Iceberg stream can read a
 * range ({@link RangeReadable}, as S3FileIO's does with a ranged GET), each such read is one exact
 * ranged request instead of an open-ended stream from the seek position.
 */
final class IcebergInputFile implements InputFile {
  private final org.apache.iceberg.io.InputFile file;
  private long length = -1;

  IcebergInputFile(org.apache.iceberg.io.InputFile file) {
    this.file = file;
  }

  @Override
  public long getLength() {
    if (length < 0) {
      length = file.getLength();
    }
    return length;
  }

  @Override
  public SeekableInputStream newStream() {
    return new Stream(file.newStream());
  }

  @Override
  public String toString() {
    return file.location();
  }

  /** Keeps its own position; positioned reads go to {@link RangeReadable} when the stream has it. */
  private static final class Stream extends SeekableInputStream {
    private final org.apache.iceberg.io.SeekableInputStream in;
    private final RangeReadable ranged;
    private long pos;
    /** Where {@code in} stands, when it was used sequentially. */
    private long streamPos;

    Stream(org.apache.iceberg.io.SeekableInputStream in) {
      this.in = in;
      this.ranged = in instanceof RangeReadable r ? r : null;
    }

    @Override
    public long getPos() {
      return pos;
    }

    @Override
    public void seek(long newPos) {
      pos = newPos;
    }

    private void syncStream() throws IOException {
      if (streamPos != pos) {
        in.seek(pos);
        streamPos = pos;
      }
    }

    @Override
    public int read() throws IOException {
      syncStream();
      int b = in.read();
      if (b >= 0) {
        pos++;
        streamPos++;
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      syncStream();
      int n = in.read(b, off, len);
      if (n > 0) {
        pos += n;
        streamPos += n;
      }
      return n;
    }

    @Override
    public void readFully(byte[] bytes) throws IOException {
      readFully(bytes, 0, bytes.length);
    }

    @Override
    public void readFully(byte[] bytes, int start, int len) throws IOException {
      if (ranged != null) {
        ranged.readFully(pos, bytes, start, len);
        pos += len;
        return;
      }
      int done = 0;
      while (done < len) {
        int n = read(bytes, start + done, len - done);
        if (n < 0) {
          throw new EOFException("end of file after " + done + " of " + len + " bytes at " + (pos - done));
        }
        done += n;
      }
    }

    @Override
    public int read(ByteBuffer buf) throws IOException {
      int len = buf.remaining();
      if (len == 0) {
        return 0;
      }
      if (buf.hasArray()) {
        int n = read(buf.array(), buf.arrayOffset() + buf.position(), len);
        if (n > 0) {
          buf.position(buf.position() + n);
        }
        return n;
      }
      byte[] tmp = new byte[Math.min(len, 1 << 16)];
      int n = read(tmp, 0, tmp.length);
      if (n > 0) {
        buf.put(tmp, 0, n);
      }
      return n;
    }

    @Override
    public void readFully(ByteBuffer buf) throws IOException {
      int len = buf.remaining();
      if (buf.hasArray()) {
        readFully(buf.array(), buf.arrayOffset() + buf.position(), len);
        buf.position(buf.position() + len);
        return;
      }
      byte[] tmp = new byte[len];
      readFully(tmp, 0, len);
      buf.put(tmp);
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}

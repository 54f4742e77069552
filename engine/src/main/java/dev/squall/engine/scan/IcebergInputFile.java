package dev.squall.engine.scan;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.iceberg.io.RangeReadable;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * An Iceberg {@link org.apache.iceberg.io.InputFile} (S3FileIO, a local FileIO) seen as a
 * parquet-mr {@link InputFile}, reading through ranged requests when the Iceberg stream can
 * ({@link RangeReadable}: S3FileIO's answers each with one ranged GET).
 *
 * <p>With ranged requests, every read is one of three kinds, so that a stream never opens an
 * open-ended GET that is abandoned after a few bytes:
 *
 * <ul>
 *   <li>the <b>tail</b>: the first read within the last {@link #TAIL_BYTES} of the file fetches
 *       them all with one request, and later reads inside it are served from memory. parquet-mr
 *       reads the footer length, the magic and then the footer, so opening a file is one GET
 *       (Trino reads its footers the same way), and a file smaller than the tail is read whole by
 *       it;
 *   <li>a <b>large</b> read ({@code readFully} of at least {@link #READ_AHEAD_BYTES}: a run of
 *       column chunks) is one exact ranged request;
 *   <li>any other read (page headers and the dictionary or bloom filter pages that row-group
 *       filters read) fetches a window of {@link #READ_AHEAD_BYTES} from its position, which later
 *       small reads inside it are served from.
 * </ul>
 *
 * <p>Without ranged requests, reads go to the Iceberg stream as they come.
 */
final class IcebergInputFile implements InputFile {
  /** Bytes fetched from the end of the file by the first read that falls within them. */
  static final int TAIL_BYTES = 64 * 1024;
  /** The smallest request of a read that is not a whole run of column chunks. */
  static final int READ_AHEAD_BYTES = 64 * 1024;

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
    org.apache.iceberg.io.SeekableInputStream in = file.newStream();
    return in instanceof RangeReadable r ? new RangedStream(in, r, getLength()) : new SequentialStream(in);
  }

  @Override
  public String toString() {
    return file.location();
  }

  /**
   * A stream over the Iceberg stream {@code in} with a position of its own; byte buffers are read
   * through the subclass's {@code read(byte[], int, int)} and {@code readFully(byte[], int, int)}.
   */
  private abstract static class PositionedStream extends SeekableInputStream {
    protected final org.apache.iceberg.io.SeekableInputStream in;
    protected long pos;

    PositionedStream(org.apache.iceberg.io.SeekableInputStream in) {
      this.in = in;
    }

    @Override
    public long getPos() {
      return pos;
    }

    @Override
    public void seek(long newPos) {
      pos = newPos;
    }

    @Override
    public void readFully(byte[] bytes) throws IOException {
      readFully(bytes, 0, bytes.length);
    }

    @Override
    public int read(ByteBuffer buf) throws IOException {
      int len = buf.remaining();
      if (len == 0) {
        return 0;
      }
      byte[] tmp = buf.hasArray() ? buf.array() : new byte[Math.min(len, READ_AHEAD_BYTES)];
      int off = buf.hasArray() ? buf.arrayOffset() + buf.position() : 0;
      int n = read(tmp, off, buf.hasArray() ? len : tmp.length);
      if (n > 0) {
        if (buf.hasArray()) {
          buf.position(buf.position() + n);
        } else {
          buf.put(tmp, 0, n);
        }
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

  /** Reads through ranged requests only, from the tail, a read-ahead window or exactly. */
  private static final class RangedStream extends PositionedStream {
    private final RangeReadable ranged;
    private final long length;
    /** The last {@code tail.length} bytes of the file once fetched, else null. */
    private byte[] tail;
    /** The read-ahead window: {@code windowLength} bytes from {@code windowStart}. */
    private byte[] window;
    private long windowStart;
    private int windowLength;
    private final byte[] single = new byte[1];

    RangedStream(org.apache.iceberg.io.SeekableInputStream in, RangeReadable ranged, long length) {
      super(in);
      this.ranged = ranged;
      this.length = length;
    }

    @Override
    public int read() throws IOException {
      return read(single, 0, 1) < 0 ? -1 : single[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      if (pos >= length) {
        return -1;
      }
      int n = (int) Math.min(len, length - pos);
      if (!copyBuffered(b, off, n)) {
        fill(n);
        if (!copyBuffered(b, off, n)) {
          // The window starts at pos and holds at least n bytes, so this cannot happen.
          throw new IOException("read of " + n + " bytes at " + pos + " not buffered");
        }
      }
      pos += n;
      return n;
    }

    @Override
    public void readFully(byte[] bytes, int start, int len) throws IOException {
      if (len == 0) {
        return;
      }
      if (pos + len > length) {
        throw new EOFException("end of file after " + (length - pos) + " of " + len + " bytes at " + pos);
      }
      if (copyBuffered(bytes, start, len)) {
        pos += len;
        return;
      }
      if (len >= READ_AHEAD_BYTES && !inTail(pos)) {
        ranged.readFully(pos, bytes, start, len);
        pos += len;
        return;
      }
      fill(len);
      if (copyBuffered(bytes, start, len)) {
        pos += len;
        return;
      }
      // A read reaching into the tail from before it (a footer larger than the tail).
      ranged.readFully(pos, bytes, start, len);
      pos += len;
    }


    private boolean inTail(long position) {
      return position >= length - Math.min(TAIL_BYTES, length);
    }

    /**
     * Fetches what a read of {@code len} bytes at {@code pos} is served from: the tail when the
     * read starts in it, else a window from {@code pos} of at least {@code len} bytes.
     */
    private void fill(int len) throws IOException {
      if (inTail(pos) && tail == null) {
        int n = (int) Math.min(TAIL_BYTES, length);
        byte[] t = new byte[n];
        ranged.readFully(length - n, t, 0, n);
        tail = t;
        return;
      }
      int n = (int) Math.min(Math.max(len, READ_AHEAD_BYTES), length - pos);
      if (window == null || window.length < n) {
        window = new byte[Math.max(n, READ_AHEAD_BYTES)];
      }
      ranged.readFully(pos, window, 0, n);
      windowStart = pos;
      windowLength = n;
    }

    /** Copies {@code len} bytes at {@code pos} from the tail or the window when one holds them all. */
    private boolean copyBuffered(byte[] b, int off, int len) {
      if (tail != null && pos >= length - tail.length) {
        System.arraycopy(tail, (int) (pos - (length - tail.length)), b, off, len);
        return true;
      }
      if (window != null && pos >= windowStart && pos + len <= windowStart + windowLength) {
        System.arraycopy(window, (int) (pos - windowStart), b, off, len);
        return true;
      }
      return false;
    }
  }

  /** Reads through the Iceberg stream as parquet-mr asks, keeping its own position. */
  private static final class SequentialStream extends PositionedStream {
    /** Where {@code in} stands. */
    private long streamPos;

    SequentialStream(org.apache.iceberg.io.SeekableInputStream in) {
      super(in);
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
    public void readFully(byte[] bytes, int start, int len) throws IOException {
      int done = 0;
      while (done < len) {
        int n = read(bytes, start + done, len - done);
        if (n < 0) {
          throw new EOFException("end of file after " + done + " of " + len + " bytes at " + (pos - done));
        }
        done += n;
      }
    }

  }
}

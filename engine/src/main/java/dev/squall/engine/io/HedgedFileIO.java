package dev.squall.engine.io;

import java.io.IOException;
import java.util.Arrays;
import java.util.Map;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * A {@link FileIO} whose ranged reads ({@link RangeReadable}, as S3FileIO's streams answer with
 * one ranged GET each) are hedged ({@link HedgedRequests}): the scan reads each run of column
 * chunks with one such read, and a slow GET is overtaken by a second one. Each copy reads through
 * its own stream into its own buffer; the winner's bytes are copied into the caller's. Sequential
 * reads, writes and deletes go to the wrapped FileIO as they are.
 */
public final class HedgedFileIO implements FileIO {
  private final FileIO delegate;
  private final HedgedRequests hedged;

  /** Wraps {@code delegate} unless hedging is off. */
  public static FileIO wrap(FileIO delegate, HedgeSettings settings) {
    return delegate == null || !settings.enabled() ? delegate : new HedgedFileIO(delegate, new HedgedRequests(settings));
  }

  public HedgedFileIO(FileIO delegate, HedgedRequests hedged) {
    this.delegate = delegate;
    this.hedged = hedged;
  }

  /** The hedging counters of this FileIO's ranged reads. */
  public HedgedRequests hedged() {
    return hedged;
  }

  @Override
  public InputFile newInputFile(String path) {
    return new HedgedInputFile(delegate.newInputFile(path));
  }

  @Override
  public InputFile newInputFile(String path, long length) {
    return new HedgedInputFile(delegate.newInputFile(path, length));
  }

  @Override
  public OutputFile newOutputFile(String path) {
    return delegate.newOutputFile(path);
  }

  @Override
  public void deleteFile(String path) {
    delegate.deleteFile(path);
  }

  @Override
  public Map<String, String> properties() {
    return delegate.properties();
  }

  @Override
  public void initialize(Map<String, String> properties) {
    delegate.initialize(properties);
  }

  @Override
  public void close() {
    delegate.close();
  }

  private final class HedgedInputFile implements InputFile {
    private final InputFile file;

    HedgedInputFile(InputFile file) {
      this.file = file;
    }

    @Override
    public long getLength() {
      return file.getLength();
    }

    @Override
    public SeekableInputStream newStream() {
      SeekableInputStream in = file.newStream();
      return in instanceof RangeReadable ? new HedgedStream(file, in) : in;
    }

    @Override
    public String location() {
      return file.location();
    }

    @Override
    public boolean exists() {
      return file.exists();
    }
  }

  /** Sequential reads through one stream; each ranged read through fresh streams, hedged. */
  private final class HedgedStream extends SeekableInputStream implements RangeReadable {
    private final InputFile file;
    private final SeekableInputStream in;

    HedgedStream(InputFile file, SeekableInputStream in) {
      this.file = file;
      this.in = in;
    }

    @Override
    public long getPos() throws IOException {
      return in.getPos();
    }

    @Override
    public void seek(long newPos) throws IOException {
      in.seek(newPos);
    }

    @Override
    public int read() throws IOException {
      return in.read();
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      return in.read(b, off, len);
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
      byte[] bytes = hedged.call(() -> {
        byte[] own = new byte[length];
        try (SeekableInputStream copy = file.newStream()) {
          ((RangeReadable) copy).readFully(position, own, 0, length);
        }
        return own;
      });
      System.arraycopy(bytes, 0, buffer, offset, length);
    }

    @Override
    public int readTail(byte[] buffer, int offset, int length) throws IOException {
      byte[] bytes = hedged.call(() -> {
        byte[] own = new byte[length];
        int n;
        try (SeekableInputStream copy = file.newStream()) {
          n = ((RangeReadable) copy).readTail(own, 0, length);
        }
        return n == length ? own : Arrays.copyOf(own, n);
      });
      System.arraycopy(bytes, 0, buffer, offset, bytes.length);
      return bytes.length;
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}

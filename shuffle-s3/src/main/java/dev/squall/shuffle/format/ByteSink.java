package dev.squall.shuffle.format;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;

/** A growable in-memory byte buffer whose contents can be handed on without a copy. */
public final class ByteSink extends ByteArrayOutputStream {
  public ByteSink(int initialCapacity) {
    super(initialCapacity);
  }

  /** Appends the bytes written so far to {@code out}, without an intermediate copy. */
  public void copyTo(ByteArrayOutputStream out) {
    out.write(buf, 0, count);
  }

  /** A new stream over the bytes written so far (no copy); valid until the next write or reset. */
  public InputStream newInputStream() {
    return new ByteArrayInputStream(buf, 0, count);
  }
}

package dev.squall.shuffle.format;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;

/** A growable in-memory byte buffer whose contents can be handed on without a copy. */
public final class ByteSink extends ByteArrayOutputStream {
  public ByteSink(int initialCapacity) {
    super(initialCapacity);
  }

  /** Appends the bytes written so far to {@code out}, without an intermediate copy. */
  public void copyTo(ByteArrayOutputStream out) {
    out.write(buf, 0, count);
  }

  /** A read-only view of the bytes written so far; valid until the next write or reset. */
  public ByteBuffer view() {
    return ByteBuffer.wrap(buf, 0, count).asReadOnlyBuffer();
  }
}
